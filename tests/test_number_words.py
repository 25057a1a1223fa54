"""Spelled-out amounts written in digits for the converter: "five miles", "五英里"."""

from __future__ import annotations

import pytest

from tools.number_words import chinese_value, with_digits


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("convert five miles to km", "convert 5 miles to km"),
        ("Twenty km in miles", "20 km in miles"),
        ("twenty-five kg", "25 kg"),
        ("ninety nine miles", "99 miles"),
        ("five.", "five."),  # no word after it: nothing to measure
        ("one two three", "one two three"),
        ("someone walks", "someone walks"),
        ("五英里是多少公里", "5英里是多少公里"),
        ("十二公斤", "12公斤"),
        ("二十五 公里", "25 公里"),
        ("五个苹果", "五个苹果"),  # not before a unit
    ],
)
def test_spelled_amounts_before_a_unit_become_digits(text, expected):
    assert with_digits(text, "英里|公里|公斤") == expected


@pytest.mark.parametrize(
    ("said", "value"),
    [("五", 5), ("十", 10), ("十二", 12), ("二十", 20), ("两", 2), ("二十五", 25), ("十十", None)],
)
def test_chinese_numbers_up_to_99(said, value):
    assert chinese_value(said) == value
