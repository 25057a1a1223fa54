"""Numbers the OCR split ("TOTAL 1 1.34", "10:00-1 6:00") are read as one value, and a receipt
with a total line is never said to have no total: pure functions over OCR text."""

from __future__ import annotations

import pytest

from agent.models.offline import answers, values


@pytest.mark.parametrize(
    ("line", "mended"),
    [
        ("TOTAL 1 1.34", "TOTAL 11.34"),
        ("Saturday 10:00-1 6:00", "Saturday 10:00-16:00"),
        ("合计 3 5.80", "合计 35.80"),
        ("Amount due: $ 1 2.50", "Amount due: $ 12.50"),
        ("TOTAL 11 .34", "TOTAL 11.34"),
        # A count and a price, a gate and a time: not one number.
        ("Milk 2 1.34", "Milk 2 1.34"),
        ("Gate 2 9:40", "Gate 2 9:40"),
        ("Mon-Fri 9:00-18:00", "Mon-Fri 9:00-18:00"),
    ],
)
def test_split_numbers_are_joined_where_joined_they_are_one(line, mended):
    assert values.mend(line) == mended


RECEIPT = ["CORNER SHOP", "Milk 1.29", "Coffee beans 10.05", "TOTAL 1 1.34", "THANK YOU"]
HOURS = ["OPENING HOURS", "Mon-Fri 9:00-18:00", "Saturday 10:00-1 6:00", "Sunday closed"]


def test_a_split_total_is_the_total():
    said = answers.picked("what's the total?", "img_1", RECEIPT, "en")
    assert said == "The total is 11.34 (img_1: “TOTAL 11.34”)."


def test_split_hours_are_the_hours():
    said = answers.picked("When does it open on Saturday?", "img_1", HOURS, "en")
    assert said == "Saturday 10:00-16:00 (img_1: “Saturday 10:00-16:00”)."


@pytest.mark.parametrize(
    ("lines", "question", "language", "line"),
    [
        (["SHOP", "TOTAL 1l.3A", "THANKS"], "what's the total?", "en", "TOTAL 1l.3A"),
        (["SHOP", "Amount due", "I2,5O"], "how much do I owe?", "en", "Amount due"),
        (["小店", "合计 三十五"], "合计多少？", "zh", "合计 三十五"),
    ],
)
def test_a_total_line_read_badly_is_still_the_answer(lines, question, language, line):
    said = answers.picked(question, "img_1", lines, language)
    assert line in said
    assert "does not show" not in said and "没有" not in said
