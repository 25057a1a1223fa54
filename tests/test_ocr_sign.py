"""The shipped sign reads as a person reads it: lines in reading order, words and the dash of
"9:00 - 18:00" spaced, no letter made of a neighbouring box's ink ("OPENS")."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ocr_words import spaced_again

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools
from tools.ocr_words import trim_overlaps
from tools.read_text import ReadText

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"
SIGN_LINES = ["CITY LIBRARY", "OPEN 9:00 - 18:00", "CLOSED ON SUNDAYS"]


@pytest.fixture(scope="module")
def tools():
    ReadText().warm_up()
    return default_tools()


async def test_the_example_sign_reads_line_by_line(store, tools):
    from tools.base import ToolContext

    image = store.load(SIGN).id
    result = ReadText().run(ReadText.Args(image_id=image), ToolContext(store))
    assert [line["text"] for line in result.data["lines"]] == SIGN_LINES
    assert result.text.splitlines()[1:] == SIGN_LINES


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("What does the sign say?", "en"),
        ("when does it open??", "en"),
        ("这个牌子上写了什么？", "zh"),
        ("几点开门", "zh"),
    ],
)
async def test_the_agent_answers_with_the_sign_as_written(tools, question, language):
    agent = Agent(OfflineModel(), tools, language=language)
    events = await collect(agent, question, [SIGN], Session())
    assert "OPEN 9:00 - 18:00" in events[-1].text
    assert "OPENS" not in events[-1].text and "OPEN S" not in events[-1].text


@pytest.mark.parametrize("size", [20, 40, 64])
def test_a_spaced_dash_between_times_keeps_its_spaces(size):
    assert spaced_again("OPEN 9:00 - 18:00", size) == "OPEN 9:00 - 18:00"


@pytest.mark.parametrize("text", ["9:00-18:00", "2027-03-14", "LOT4471-B", "e-mail", "A-1"])
@pytest.mark.parametrize("size", [20, 40])
def test_a_tight_dash_stays_tight(text, size):
    assert spaced_again(text, size) == text


def box(x0, x1, y0=0, y1=40):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def test_a_letter_read_from_the_next_box_is_dropped():
    # The left box reaches into the right one; its last "letter" sits over the right's ink.
    left = (box(128, 361), "OPENS", 0.96, [box(c - 8, c + 8) for c in (150, 198, 248, 292, 348)],
            list("OPENS"), [1.0, 0.99, 0.99, 1.0, 0.86])  # fmt: skip
    right = (box(337, 773), "9:00", 0.95, [box(c - 8, c + 8) for c in (367, 402, 437, 480)],
             list("9:00"), [1.0] * 4)  # fmt: skip
    trimmed = trim_overlaps([left, right])
    assert trimmed[0][1] == "OPEN" and trimmed[0][4] == list("OPEN") and len(trimmed[0][3]) == 4
    assert trimmed[1][1] == "9:00"


def test_boxes_apart_or_on_other_lines_are_left_alone():
    a = (box(0, 100), "CITY", 0.9, [box(c - 5, c + 5) for c in (10, 35, 60, 90)], list("CITY"),
         [1.0] * 4)  # fmt: skip
    b = (box(120, 300), "LIBRARY", 0.9, [], [], [])
    lower = (box(50, 300, 60, 100), "SUNDAYS", 0.9, [], [], [])
    plain = (box(320, 400), "NO DETAIL", 0.9)
    assert trim_overlaps([a, b, lower, plain]) == [a, b, lower, plain]
