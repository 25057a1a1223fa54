"""The offline model drives the real tools through the same loop, in both styles and languages."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect, types
from tools import default_tools

STYLES = ["react", "plugin-task"]


@pytest.fixture(scope="module")
def tools():
    return default_tools()


def agent_for(tools, style="react", language="en"):
    return Agent(OfflineModel(), tools, style=style, language=language)


@pytest.mark.parametrize("style", STYLES)
async def test_time_asks_for_the_place_then_answers(tools, style):
    session = Session()
    events = await collect(agent_for(tools, style), "What time is it?", session=session)
    assert events[-1].type == "ask_user" and events[-1].question == "Which city or time zone?"
    events = await collect(agent_for(tools, style), "Tokyo", session=session)
    call = next(e for e in events if e.type == "tool_call")
    assert call.tool == "world_clock" and call.arguments == {"place": "Tokyo"}
    assert events[-1].type == "answer" and "Tokyo" in events[-1].text


@pytest.mark.parametrize("style", STYLES)
async def test_chinese_time_question_asks_which_city(tools, style):
    session = Session()
    events = await collect(agent_for(tools, style, "zh"), "现在几点了？", session=session)
    assert events[-1].type == "ask_user" and "哪个城市" in events[-1].question
    events = await collect(agent_for(tools, style, "zh"), "北京", session=session)
    assert next(e for e in events if e.type == "tool_call").arguments == {"place": "北京"}
    assert events[-1].type == "answer"


@pytest.mark.parametrize("style", STYLES)
async def test_convert_asks_for_the_target_unit(tools, style):
    session = Session()
    events = await collect(agent_for(tools, style), "convert 5 miles", session=session)
    assert events[-1].type == "ask_user" and events[-1].missing == ["to_unit"]
    states = [e for e in events if e.type == "task_state"]
    assert states[-1].known == {"value": 5.0, "from_unit": "miles"}
    events = await collect(agent_for(tools, style), "km", session=session)
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments == {"value": 5.0, "from_unit": "miles", "to_unit": "km"}
    assert "8.04672 km" in events[-1].text


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("text", "language"), [("bye", "en"), ("再见", "zh")])
async def test_goodbye_ends(tools, style, text, language):
    events = await collect(agent_for(tools, style, language), text)
    assert events[-1].type == "answer" and events[-1].ended


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("text", ["help", "帮帮我"])
async def test_vague_request_asks_for_the_intent(tools, style, text):
    events = await collect(agent_for(tools, style), text)
    assert events[-1].type == "ask_user" and events[-1].tool is None


@pytest.mark.parametrize("style", STYLES)
async def test_no_tool_fits(tools, style):
    events = await collect(agent_for(tools, style), "Who painted the Mona Lisa?")
    assert events[-1].type == "answer" and events[-1].text.startswith("Sorry")


async def test_never_mind_drops_the_task(tools):
    session = Session()
    await collect(agent_for(tools), "convert 5 miles", session=session)
    events = await collect(agent_for(tools), "never mind", session=session)
    assert events[-1].type == "answer" and session.task is None


async def test_calculation(tools):
    events = await collect(agent_for(tools), "what is 12*(3+4)?")
    assert events[-1].text.endswith("= 84")
    assert types(events).index("tool_result") < types(events).index("answer_delta")


@pytest.fixture
def sign(tmp_path):
    image = Image.new("RGB", (900, 700), "white")
    draw = ImageDraw.Draw(image)
    draw.text((60, 80), "OPEN 9AM", fill="black", font=ImageFont.load_default(size=96))
    draw.text((560, 660), "fine print 42", fill="black", font=ImageFont.load_default(size=18))
    path = tmp_path / "sign.png"
    image.save(path)
    return path


async def test_reads_text_in_an_image(tools, sign):
    events = await collect(agent_for(tools), "What does the sign say?", [sign])
    call = next(e for e in events if e.type == "tool_call")
    assert call.tool == "read_text" and call.arguments["image_id"] == "img_1"
    assert "OPEN" in events[-1].text


async def test_zooms_then_reads_small_print(tools, sign):
    events = await collect(
        agent_for(tools), "Zoom into the bottom right and read the small print", [sign]
    )
    calls = [e for e in events if e.type == "tool_call"]
    assert [c.tool for c in calls] == ["zoom", "read_text"]
    assert calls[1].arguments["image_id"] == "img_2"
    assert "42" in events[-1].text


@pytest.mark.parametrize("style", STYLES)
async def test_an_answer_that_fills_a_different_field(tools, style):
    session = Session()
    await collect(agent_for(tools, style), "convert 5 miles", session=session)
    events = await collect(agent_for(tools, style), "actually make it 10 miles", session=session)
    assert events[-1].type == "ask_user" and events[-1].missing == ["to_unit"]
    assert [e for e in events if e.type == "task_state"][-1].known["value"] == 10
    events = await collect(agent_for(tools, style), "km", session=session)
    assert "16.09344 km" in events[-1].text


async def test_a_new_request_is_answered_and_the_pending_task_waits(tools):
    session = Session()
    await collect(agent_for(tools), "convert 5 miles", session=session)
    events = await collect(agent_for(tools), "what is 6*7", session=session)
    assert next(e for e in events if e.type == "tool_call").tool == "calculator"
    assert events[-1].text.endswith("42") and session.task is not None
    assert session.task.tool == "convert_units"


async def test_an_image_question_no_tool_fits_reads_what_is_written(tools, sign):
    events = await collect(agent_for(tools), "Is this a nice place to live?", [sign])
    assert [e.tool for e in events if e.type == "tool_call"] == ["read_text", "scan_code"]
    answer = events[-1].text
    # What is written does not answer it, so the text is not dumped.
    assert answer.startswith("I can't understand pictures by myself") and "OPEN" not in answer


def test_tools_warm_up_without_error(tools):
    import app

    app.warm_up(tools)
    from tools.read_text import engine_loaded

    assert engine_loaded()


async def test_a_short_latin_reply_keeps_a_chinese_conversation_chinese(tools):
    session = Session()
    events = await collect(agent_for(tools, language="en"), "现在几点了？", session=session)
    assert "哪个城市" in events[-1].question
    events = await collect(agent_for(tools, language="en"), "Tokyo", session=session)
    assert events[0].language == "zh" and events[-1].type == "answer"
