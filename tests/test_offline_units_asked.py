"""A quantity with no target unit makes the agent ask for the unit, in the conversation's
language, and the next reply finishes the conversion; nothing answers "5 = 5"."""

from __future__ import annotations

import pytest

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools

ASK = {"en": "Which unit should I convert it to?", "zh": "要换算成什么单位？"}


@pytest.fixture(scope="module")
def tools():
    return default_tools()


async def say(tools, text, session, language):
    agent = Agent(OfflineModel(), tools, language=language)
    return await collect(agent, text, session=session)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("把5英里换算一下", "zh"),
        ("帮我把 5 英里换算一下吧", "zh"),
        ("5英里", "zh"),
        ("5 英里？", "zh"),
        ("5英里等于多少", "zh"),
        ("算一下5英里", "zh"),
        ("convert 5 miles", "en"),
        ("calculate 5 miles", "en"),
        ("Convert 5 miles!!", "en"),
        ("5 miles", "en"),
        ("5 miles in", "en"),
        ("5 MILES TO", "en"),
        ("how many is 5 miles", "en"),
        ("how much is 5 miles?", "en"),
    ],
)
async def test_a_quantity_without_a_target_asks_for_the_unit(tools, text, language):
    session = Session()
    events = await say(tools, text, session, language)
    last = events[-1]
    assert last.type == "ask_user", getattr(last, "text", last)
    assert last.question == ASK[language]
    assert not any(e.type == "tool_call" and e.tool == "calculator" for e in events)
    reply = "公里" if language == "zh" else "km"
    events = await say(tools, reply, session, language)
    call = next(e for e in events if e.type == "tool_call")
    assert call.tool == "convert_units" and call.arguments["value"] == 5.0
    assert "8.04672" in events[-1].text and "5 = 5" not in events[-1].text


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("5英里等于多少公里", "zh", "5 英里 = 8.04672 公里"),
        ("把5英里换算成公里", "zh", "5 英里 = 8.04672 公里"),
        ("5 英里到底是多少公里", "zh", "5 英里 = 8.04672 公里"),
        ("5英里究竟等于多少公里？", "zh", "5 英里 = 8.04672 公里"),
        ("5 miles in km", "en", "5 mi = 8.04672 km"),
        ("how many km is 5 miles", "en", "5 mi = 8.04672 km"),
    ],
)
async def test_a_full_request_still_answers(tools, text, language, expected):
    events = await say(tools, text, Session(), language)
    assert events[-1].type == "answer" and expected in events[-1].text


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [("算一下 3加4 吧", "zh", "3+4 = 7"), ("计算 5*3", "zh", "5*3 = 15")],
)
async def test_arithmetic_in_chinese_is_still_the_calculator(tools, text, language, expected):
    events = await say(tools, text, Session(), language)
    assert events[-1].type == "answer" and expected in events[-1].text


@pytest.mark.parametrize(
    "text", ["5", "5 apples", "我有5个苹果", "5 miles away", "算一下5", "calculate 5"]
)
async def test_a_number_without_a_unit_request_never_says_five_is_five(tools, text):
    events = await say(tools, text, Session(), "en")
    assert "5 = 5" not in getattr(events[-1], "text", "")


@pytest.mark.parametrize(
    ("text", "language", "question"),
    [
        ("calculate 5", "en", "What should I calculate (for example 12*(3+4) or 15% of 80)?"),
        ("算一下5", "zh", "要计算什么（例如 12*(3+4) 或 80 的 15%）？"),
    ],
)
async def test_a_number_alone_to_calculate_asks_what_to_calculate(tools, text, language, question):
    events = await say(tools, text, Session(), language)
    assert events[-1].type == "ask_user" and events[-1].question == question


EXAMPLES = __import__("pathlib").Path(__file__).resolve().parent.parent / "assets" / "examples"


@pytest.mark.parametrize(
    ("request_text", "language", "images", "read"),
    [
        ("read all the images", "en", 3, "The text in img_3 reads"),
        ("read all the images", "en", 0, "CITY LIBRARY"),  # sent with the first message
        ("what does it say?", "en", 1, "CITY LIBRARY"),
        ("Read every picture please", "en", 2, "The text in img_2 reads"),
        ("读一下所有图片", "zh", 3, "img_3 中的文字"),
    ],
)
async def test_a_request_about_images_while_the_unit_is_asked_runs_instead(
    tools, request_text, language, images, read
):
    files = [EXAMPLES / name for name in ("sign.png", "receipt.png", "label.png")]
    session = Session()
    first = "convert 5 miles" if language == "en" else "把5英里换算一下"
    agent = Agent(OfflineModel(), tools, language=language)
    # With `images` 0 the images came with the first message, before the unit was asked.
    asked = await collect(agent, first, files[:1] if not images else [], session=session)
    assert asked[-1].type == "ask_user" and asked[-1].question == ASK[language]
    events = await collect(agent, request_text, files[:images], session=session)
    assert events[-1].type == "answer" and read in events[-1].text
    assert "read_text" in [e.tool for e in events if e.type == "tool_call"]


@pytest.mark.parametrize(
    ("first", "reply", "language", "said"),
    [
        ("convert 5 miles", "blargs", "en", "I do not know a unit called “blargs”."),
        ("换算 5 英里", "blargs", "zh", "我不认识“blargs”这个单位。"),
    ],
)
async def test_a_reply_that_names_no_unit_is_told_so_and_asked_again(
    tools, first, reply, language, said
):
    session = Session()
    await say(tools, first, session, language)
    events = await say(tools, reply, session, language)
    assert events[-1].type == "ask_user"
    assert events[-1].question == said + ("" if language == "zh" else " ") + ASK[language]
    answer = await say(tools, "km" if language == "en" else "公里", session, language)
    assert "8.04672" in answer[-1].text


@pytest.mark.parametrize(
    ("text", "language", "said"),
    [
        ("convert 5 miles to blargs", "en", "I do not know a unit called “blargs”."),
        ("Convert 5 miles into blargs?", "en", "I do not know a unit called “blargs”."),
    ],
)
async def test_a_request_to_a_unit_no_one_knows_names_it(tools, text, language, said):
    events = await say(tools, text, Session(), language)
    assert events[-1].type == "ask_user"
    assert events[-1].question == f"{said} {ASK[language]}"


@pytest.mark.parametrize(
    ("text", "language", "said"),
    [
        (
            "convert 5 blargs to km",
            "en",
            "I do not know a unit called “blargs”. Which unit is it in?",
        ),
        ("convert 3 cats to km", "en", "I do not know a unit called “cats”. Which unit is it in?"),
        ("换算 5 blargs 到公里", "zh", "我不认识“blargs”这个单位。原来的单位是什么？"),
    ],
)
async def test_a_request_from_a_unit_no_one_knows_names_it(tools, text, language, said):
    events = await say(tools, text, Session(), language)
    assert events[-1].type == "ask_user" and events[-1].question == said


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("convert five miles to km", "en", "5 mi = 8.04672 km"),
        ("Twenty-five miles in km?", "en", "25 mi = 40.2336 km"),
        ("五英里是多少公里", "zh", "5 英里 = 8.04672 公里"),
        ("十二公斤等于多少磅", "zh", "12 公斤 = 26.45547 磅"),
    ],
)
async def test_an_amount_spelled_out_is_converted(tools, text, language, expected):
    events = await say(tools, text, Session(), language)
    assert events[-1].type == "answer" and expected in events[-1].text
