"""A question about an uploaded sign, to a model that takes text only, over real HTTP: the local
OpenAI-compatible server refuses image parts (a 400 naming them) or gives an empty reply when
images are present; the agent says once that the model cannot see images, goes on without
them, and the ReAct loop answers through the real text-reading tool. A vision model is sent the
images as before, and AGENT_VISION=off never sends them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent import Agent, Session
from agent.config import ModelChoice, Settings, make_model
from tests.conftest import collect
from tests.support.openai_fixtures import serve, stopping
from tests.support.text_only_server import (
    EMPTY,
    LLAMA_CPP_REFUSAL,
    image_parts,
    last_user_text,
    text_only,
)
from tools import default_tools
from tools.read_text import ReadText

__all__ = ["serve", "stopping"]  # fixtures

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"
READ = (
    "Thought: I cannot see the image itself, so I read its text.\n"
    "Action: read_text\n"
    'Action Input: {"image_id": "img_1"}'
)


def answer_from_observation(body: dict) -> str:
    """The model's second step: the sign as the tool read it."""
    observation = last_user_text(body)
    lines = observation.split("\n")[1:]  # under "Observation: Text found (...):"
    return "Thought: I have read the sign.\nAnswer: The sign says: " + " / ".join(lines)


@pytest.fixture(scope="module")
def tools():
    ReadText().warm_up()
    return default_tools()


def agent_for(server, tools, language="en", vision="auto") -> Agent:
    settings = Settings()
    choice = ModelChoice(source="openai", base_url=server.base_url, model="smollm2", vision=vision)
    model = make_model(settings, choice)
    return Agent(model, tools, settings=settings, language=language, tool_protocol="react")


@pytest.mark.parametrize("refusal", [LLAMA_CPP_REFUSAL, EMPTY], ids=["refused", "empty"])
async def test_a_text_only_model_answers_about_the_sign_through_the_tools(serve, tools, refusal):
    server = serve(text_only([READ, answer_from_observation], refusal))
    agent = agent_for(server, tools)

    events = await collect(agent, "What does the sign say?", [SIGN], Session())

    assert events[-1].type == "answer"
    assert "OPEN 9:00 - 18:00" in events[-1].text and "CITY LIBRARY" in events[-1].text
    notices = [e.message for e in events if e.type == "notice"]
    assert len(notices) == 1 and "'smollm2' cannot take images" in notices[0]
    assert [e.tool for e in events if e.type == "tool_call"] == ["read_text"]
    refused, *after = server.requests
    assert image_parts(refused) and not any(image_parts(body) for body in after)
    told = last_user_text(after[0])
    assert re.search(r"img_1 \(900x520 JPEG image\)", told), told
    assert "read_text reads its text" in told and "scan_code" in told
    await agent.model.aclose()


async def test_a_later_turn_sends_no_images_and_says_nothing_again(serve, tools):
    replies = [READ, answer_from_observation, READ, answer_from_observation]
    server = serve(text_only(replies))
    agent = agent_for(server, tools)
    session = Session()

    await collect(agent, "What does the sign say?", [SIGN], session)
    events = await collect(agent, "And this one, when does it open?", [SIGN], session)

    assert "OPEN 9:00 - 18:00" in events[-1].text
    assert [e for e in events if e.type == "notice"] == []
    assert len(server.requests) == 5  # one refusal in all, then two steps a turn
    assert agent.model.vision_state() == "text"
    await agent.model.aclose()


async def test_the_turn_says_it_in_chinese_for_a_chinese_question(serve, tools):
    server = serve(text_only([READ, answer_from_observation]))
    agent = agent_for(server, tools, language="zh")

    events = await collect(agent, "这个牌子上写了什么？", [SIGN], Session())

    notices = [e.message for e in events if e.type == "notice"]
    assert len(notices) == 1 and "无法接收图片" in notices[0]
    assert "OPEN 9:00 - 18:00" in events[-1].text
    await agent.model.aclose()


async def test_a_vision_model_is_unaffected(serve, tools):
    seen = "Thought: The sign is in front of me.\nAnswer: It says CITY LIBRARY."
    server = serve([seen])
    agent = agent_for(server, tools)

    events = await collect(agent, "What does the sign say?", [SIGN], Session())

    assert events[-1].type == "answer" and events[-1].text == "It says CITY LIBRARY."
    assert [e for e in events if e.type == "notice"] == []
    (request,) = server.requests
    user = request["messages"][-1]["content"]
    assert user[0]["text"] == "What does the sign say?\n[Images: img_1 (900x520)]"
    assert user[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert agent.model.vision_state() == "sees"
    await agent.model.aclose()


async def test_vision_off_never_sends_image_parts(serve, tools):
    server = serve([READ, answer_from_observation])
    agent = agent_for(server, tools, vision="off")

    events = await collect(agent, "What does the sign say?", [SIGN], Session())

    assert "OPEN 9:00 - 18:00" in events[-1].text
    assert [e for e in events if e.type == "notice"] == []
    assert len(server.requests) == 2
    assert not any(image_parts(body) for body in server.requests)
    await agent.model.aclose()


async def test_vision_on_ends_the_turn_with_the_refusal(serve, tools):
    server = serve(text_only([READ, answer_from_observation]))
    agent = agent_for(server, tools, vision="on")

    events = await collect(agent, "What does the sign say?", [SIGN], Session())

    assert events[-1].type == "error" and "does not take images (400)" in events[-1].message
    assert len(server.requests) == 1
    await agent.model.aclose()
