"""The shipped sign reads as a person reads it: lines in reading order, words and the dash of
"9:00 - 18:00" spaced, no letter made of a neighbouring box's ink ("OPENS")."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tests.conftest import png_bytes as png
from tools import default_tools
from tools.base import ToolContext
from tools.read_text import ReadText

pytestmark = pytest.mark.real_ocr

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"
SIGN_LINES = ["CITY LIBRARY", "OPEN 9:00 - 18:00", "CLOSED ON SUNDAYS"]


@pytest.fixture(scope="module")
def tools():
    ReadText().warm_up()
    return default_tools()


async def test_the_example_sign_reads_line_by_line(store, tools):
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


DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def read_drawn(store, text: str, size: int) -> list[str]:
    """`text` drawn in one line at `size` pixels, read by the real engine through the tool."""
    try:
        font = ImageFont.truetype(DEJAVU, size)
    except OSError:
        font = ImageFont.load_default(size=size)
    image = Image.new("RGB", (round(font.getlength(text)) + 2 * size, size * 3), (245, 245, 245))
    ImageDraw.Draw(image).text((size, size), text, fill=(40, 40, 40), font=font)
    result = ReadText().run(ReadText.Args(image_id=store.load(png(image)).id), ToolContext(store))
    return [line["text"] for line in result.data["lines"]]


@pytest.mark.parametrize("size", [20, 40, 64])
def test_a_spaced_dash_between_times_keeps_its_spaces(store, tools, size):
    assert read_drawn(store, "OPEN 9:00 - 18:00", size) == ["OPEN 9:00 - 18:00"]


@pytest.mark.parametrize("text", ["9:00-18:00", "2027-03-14", "LOT4471-B", "e-mail"])
def test_a_tight_dash_stays_tight(store, tools, text):
    assert read_drawn(store, text, 40) == [text]
