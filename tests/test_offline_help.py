"""A newcomer with no key attaches a photo of a notice and asks about it: the offline agent
reads what is written (and any code) and answers with that, saying plainly it can only show
what is written. A refusal is left for questions with no image and no tool."""

from __future__ import annotations

from pathlib import Path

import pytest
import segno
from PIL import Image

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SIGN, RECEIPT = EXAMPLES / "sign.png", EXAMPLES / "receipt.png"
URL = "https://example.org/menu"
CANNOT = "I can't understand pictures by myself"


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture(scope="module")
def qr(tmp_path_factory):
    path = tmp_path_factory.mktemp("images") / "qr.png"
    segno.make(URL, error="m").save(path, scale=8)
    return path


@pytest.fixture(scope="module")
def blank(tmp_path_factory):
    path = tmp_path_factory.mktemp("images") / "blank.png"
    Image.new("RGB", (400, 300), "white").save(path)
    return path


async def ask(tools, text, *images, style="react", language="en", session=None):
    agent = Agent(OfflineModel(), tools, style=style, language=language)
    events = await collect(agent, text, list(images), session or Session())
    calls = [(e.tool, e.arguments.get("image_id")) for e in events if e.type == "tool_call"]
    return events[-1], calls


@pytest.mark.parametrize(
    "question",
    [
        "which gate is it?",
        "Which gate is it???",
        "what's this?",
        "is this a nice place to live?",
        "help",
        "",
    ],
)
async def test_a_question_about_an_image_reads_its_text(tools, question):
    answer, calls = await ask(tools, question, SIGN)
    assert calls == [("read_text", "img_1"), ("scan_code", "img_1")]
    assert answer.type == "answer" and answer.text.startswith(CANNOT)
    assert "so I can only show what is written" in answer.text
    assert "text I read in img_1" in answer.text and "LIBRARY" in answer.text


async def test_the_lines_that_may_answer_are_pointed_out(tools):
    answer, _ = await ask(tools, "when does it close?", SIGN)
    relevant = answer.text.split("This may answer your question:")[1]
    assert "18:00" in relevant and "LIBRARY" not in relevant


async def test_opening_hours_are_not_a_clock_question(tools):
    answer, calls = await ask(tools, "What time does it open?", SIGN)
    assert [c[0] for c in calls] == ["read_text", "scan_code"] and "9:00" in answer.text


async def test_a_receipt_question_points_at_the_total(tools):
    answer, _ = await ask(tools, "how much did I pay?", RECEIPT)
    assert "TOTAL" in answer.text.split("This may answer your question:")[1]


@pytest.mark.parametrize("question", ["几点关门？", "这是什么？", "这个牌子是哪里的？"])
async def test_chinese_questions_are_answered_in_chinese(tools, question):
    answer, calls = await ask(tools, question, SIGN, language="zh")
    assert [c[0] for c in calls] == ["read_text", "scan_code"]
    assert answer.text.startswith("我自己看不懂图片") and "LIBRARY" in answer.text


async def test_chinese_closing_time_points_at_the_hours(tools):
    answer, _ = await ask(tools, "几点关门？", SIGN, language="zh")
    assert "18:00" in answer.text.split("可能与您的问题有关的是：")[1]


async def test_what_does_this_say_reads_the_text(tools):
    for question, language, head in [
        ("what does this say?", "en", "The text in img_1 reads:"),
        ("这上面写的什么？", "zh", "img_1 中的文字："),
    ]:
        answer, calls = await ask(tools, question, SIGN, language=language)
        assert calls == [("read_text", "img_1")]
        assert answer.text.startswith(head) and "LIBRARY" in answer.text


async def test_a_code_without_text_is_read_out(tools, qr):
    answer, _ = await ask(tools, "what is this?", qr)
    assert answer.text == (
        f"{CANNOT}, and I found no text in img_1, but it has a QR code that says: {URL}"
    )


async def test_nothing_written_says_so_and_what_else_it_can_do(tools, blank):
    answer, _ = await ask(tools, "what is this?", blank)
    assert answer.text.startswith(f"{CANNOT}, and I found no text or code in img_1.")
    assert "connect a real model in Settings" in answer.text


async def test_a_follow_up_about_the_image_reads_it_again(tools):
    session = Session()
    await ask(tools, "what does this sign say?", SIGN, session=session)
    answer, calls = await ask(tools, "and when does it close?", session=session)
    assert calls[0] == ("read_text", "img_1") and "18:00" in answer.text


async def test_a_question_with_no_image_and_no_tool_is_refused(tools):
    session = Session()
    await ask(tools, "what does this sign say?", SIGN, session=session)
    answer, calls = await ask(tools, "Who will win the next World Cup?", session=session)
    assert calls == [] and answer.text.startswith("Sorry") and "cannot" in answer.text
    answer, calls = await ask(tools, "Who painted the Mona Lisa?")
    assert calls == [] and answer.text == "Sorry, I cannot answer your query."


async def test_plugin_task_style_helps_too(tools):
    answer, calls = await ask(tools, "which gate is it?", SIGN, style="plugin-task")
    assert calls == [("read_text", "img_1")]
    assert answer.text.startswith(CANNOT) and "LIBRARY" in answer.text
