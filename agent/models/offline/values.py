"""A value printed on an image, as the offline model picks it: what a time and an amount look
like, the `Pick` that holds one with the lines it came from, and the numbers the OCR split
joined again (`mend`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

TIME = r"\d{1,2}\s?[:：.]\s?\d{2}(?:\s?[ap]\.?m\.?)?|\d{1,2}\s?[ap]\.?m\.?"
MONEY = r"[$€£¥￥]?\s?\d{1,6}(?:,\d{3})*[.,]\d{2}(?!\d)|[$€£¥￥]\s?\d+"


@dataclass(frozen=True)
class Pick:
    """One thing asked and what the text says about it (`value` empty when it says nothing),
    with the lines it was read from, one a line."""

    kind: str
    value: str = ""
    line: str = ""
    day: int | None = None
    # For hours: "range" (9:00-18:00), "closes" (18:00), "closed" or "list" (every line).
    how: str = ""


# The OCR splits a number where its digits stand apart ("TOTAL 1 1.34", "10:00-1 6:00"): a
# digit and a time or an amount after one space are one value when joined they are one. An
# amount only after a currency sign or a total's label: elsewhere "2 1.34" is a count and a price.
_SPLIT_TIME = re.compile(r"(?<![\d.,:：])(\d) (\d[:：]\d{2})(?!\d)")
_SPLIT_MONEY = re.compile(
    r"((?:[$€£¥￥]|(?<!sub)(?<!sub )\btotal\b(?:\s+due)?|amount\s+due|balance\s+due|合计|总计"
    r"|实付|应付|总额|实收|总金额)\s?[:：]?\s?\d{1,3}) (\d{1,3}[.,]\d{2})(?!\d)",
    re.IGNORECASE,
)
_SPLIT_CENTS = re.compile(r"(\d) ([.,]\d{2})(?!\d)")


def mend(line: str) -> str:
    """The line with the numbers the OCR split joined again (see `_SPLIT_TIME`)."""
    line = _SPLIT_TIME.sub(
        lambda m: m.group(1) + m.group(2) if int(m.group(1) + m.group(2)[0]) < 24 else m.group(0),
        line,
    )
    line = _SPLIT_MONEY.sub(r"\1\2", line)
    return _SPLIT_CENTS.sub(r"\1\2", line)
