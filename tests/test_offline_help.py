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


@pytest.mark.parametrize("question", ["what's this?", "help", ""])
async def test_a_question_about_an_image_reads_its_text(tools, question):
    answer, calls = await ask(tools, question, SIGN)
    assert calls == [("read_text", "img_1"), ("scan_code", "img_1")]
    assert answer.type == "answer" and answer.text.startswith(CANNOT)
    assert "so I can only show what is written" in answer.text
    assert "text I read in img_1" in answer.text and "LIBRARY" in answer.text


@pytest.mark.parametrize("question", ["which gate is it?", "Which gate is it???"])
async def test_a_question_the_text_does_not_answer_gets_a_short_note(tools, question):
    answer, calls = await ask(tools, question, SIGN)
    assert calls == [("read_text", "img_1"), ("scan_code", "img_1")]
    assert answer.text.startswith("I read the text in img_1, but it does not show a gate.")
    assert "LIBRARY" not in answer.text


async def test_a_question_about_what_a_picture_shows_says_the_text_cannot_tell(tools):
    answer, _ = await ask(tools, "is this a nice place to live?", SIGN)
    assert answer.text.startswith(CANNOT) and "nothing written in img_1 answers that" in answer.text
    assert "LIBRARY" not in answer.text


async def test_the_closing_time_is_answered_with_its_line(tools):
    answer, _ = await ask(tools, "when does it close?", SIGN)
    assert answer.text.startswith("Closes 18:00 (img_1: “OPEN 9:00 - 18:00”")
    assert "LIBRARY" not in answer.text


async def test_opening_hours_are_not_a_clock_question(tools):
    answer, calls = await ask(tools, "What time does it open?", SIGN)
    assert [c[0] for c in calls] == ["read_text", "scan_code"]
    assert answer.text.startswith("Open 9:00-18:00 (img_1:")


async def test_a_receipt_question_answers_with_the_total(tools):
    answer, _ = await ask(tools, "how much did I pay?", RECEIPT)
    assert answer.text == "The total is 10.50 (img_1: “TOTAL 10.50”)."


@pytest.mark.parametrize("question", ["这是什么？", "上面写了什么字"])
async def test_chinese_questions_are_answered_in_chinese(tools, question):
    answer, calls = await ask(tools, question, SIGN, language="zh")
    assert calls[0][0] == "read_text"
    assert "LIBRARY" in answer.text and "img_1" in answer.text


async def test_chinese_closing_time_is_answered_with_its_line(tools):
    answer, _ = await ask(tools, "几点关门？", SIGN, language="zh")
    assert answer.text.startswith("18:00 关门（img_1：“OPEN 9:00 - 18:00”")
    answer, _ = await ask(tools, "这个牌子是哪里的？", SIGN, language="zh")
    assert answer.text.startswith("我自己看不懂图片") and "LIBRARY" not in answer.text


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
    assert calls[0] == ("read_text", "img_1") and answer.text.startswith("Closes 18:00")


async def test_a_question_with_no_image_and_no_tool_is_refused(tools):
    session = Session()
    await ask(tools, "what does this sign say?", SIGN, session=session)
    answer, calls = await ask(tools, "Who will win the next World Cup?", session=session)
    assert calls == [] and answer.text.startswith("Sorry") and "cannot" in answer.text
    answer, calls = await ask(tools, "Who painted the Mona Lisa?")
    assert calls == [] and answer.text == "Sorry, I cannot answer your query."


async def test_plugin_task_style_helps_too(tools):
    answer, calls = await ask(tools, "what's this?", SIGN, style="plugin-task")
    assert calls == [("read_text", "img_1")]
    assert answer.text.startswith(CANNOT) and "LIBRARY" in answer.text
    answer, calls = await ask(tools, "when does it close?", SIGN, style="plugin-task")
    assert answer.text.startswith("Closes 18:00 (img_1:")
