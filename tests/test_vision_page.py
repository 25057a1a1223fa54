"""Images to the model on the page: a text-only model behind the local OpenAI-compatible server
is found out once per session and model, the status line says so in the page's language, the
Settings choice (Images to the model) is honoured, and a model switched away from and back to
is not tried with images again."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Settings
from tests.support.openai_fixtures import serve, stopping
from tests.support.text_only_server import image_parts, last_user_text, text_only
from tools import default_tools
from tools.read_text import ReadText
from ui.handlers import PageHandlers
from ui.layout import _VISION
from ui.page.state import default_prefs
from ui.page.values import status_text

__all__ = ["serve", "stopping"]  # fixtures

SIGN = str(Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png")
READ = 'Thought: I read it.\nAction: read_text\nAction Input: {"image_id": "img_1"}'


def answer(body: dict) -> str:
    return "Thought: done.\nAnswer: " + " / ".join(last_user_text(body).split("\n")[1:])


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def tools():
    ReadText().warm_up()
    return default_tools()


def page_for(server, tools, **settings) -> PageHandlers:
    env = Settings(
        OPENAI_BASE_URL=server.base_url,
        AGENT_MODEL="smollm2",
        AGENT_TOOL_PROTOCOL="react",
        **settings,
    )
    return PageHandlers(env=env, tools=tools)


async def ask(page, state, text="What does the sign say?"):
    updates = [u async for u in page.chat({"text": text, "files": [SIGN]}, state)]
    return updates[-1][2]  # the page's state


async def test_the_status_line_says_the_model_takes_text_only(serve, tools):
    server = serve(text_only([READ, answer, READ, answer]))
    page = page_for(server, tools)

    state = await ask(page, None)

    view = state.turns[-1].view
    assert "OPEN 9:00 - 18:00" in view.answer
    assert sum("cannot take images" in n for n in view.notices) == 1
    assert status_text(state).endswith("text only: tools look at images")
    page.set_pref("language")("zh", state)
    assert status_text(state).endswith("只接受文字：由工具查看图片")

    # Another model and back: the session still knows, and sends this one no images.
    page.set_pref("model")("other-model", state)
    page.set_pref("model")("smollm2", state)
    await ask(page, state, "When does it open?")
    assert len(server.requests) == 5
    assert [bool(image_parts(b)) for b in server.requests] == [True] + [False] * 4
    assert state.turns[-1].view.notices == []


async def test_the_settings_choice_never_sends_images(serve, tools):
    server = serve([READ, answer])
    page = page_for(server, tools)
    state, _ = page.set_pref("vision")("off", None)

    state = await ask(page, state)

    assert "OPEN 9:00 - 18:00" in state.turns[-1].view.answer
    assert not any(image_parts(b) for b in server.requests)
    assert status_text(state).endswith("images not sent")


async def test_a_vision_model_shows_it_takes_images(serve, tools):
    server = serve(["Thought: I see it.\nAnswer: CITY LIBRARY"])
    page = page_for(server, tools)

    state = await ask(page, None)

    assert state.turns[-1].view.answer == "CITY LIBRARY"
    assert len(server.requests) == 1 and image_parts(server.requests[0])
    assert status_text(state).endswith("takes images")


def test_the_setting_starts_from_agent_vision_and_is_offered_in_both_languages():
    assert default_prefs(Settings(AGENT_VISION="on")).vision == "on"
    assert [value for _, value in _VISION] == ["auto", "on", "off"]
