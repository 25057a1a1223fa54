"""Whole numbers spelled out ("five miles", "twenty km", "五英里", "十二公斤") written in
digits, for a tool that reads an amount from a request. Only what a person says in a word,
"twenty-five", or in Chinese up to 99: "a hundred and ten" stays words."""

from __future__ import annotations

import re

_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80}
ENGLISH = {word: n for n, word in enumerate(_ONES)} | _TENS | {"ninety": 90, "hundred": 100}
# A spelled number, for patterns that look for an amount.
ENGLISH_PATTERN = r"\b(?:" + "|".join(sorted(ENGLISH, key=len, reverse=True)) + r")\b"
_CHINESE_CHARS = "[零一二两三四五六七八九十]"
CHINESE_PATTERN = _CHINESE_CHARS + "{1,3}"

_DIGITS = dict(zip("零一二三四五六七八九", range(10), strict=True)) | {"两": 2}
# Before a word ("five miles", not "five."), with the ones after the tens ("twenty-five").
_UNITS_WORD = r"(?:[\s-]+(one|two|three|four|five|six|seven|eight|nine)\b)?"
_ENGLISH = re.compile(rf"({ENGLISH_PATTERN}){_UNITS_WORD}(?=\s+[A-Za-z])", re.IGNORECASE)


def _english(match: re.Match[str]) -> str:
    value = ENGLISH[match.group(1).lower()]
    if match.group(2) is None:
        return str(value)
    if value % 10 or not 20 <= value <= 90:
        return match.group(0)  # "one two": no number of these words
    return str(value + ENGLISH[match.group(2).lower()])


def chinese_value(said: str) -> int | None:
    """五 5, 十 10, 十二 12, 二十 20, 二十五 25; None for what is not one of these."""
    if "十" not in said:
        return _DIGITS.get(said) if len(said) == 1 else None
    tens, _, ones = said.partition("十")
    ten = _DIGITS.get(tens) if tens else 1
    one = _DIGITS.get(ones) if ones else 0
    if ten is None or one is None or len(tens) > 1 or len(ones) > 1:
        return None
    return ten * 10 + one


def with_digits(text: str, chinese_units: str) -> str:
    """`text` with each spelled number before a word (English) or before one of
    `chinese_units` (a pattern) written in digits."""
    text = _ENGLISH.sub(_english, text)

    def chinese(match: re.Match[str]) -> str:
        value = chinese_value(match.group(1))
        return match.group(0) if value is None else str(value)

    return re.sub(
        rf"(?<!\d)(?<!{_CHINESE_CHARS})({CHINESE_PATTERN})(?=\s*(?:{chinese_units}))",
        chinese,
        text,
    )
