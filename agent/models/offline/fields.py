"""The values printed after their labels on an image (a gate, a seat, a flight, a receipt's
total), each with the words that ask for it, its label and its value's shape, in English and
Chinese side by side; `field` reads one from the lines the OCR read."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from .values import MONEY, TIME, Pick

_DATE = (
    r"\d{4}\s?[-/.年]\s?\d{1,2}\s?[-/.月]\s?\d{1,2}日?|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}"
    r"|\d{1,2}\s[A-Za-z]{3,9}\.?\s\d{4}|[A-Za-z]{3,9}\.?\s\d{1,2},?\s\d{4}"
)


@dataclass(frozen=True)
class Field:
    """A value printed after its label: what asks for it, the label, the value's shape."""

    asked: str
    label: str
    value: str


# Checked in this order; the words of one question may ask for several ("which gate, and when
# does it close?").
FIELDS: dict[str, Field] = {
    "gate": Field(
        r"\b(?:which|what) gate\b|\bgate\b(?!\s*(?:clos|open))|登机口(?![^？?，,。]{0,4}关)|几号门",
        r"\bgate\b(?!\s*clos)(?:\s*(?:no\.?|number))?|登机口(?!关|截止)",
        r"[A-Z]{0,2}\s?\d{1,3}[A-Z]?(?![:.：]\d)\b|[A-Z]\b",
    ),
    "closes": Field(
        r"\bclos(?:e|es|ing)\b|关闭|截止|关门|停止登机|几点关|什么时候关",
        r"\bgate\s+clos(?:es|ing)\b|\bclos(?:es|ing)(?:\s+time)?\b|登机口关闭|截止登机|停止登机"
        r"|关闭时间",
        TIME,
    ),
    "boarding": Field(
        r"\bboard(?:ing)?\b(?!\s*pass)|登机时间|几点.{0,3}登机|什么时候.{0,3}登机|开始登机",
        r"\bboarding(?:\s+time)?\b(?!\s*pass)|登机时间",
        TIME,
    ),
    "departure": Field(
        r"\bdepart|\bleave|\btake off\b|起飞|出发|发车",
        r"\bdep(?:arture|arts|\.)?(?:\s+time)?\b|起飞时间|起飞|出发时间|出发|开车时间",
        TIME,
    ),
    "seat": Field(r"\bseat\b|座位|座号", r"\bseat\b|座位号?|座号", r"\d{1,3}\s?[A-K]\b"),
    "platform": Field(
        r"\bplatform\b|\btrack\b|站台|月台", r"\bplatform\b|\btrack\b|站台|月台", r"\d{1,2}[A-Z]?\b"
    ),
    "terminal": Field(r"\bterminal\b|航站楼", r"\bterminal\b|航站楼", r"T?\d\b|[A-Z]\b"),
    "flight": Field(
        r"\b(?:which|what) flight\b|\bflight (?:number|no)|航班号|哪个航班|哪趟",
        r"\bflight(?:\s+no\.?)?\b|航班号?",
        r"[A-Z0-9]{2}\s?\d{1,4}[A-Z]?\b",
    ),
    "expiry": Field(
        r"\bexpir|best before|use by|\bgo(?:es)? off\b|保质期|过期|到期|有效期",
        r"best\s+before(?:\s+end)?|best\s+by|use\s+by|\bexp(?:iry|ires|\.)?(?:\s+date)?\b|\bbbe\b"
        r"|保质期至?|有效期至?|到期日?",
        _DATE,
    ),
    "total": Field(
        r"how much|\btotal\b|\bpa(?:y|id)\b|\bcost\b|\bowe\b|\bamount\b|\bspen[dt]\b"
        r"|多少钱|总共|合计|一共|总价|总额|金额|付了|花了|实付",
        r"(?<!sub)(?<!sub )\btotal\b(?:\s+due)?|amount\s+due|balance\s+due|\bto\s+pay\b|\bamount\b"
        r"|合计|总计|实付|应付|总额|实收|总金额",
        MONEY,
    ),
}


def field(kind: str, lines: list[str]) -> Pick:
    """The value printed after the label of `kind`: on the same line ("GATE B17"), or under
    it in a row of labels ("FLIGHT GATE SEAT" over "CA1234 B17 23A"). A receipt's total is
    its last total line."""
    spec = FIELDS[kind]
    after = re.compile(rf"(?:{spec.label})\s?[:：#]?\s?({spec.value})", re.IGNORECASE)
    found = [Pick(kind, m.group(1).strip(), line) for line in lines if (m := after.search(line))]
    if found:
        return found[-1] if kind == "total" else found[0]
    for header, values in itertools.pairwise(lines):
        labels = _labels(header)
        cells = values.split()
        if kind in labels and len(labels) == len(cells):
            cell = cells[labels.index(kind)]
            if re.fullmatch(spec.value, cell, re.IGNORECASE):
                return Pick(kind, cell, f"{header}\n{values}")
    if kind == "total":
        # "TOTAL" on its own line, the amount on the next.
        for line, below in itertools.pairwise(lines):
            money = re.fullmatch(rf"\s*({MONEY})\s*", below)
            if re.search(spec.label, line, re.IGNORECASE) and money:
                return Pick(kind, money.group(1), f"{line}\n{below}")
        return _total_line(lines)
    return Pick(kind)


def _total_line(lines: list[str]) -> Pick:
    """A total read too badly to be an amount ("TOTAL 1l.34") is still the total: what follows
    its label (or the line under it), never "there is no total"."""
    label = re.compile(rf"(?:{FIELDS['total'].label})\s?[:：]?", re.IGNORECASE)
    for n in reversed(range(len(lines))):
        if not (found := label.search(lines[n])):
            continue
        rest = lines[n][found.end() :].strip(" :：")
        below = lines[n + 1].strip() if n + 1 < len(lines) else ""
        if rest:
            return Pick("total", rest, lines[n])
        if re.search(r"\d", below):
            return Pick("total", below, f"{lines[n]}\n{below}")
    return Pick("total")


_ANY_LABEL = re.compile(
    "|".join(f"(?P<{kind}>{spec.label})" for kind, spec in FIELDS.items()), re.IGNORECASE
)


def _labels(line: str) -> list[str]:
    """The kinds whose labels make up the whole line, in order; [] when anything else is in it."""
    labels = [m.lastgroup or "" for m in _ANY_LABEL.finditer(line)]
    return labels if labels and not _ANY_LABEL.sub("", line).strip(" :：|/") else []
