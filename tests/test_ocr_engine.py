"""The OCR engine: rapidocr 3 with the PP-OCRv6 models from its own wheel, never from the
network, reading what the old engine (rapidocr-onnxruntime 1.4.4, PP-OCRv4) misread: "B17" as
"Bl7", "LIN" as "LiN", and word spaces dropped ("BOARDINGPASS", "Smallprint:BESTBEFORE")."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.conftest import png_bytes as png
from tools.base import ToolContext
from tools.read_text import ReadText

pytestmark = pytest.mark.real_ocr

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture(scope="module")
def engine():
    ReadText().warm_up()


def drawn(text: str, size: int) -> Image.Image:
    try:
        font = ImageFont.truetype(DEJAVU, size)
    except OSError:
        font = ImageFont.load_default(size=size)
    image = Image.new("RGB", (round(font.getlength(text)) + 2 * size, 2 * size), "white")
    ImageDraw.Draw(image).text((size, size // 2), text, fill="black", font=font)
    return image


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("Gate B17 closes 09:40", 56),
        ("Passenger LIN/MEI", 56),
        ("BOARDING PASS", 56),
        ("Small print: BEST BEFORE 2027-03-14 keep refrigerated", 24),
    ],
)
def test_what_the_old_engine_misread_reads_as_written(store, engine, text, size):
    image_id = store.load(png(drawn(text, size))).id
    result = ReadText().run(ReadText.Args(image_id=image_id), ToolContext(store))
    assert [line["text"] for line in result.data["lines"]] == [text]


def test_a_line_turned_over_to_be_read_keeps_its_word_spaces(store, engine):
    # Its character boxes do not lie over its ink; spaced from them it read "Trains t o th e".
    upside_down = drawn("Trains to the airport", 44).rotate(180)
    image_id = store.load(png(upside_down)).id
    result = ReadText().run(ReadText.Args(image_id=image_id), ToolContext(store))
    assert [line["text"] for line in result.data["lines"]] == ["Trains to the airport"]


def test_the_models_come_from_the_wheel_and_nothing_is_downloaded(monkeypatch):
    import rapidocr

    from tools.ocr.engine import MODELS, Engine

    def no_network(*args, **kwargs):
        raise AssertionError("the OCR engine tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    wheel = Path(rapidocr.__file__).resolve().parent / "models"
    assert all((wheel / name).is_file() for _, _, name in MODELS.values())
    assert {version for version, _, _ in MODELS.values()} == {"PP-OCRv6", "PP-OCRv4"}

    found = Engine(text_score=0.5)(drawn("EXIT 42", 48))
    # Words far apart on a short strip may come as boxes of their own; the tool joins them.
    assert " ".join(text for _, text, _ in found) == "EXIT 42"
    corners, _, confidence = found[0]
    assert len(corners) == 4 and 0.5 <= confidence <= 1.0
    assert Engine()(Image.new("RGB", (120, 60), "white")) == []
