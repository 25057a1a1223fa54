"""People answer a question with a phrase: every extractor finds the value inside it, in both
languages, and the offline agent finishes the task from such a reply."""

from __future__ import annotations

import pytest

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools
from tools.calculator import Calculator
from tools.convert_units import ConvertUnits
from tools.phrases import reply_value
from tools.world_clock import WorldClock

CONVERT = ConvertUnits()
CLOCK = WorldClock()
CALC = Calculator()
HALF_KNOWN = {"value": 5.0, "from_unit": "miles"}


@pytest.mark.parametrize(
    ("text", "value", "direction"),
    [
        ("to kilometers", "kilometers", "to"),
        ("into km please", "km", "to"),
        ("Into KM, please!", "KM", "to"),
        ("make it km", "km", "to"),
        ("as km", "km", "to"),
        ("in kilometres", "kilometres", ""),
        ("from miles", "miles", "from"),
        ("in Tokyo please", "Tokyo", ""),
        ("ok, Tokyo time then", "Tokyo", ""),
        ("I meant kilometers", "kilometers", ""),
        ("换成公里", "公里", "to"),
        ("改成千米吧", "千米", "to"),
        ("换成 公里 吧！", "公里", "to"),
        ("用公里", "公里", ""),
        ("要公里的", "公里", ""),
        ("从英里", "英里", "from"),
        ("东京的", "东京", ""),
        ("“公里”。", "公里", ""),
        ("ＫＭ", "KM", ""),
        ("please", "please", ""),
        ("to", "to", ""),
    ],
)
def test_reply_value_peels_the_phrase(text, value, direction):
    reply = reply_value(text)
    assert (reply.value, reply.direction) == (value, direction)


def test_a_long_text_is_not_a_reply():
    assert reply_value("to " + "very " * 30 + "far").value == ""


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("km", "km"),
        ("kilometers", "kilometers"),
        ("to kilometers", "kilometers"),
        ("in kilometres", "kilometres"),
        ("into km please", "km"),
        ("Into KM, please!", "km"),
        ("TO KILOMETERS.", "kilometers"),
        ("make it km", "km"),
        ("as km", "km"),
        ("km please", "km"),
        ("how about km?", "km"),
        ("in kilometers please thanks", "kilometers"),
        ("换成公里", "公里"),
        ("用公里", "公里"),
        ("要公里的", "公里"),
        ("改成千米吧", "千米"),
        ("换成公里。", "公里"),
        ("公里！", "公里"),
    ],
)
def test_convert_to_unit_in_a_phrase(text, unit):
    assert CONVERT.extract(text, [], HALF_KNOWN) == {"to_unit": unit}


@pytest.mark.parametrize(
    ("text", "known", "expected"),
    [
        ("in miles", {"value": 5.0, "to_unit": "km"}, {"from_unit": "miles"}),
        ("from miles", {"value": 5.0}, {"from_unit": "miles"}),
        ("miles please", {"value": 5.0}, {"from_unit": "miles"}),
        ("从英里", {"value": 5.0}, {"from_unit": "英里"}),
        ("miles to km", {"value": 5.0}, {"from_unit": "miles", "to_unit": "km"}),
        ("from miles to km", {"value": 5.0}, {"from_unit": "miles", "to_unit": "km"}),
        ("把英里换成公里", {"value": 5.0}, {"from_unit": "英里", "to_unit": "公里"}),
        # "to" says which unit, even when the other one is still missing.
        ("to km", {"value": 5.0}, {"to_unit": "km"}),
        # A unit named with "from" corrects the one already known.
        ("from kilometers", HALF_KNOWN, {"from_unit": "kilometers"}),
    ],
)
def test_convert_from_unit_in_a_phrase(text, known, expected):
    assert CONVERT.extract(text, [], known) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [("5", 5.0), ("5 please", 5.0), ("just 5", 5.0), ("about 5.5, please", 5.5), ("５", 5.0)],
)
def test_convert_value_in_a_phrase(text, value):
    assert CONVERT.extract(text, [], {"from_unit": "miles", "to_unit": "km"}) == {"value": value}


@pytest.mark.parametrize("text", ["please", "to", "to bananas", "banana", "whatever you like"])
def test_a_phrase_without_a_unit_fills_nothing(text):
    assert CONVERT.extract(text, [], HALF_KNOWN) == {}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("in Tokyo please", "Tokyo"),
        ("TOKYO!", "TOKYO"),
        ("ＴＯＫＹＯ", "TOKYO"),
        ("Tokyo？", "Tokyo"),
        ("东京的", "东京"),
        ("东京时间", "东京"),
        ("「东京」", "东京"),
        ("换成纽约", "纽约"),
        ("用北京时间", "北京"),
        ("for London", "London"),
        ("in reykjavik please", "reykjavik"),
        ("I meant lima", "lima"),
        ("tokyo time then", "tokyo"),
        ("the one in Europe/Paris please", "Europe/Paris"),
        ("what about NYC?", "NYC"),
        ("in la please", "la"),
    ],
)
def test_world_clock_place_in_a_phrase(text, place):
    assert CLOCK.extract(text, [], {}) == {"place": place}


