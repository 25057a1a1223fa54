"""Word spaces and letter-or-digit choices for OCR lines, without the OCR engine."""

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from tools.ocr.words import Gaps, prefer_letters, tidy, tidy_line

pytestmark = pytest.mark.real_ocr

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def line_crop(text: str, size: int = 40, spacing: str = " ") -> tuple[np.ndarray, list[float]]:
    """A grey crop of `text` drawn in one line, and the centre x of each of its characters."""
    try:
        font = ImageFont.truetype(DEJAVU, size)
    except OSError:
        font = ImageFont.load_default(size=size)
    width = round(font.getlength(text)) + 2 * size
    image = Image.new("L", (width, size * 2), 245)
    ImageDraw.Draw(image).text((size, size // 2), text, fill=40, font=font)
    centres = [
        size + (font.getlength(text[:i]) + font.getlength(text[: i + 1])) / 2
        for i in range(len(text))
    ]
    return np.asarray(image), centres


def spaced_again(text: str, size: int = 40) -> str:
    gray, centres = line_crop(text, size)
    kept = [i for i, ch in enumerate(text) if ch != " "]
    chars = [text[i] for i in kept]
    return tidy_line(chars, [0.99] * len(chars), [centres[i] for i in kept], Gaps(gray))


@pytest.mark.parametrize(
    "text",
    ["BEST BEFORE 2027-03-14", "STORE IN A DRY PLACE", "EXIT 42 NORTH", "Open daily 9 to 5"],
)
@pytest.mark.parametrize("size", [20, 40])
def test_word_gaps_bring_back_dropped_spaces(text, size):
    assert spaced_again(text, size) == text


@pytest.mark.parametrize("text", ["LOT4471-B", "1111", "2027-03-14", "illumination", "WAVY"])
def test_gaps_between_letters_are_not_words(text):
    assert spaced_again(text) == text


def test_chinese_characters_stay_together_however_wide_apart():
    gray, centres = line_crop("出 口 北 京 EXIT")  # DejaVu has no Chinese: boxes, wide apart
    chars = [ch for ch in "出口北京EXIT"]
    kept = [centres[i] for i, ch in enumerate("出 口 北 京 EXIT") if ch != " "]
    assert tidy_line(chars, [0.99] * len(chars), kept, Gaps(gray)) == "出口北京EXIT"


def test_blank_or_flat_crops_have_no_gaps():
    assert Gaps(np.full((30, 200), 255, np.uint8)).runs == []
    assert Gaps(np.zeros((2, 2), np.uint8)).runs == []


@pytest.mark.parametrize(
    ("read", "confidences", "shown"),
    [
        ("BEF0RE", [1, 1, 1, 0.63, 1, 1], "BEFORE"),
        ("BEF0RE", [1] * 6, "BEFORE"),  # a lone digit between letters
        ("HE1LO", [1] * 5, "HEILO"),
        ("g0od", [1] * 4, "good"),
        ("5TORE", [0.6, 1, 1, 1, 1], "STORE"),  # unsure, at the start of a word
        ("5TORE", [1] * 5, "5TORE"),  # sure of it, and not between letters
        ("2027-03-14", [0.5] * 10, "2027-03-14"),
        ("4471-B", [0.5] * 6, "4471-B"),
        ("PS5", [0.5] * 3, "PS5"),
        ("A1", [0.5] * 2, "A1"),
        ("B2B", [1] * 3, "B2B"),
        ("n0w", [1] * 3, "now"),
        ("A1B2", [0.5] * 4, "A1B2"),
    ],
)
def test_digits_inside_words_of_letters_become_letters(read, confidences, shown):
    assert prefer_letters(list(read), confidences) == shown


def test_each_word_is_judged_on_its_own():
    text = "BEST BEF0RE 2O27"
    assert prefer_letters(list(text), [1.0] * len(text)) == "BEST BEFORE 2O27"


def test_spaces_the_engine_read_stay_and_dropped_ones_come_back():
    gray, centres = line_crop("BEST BEFORE 2027-03-14", 40)
    text = "BEST BEFORE 2027-03-14"
    chars = [(ch, 0.99, centres[i]) for i, ch in enumerate(text) if ch != " "]
    assert tidy("BEST BEFORE2027-03-14", chars, Gaps(gray)) == text
    assert tidy("BEST BEFORE 2027-03-14", chars, Gaps(gray)) == text
    # Characters that are not the line's text (a box left out) leave the text as read.
    assert tidy("BEST BEFORE2027-03-14", chars[:-1], Gaps(gray)) == "BEST BEFORE2027-03-14"
