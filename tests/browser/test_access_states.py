"""axe finds nothing serious in the page's newer states: on a phone (with the trace reached by
its jump), with a tool's image and an error in the conversation, and after Language in
Settings changed the page's language."""

from __future__ import annotations

import pytest

from agent.models import ScriptedModel
from agent.models.base import ModelError
from tests.support.page_driver import DESKTOP, EXAMPLES, PHONE, send, serious_violations, wait_done

pytestmark = pytest.mark.browser
pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_a_phone_before_and_after_a_turn(open_at, locale):
    page = open_at(PHONE, locale)
    page.wait_for_timeout(500)
    assert serious_violations(page) == [], "empty page"
    send(page, "Zoom into the bottom right corner", EXAMPLES / "label.png")
    wait_done(page, "次模型调用" if locale.startswith("zh") else "model call")
    page.wait_for_timeout(500)
    assert serious_violations(page) == [], "after the turn"
    page.click("#to-trace")
    page.wait_for_timeout(300)
    assert serious_violations(page) == [], "at the trace"


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_an_error_reply_and_a_switched_language(open_at, page_model, locale):
    page_model["factory"] = lambda: ScriptedModel([ModelError("The model service is down.")])
    page = open_at(DESKTOP, locale)
    send(page, "hello")
    page.locator("#chat .reply-error").wait_for()
    page.wait_for_timeout(500)
    assert serious_violations(page) == [], "error reply"
    page.locator("#settings .label-wrap").first.click()
    other = "English" if locale.startswith("zh") else "中文"
    page.locator("#language").get_by_text(other, exact=True).click()
    page.wait_for_timeout(800)
    assert serious_violations(page) == [], "language switched"


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_an_upload_waiting_in_the_input_and_named_panels_and_images(open_at, locale):
    page = open_at(DESKTOP, locale)
    zh = locale.startswith("zh")
    page.locator("#input input[type=file]").set_input_files(str(EXAMPLES / "label.png"))
    page.locator("#input .thumbnail-item").first.wait_for()
    page.wait_for_timeout(300)
    assert serious_violations(page) == [], "an upload in the input"
    assert page.locator("h1").count() == 1
    chat, trace = ("对话", "追踪") if zh else ("Conversation", "Trace")
    assert page.locator("#chat [role=log]").get_attribute("aria-label") == chat
    assert page.locator("#trace [role=log]").get_attribute("aria-label") == trace
    # The answer is read out as it comes; the trace is there to be read, not recited.
    assert page.locator("#trace [role=log]").get_attribute("aria-live") == "off"
    page.fill("#input textarea", "Zoom into the bottom right corner")
    page.press("#input textarea", "Enter")
    wait_done(page, "次模型调用" if zh else "model call")
    page.wait_for_timeout(300)
    alts = page.locator("#chat img").evaluate_all("images => images.map((i) => i.alt)")
    assert alts == ["img_1", "img_2"], alts  # the upload, and the zoom the answer shows
