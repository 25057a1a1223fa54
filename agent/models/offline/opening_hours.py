"""Opening hours on a sign: the days each line is about (English and Chinese, ranges and
groups such as weekdays) and the hours for the day a question names, or every line of them."""

from __future__ import annotations

import re

from .values import TIME, Pick

_TO = r"\s?(?:-|–|—|~|～|－|to|until|till|至|到)\s?"
_RANGE = re.compile(rf"({TIME}){_TO}({TIME})", re.IGNORECASE)
_CLOSE_ONLY = re.compile(r"\bclos(?:e|es|ing)\b|关门|关闭|打烊|下班", re.I)
OPEN_TOO = re.compile(r"\bopen|\bhours?\b|营业时间|开门|开放|几点到几点", re.I)
_CLOSED = re.compile(r"\bclosed\b|休息|闭馆|不营业|休业|停业|关闭|店休", re.I)

# English days by their first three letters, Chinese by their number; Monday is 0.
_EN_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ZH_DAYS = "一二三四五六日"
_EN_DAY = (
    r"\b(mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|"
    r"sat(?:urday)?|sun(?:day)?)s?\b\.?"
)
_ZH_DAY = r"(?:周|星期|礼拜)([一二三四五六日天])"
_EN_SPAN = re.compile(rf"{_EN_DAY}\s?(?:-|–|—|~|to|through|thru|till|until)\s?{_EN_DAY}", re.I)
_ZH_SPAN = re.compile(
    rf"{_ZH_DAY}\s?(?:至|到|-|–|—|~|～|－)\s?(?:周|星期|礼拜)?([一二三四五六日天])"
)
_EN_ONE = re.compile(_EN_DAY, re.IGNORECASE)
_ZH_ONE = re.compile(_ZH_DAY)
_GROUPS = (
    (re.compile(r"\bweekdays?\b|\bworking days\b|工作日", re.I), range(5)),
    (re.compile(r"\bweekends?\b|周末|双休日", re.I), range(5, 7)),
    (re.compile(r"\bdaily\b|\bevery ?day\b|\bseven days\b|每天|每日|天天", re.I), range(7)),
)


def asked_day(question: str) -> int | None:
    """The one day of the week a question names, Monday 0."""
    if match := _ZH_ONE.search(question):
        return _ZH_DAYS.index(match.group(1).replace("天", "日"))
    if match := _EN_ONE.search(question):
        return _EN_DAYS.index(match.group(1)[:3].lower())
    return None


def days_of(line: str) -> set[int] | None:
    """The days of the week a line is about, or None when it names none."""
    days: set[int] = set()
    for pattern, numbers in _GROUPS:
        if pattern.search(line):
            days.update(numbers)
    rest = line
    for span, read in ((_EN_SPAN, _EN_DAYS), (_ZH_SPAN, _ZH_DAYS)):
        for match in span.finditer(rest):
            first, last = (_day(read, g) for g in match.groups())
            days.update((first + n) % 7 for n in range((last - first) % 7 + 1))
        rest = span.sub(" ", rest)
    days.update(_EN_DAYS.index(m.group(1)[:3].lower()) for m in _EN_ONE.finditer(rest))
    days.update(_day(_ZH_DAYS, m.group(1)) for m in _ZH_ONE.finditer(rest))
    return days or None


def _day(names: tuple[str, ...] | str, word: str) -> int:
    if isinstance(names, str):
        return names.index(word.replace("天", "日"))
    return names.index(word[:3].lower())


def hours(question: str, lines: list[str]) -> Pick:
    """The opening hours the question asks for: those of the day it names (a line for that day,
    else the line with no day), or every line of hours; only the closing time when that is all
    it asks."""
    day = asked_day(question)
    rows = [(line, days_of(line)) for line in lines if _RANGE.search(line) or _CLOSED.search(line)]
    rows = [(line, days) for line, days in rows if _RANGE.search(line) or days is not None]
    if day is not None:
        picked = next((line for line, days in rows if days and day in days), None)
        picked = picked or next((ln for ln, days in rows if days is None and _RANGE.search(ln)), "")
        if not picked:
            return Pick("hours", day=day)
        span = _RANGE.search(picked)
        if span is None:
            return Pick("hours", "closed", picked, day, "closed")
        return _when(question, span, picked, day)
    timed = [line for line, _ in rows if _RANGE.search(line)]
    if len(timed) == 1 and (span := _RANGE.search(timed[0])):
        # The days it is closed go with the one line of hours: they are part of the answer.
        closed = [line for line, days in rows if days and not _RANGE.search(line)]
        return _when(question, span, "\n".join([timed[0], *closed]), None)
    every = [line for line, _ in rows]
    return Pick("hours", "; ".join(every), "\n".join(every), how="list") if every else Pick("hours")


def _when(question: str, span: re.Match[str], line: str, day: int | None) -> Pick:
    if _CLOSE_ONLY.search(question) and not OPEN_TOO.search(question):
        return Pick("hours", span.group(2), line, day, "closes")
    return Pick("hours", f"{span.group(1)}-{span.group(2)}", line, day, "range")