@pytest.mark.parametrize("text", ["in Narnia please", "somewhere nice", "please"])
def test_world_clock_unknown_place_in_a_phrase(text):
    assert CLOCK.extract(text, [], {}) == {}


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("make it 12*7 please", "12*7"),
        ("just 6*7.", "6*7"),
        ("what about 2 + 2?", "2 + 2"),
        ("２＋２＝？", "2+2"),
        ("it is (2+3)*4 thanks", "(2+3)*4"),
        ("用 3 乘以 4", "3 * 4"),
        ("换成 2^10 吧", "2**10"),
        ("算一下 3加4 吧", "3+4"),
        ("计算 100 除以 8。", "100 / 8"),
    ],
)
def test_calculator_expression_in_a_phrase(text, expression):
    assert CALC.extract(text, [], {}) == {"expression": expression}


# -- whole dialogues through the offline model ----------------------------------------------------


@pytest.fixture(scope="module")
def tools():
    return default_tools()


async def dialogue(tools, *turns, language="en", style="react"):
    session = Session()
    events = []
    for text in turns:
        agent = Agent(OfflineModel(), tools, language=language, style=style)
        events = await collect(agent, text, session=session)
    return events


@pytest.mark.parametrize(
    "reply",
    [
        "km",
        "kilometers",
        "to kilometers",
        "in kilometres",
        "into km please",
        "TO KM!",
        "make it km",
    ],
)
@pytest.mark.parametrize("style", ["react", "plugin-task"])
async def test_convert_finishes_from_a_phrase(tools, reply, style):
    events = await dialogue(tools, "convert 5 miles", reply, style=style)
    assert events[-1].type == "answer" and "8.04672 km" in events[-1].text


@pytest.mark.parametrize("reply", ["换成公里", "用公里吧", "要公里的", "改成千米。"])
async def test_chinese_convert_finishes_from_a_phrase(tools, reply):
    events = await dialogue(tools, "5英里等于多少", reply, language="zh")
    assert events[-1].type == "answer" and events[-1].text == "5 英里 = 8.04672 公里"


async def test_a_phrase_without_a_unit_asks_again(tools):
    events = await dialogue(tools, "convert 5 miles", "to bananas")
    assert events[-1].type == "ask_user" and events[-1].missing == ["to_unit"]


async def test_units_first_then_the_amount(tools):
    events = await dialogue(tools, "convert miles to km", "about 5 please")
    assert events[-1].type == "answer" and "8.04672 km" in events[-1].text


async def test_each_unit_answered_in_its_own_phrase(tools):
    events = await dialogue(tools, "convert 5", "from miles", "into km, please")
    assert events[-1].type == "answer" and "8.04672 km" in events[-1].text


@pytest.mark.parametrize("reply", ["in Tokyo please", "for Tokyo", "tokyo time then", "ＴＯＫＹＯ"])
@pytest.mark.parametrize("style", ["react", "plugin-task"])
async def test_time_finishes_from_a_phrase(tools, reply, style):
    events = await dialogue(tools, "what time is it?", reply, style=style)
    assert events[-1].type == "answer" and "Asia/Tokyo" in events[-1].text


async def test_chinese_time_finishes_from_a_phrase(tools):
    events = await dialogue(tools, "现在几点了？", "东京的", language="zh")
    assert events[-1].type == "answer" and "Asia/Tokyo" in events[-1].text


@pytest.mark.parametrize(
    ("first", "question", "language"),
    [
        ("what time is it?", "Who will win the next World Cup?", "en"),
        ("convert 5 miles", "what is the capital of France?", "en"),
        ("现在几点了？", "谁会赢得下一届世界杯？", "zh"),
    ],
)
async def test_a_new_question_is_not_taken_for_a_reply(tools, first, question, language):
    session = Session()
    agent = Agent(OfflineModel(), tools, language=language)
    await collect(agent, first, session=session)
    task = session.task
    events = await collect(agent, question, session=session)
    # Answered as the new question it is; the task waits, unchanged, for its answer.
    assert events[-1].type == "answer" and task is not None and session.task is not None
    assert session.task.known == task.known
    assert events[-1].text in ("Sorry, I cannot answer your query.", "抱歉，我无法回答您的问题。")


@pytest.mark.parametrize("reply", ["to bananas", "what?", "hmm"])
async def test_a_short_reply_that_fills_nothing_asks_again(tools, reply):
    events = await dialogue(tools, "convert 5 miles", reply)
    assert events[-1].type == "ask_user" and events[-1].missing == ["to_unit"]
