"""Images to the model, in the browser: the page as served, its model a text-only one behind the
local OpenAI-compatible server (a 400 naming images when a request carries them). A question
about the sign is answered through the tools, the trace says once that the model cannot take
images, the status line says text only; Settings offer Images to the model in both languages,
and Never sends the next turn no image parts."""

from __future__ import annotations

from pathlib import Path

import pytest

import app
from agent.config import Settings
from tests.support.local import CHROMIUM, open_page, serve
from tests.support.openai_server import OpenAIServer
from tests.support.page_driver import EXAMPLES, send, wait_done
from tests.support.text_only_server import LLAMA_CPP_REFUSAL, image_parts, last_user_text

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

READ = 'Thought: I read it.\nAction: read_text\nAction Input: {"image_id": "img_1"}'


def text_only_model(body: dict):
    """A small text-only model: refuses images, reads the sign with the tool, then answers."""
    if image_parts(body):
        return LLAMA_CPP_REFUSAL
    said = last_user_text(body)
    if said.startswith("Observation:"):
        return "Thought: done.\nAnswer: " + " / ".join(said.split("\n")[1:])
    return READ


@pytest.fixture(scope="module")
def model_server():
    with OpenAIServer(text_only_model) as server:
        yield server


@pytest.fixture(scope="module")
def url(model_server):
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    env = Settings(
        OPENAI_BASE_URL=model_server.base_url,
        AGENT_MODEL="smollm2",
        AGENT_TOOL_PROTOCOL="react",
    )
    demo = app.build_demo(env=env)
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


def test_a_text_only_model_on_the_page(browser, url, model_server):
    page = open_page(browser, url)
    try:
        send(page, "What does the sign say?", EXAMPLES / "sign.png")
        wait_done(page)
        expect(page.locator("#chat .bot-row").last).to_contain_text("OPEN 9:00 - 18:00")
        expect(page.locator("#run-status")).to_contain_text("text only: tools look at images")
        notice = page.locator("#trace").get_by_text("Notice", exact=True)
        expect(notice).to_have_count(1)
        notice.click()  # the step folds once done
        expect(page.locator("#trace")).to_contain_text("'smollm2' cannot take images")

        page.locator("#settings").get_by_text("Settings").click()
        vision = page.locator("#vision")
        for words in ("Images to the model", "Automatic", "Always", "Never"):
            expect(vision).to_contain_text(words)
        page.locator("#language").get_by_text("中文", exact=True).click()
        for words in ("发给模型的图片", "自动", "总是", "从不"):
            expect(vision).to_contain_text(words)
        expect(page.locator("#run-status")).to_contain_text("只接受文字")
        vision.get_by_text("从不", exact=True).click()

        asked = len(model_server.requests)
        send(page, "几点开门？", EXAMPLES / "sign.png")
        wait_done(page, "次模型调用")
        expect(page.locator("#run-status")).to_contain_text("不发送图片")
        assert not any(image_parts(body) for body in model_server.requests[asked:])
    finally:
        page.context.close()
