"""The line of an image's text that answers the question asked, and the value in it.

Pure functions over the question and the lines the OCR read: the total of a receipt, the hours
on a given day, a gate and when it closes. Each pattern has its English and its Chinese words
side by side. A question that asks for none of these finds the lines that share its words; a
question that asks what the image says gets none of this (the whole text is its answer).
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass

_TIME = r"\d{1,2}\s?[:：.]\s?\d{2}(?:\s?[ap]\.?m\.?)?|\d{1,2}\s?[ap]\.?m\.?"
_TO = r"\s?(?:-|–|—|~|～|－|to|until|till|至|到)\s?"
_RANGE = re.compile(rf"({_TIME}){_TO}({_TIME})", re.IGNORECASE)
_MONEY = r"[$€£¥￥]?\s?\d{1,6}(?:,\d{3})*[.,]\d{2}(?!\d)|[$€£¥￥]\s?\d+"
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
        _TIME,
    ),
    "boarding": Field(
        r"\bboard(?:ing)?\b(?!\s*pass)|登机时间|几点.{0,3}登机|什么时候.{0,3}登机|开始登机",
        r"\bboarding(?:\s+time)?\b(?!\s*pass)|登机时间",
        _TIME,
    ),
    "departure": Field(
        r"\bdepart|\bleave|\btake off\b|起飞|出发|发车",
        r"\bdep(?:arture|arts|\.)?(?:\s+time)?\b|起飞时间|起飞|出发时间|出发|开车时间",
        _TIME,
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
        _MONEY,
    ),
}
_HOURS_ASKED = re.compile(
    r"\bopen|\bhours?\b|\bwhen\b|what time|几点|什么时候|几时|开门|营业|开放|上班", re.I
)
_CLOSE_ONLY = re.compile(r"\bclos(?:e|es|ing)\b|关门|关闭|打烊|下班", re.I)
_OPEN_TOO = re.compile(r"\bopen|\bhours?\b|营业时间|开门|开放|几点到几点", re.I)
_CLOSED = re.compile(r"\bclosed\b|休息|闭馆|不营业|休业|停业|关闭|店休", re.I)
# A question about the whole text, and one that asks nothing at all.
_WHOLE = re.compile(
    r"\bsays?\b|\bread\b|\btext\b|\bwritten\b|\bwords?\b|transcribe|describe|"
    r"^\W*what(?:'s| is| are)? (?:this|that|it|these|those)\W*$|^\W*what(?:'s| is) (?:on|in) "
    r"(?:it|this|that|the \w+)\W*$|写了什么|写的什么|写着什么|上面写|什么字|文字|内容|"
    r"^\W*(?:这|那)(?:个|张)?(?:是|写)?(?:什么|啥)\W*$",
    re.IGNORECASE,
)

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
_STOP = frozenset({
    "what", "when", "where", "which", "does", "this", "that", "there", "these", "those", "have",
    "with", "they", "about", "from", "your", "says", "tell", "read", "mean", "image", "picture",
    "photo", "text", "written", "show", "please", "could", "would", "should", "much", "many",
    "time", "the", "and", "for", "are", "was", "were", "will", "can", "you", "its", "how", "did",
    "who", "why", "any", "get", "not", "has", "here", "then", "than", "into", "some", "help",
    "hello",
})  # fmt: skip
_PRICE_WORDS = frozenset({
    "price", "cost", "costs", "pay", "paid", "total", "receipt", "bill", "amount", "多少", "总共",
    "合计", "一共", "小票", "金额",
})  # fmt: skip
_ZH_STOP = re.compile(r"什么|多少|哪个|哪里|几点|上面|图片|照片|这个|那个|请问|告诉|一下|是不|怎么")


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


def wants_whole_text(question: str) -> bool:
    """Whether the question asks what the image says (or nothing in particular); one that
    also asks for something in it ("read me the total") wants that."""
    if asks(question):
        return False
    return bool(_WHOLE.search(question)) or not _keywords(question)


# The words of FIELDS' questions, for a question that misspells one ("whats the totla?").
_ASKED_WORDS = (
    "total", "amount", "cost", "paid", "gate", "closes", "closing", "boarding", "departure",
    "seat", "platform", "terminal", "flight", "expiry", "expires", "open", "opening", "hours",
)  # fmt: skip
# Opening hours asked in so many words, or for a day: what a sign shows, not what a clock does.
_OPENING = re.compile(r"\bopen|\bhours\b|营业|开门|开放|几点开|开到几点|关门", re.I)


def about_the_text(question: str) -> bool:
    """Whether the question asks for something an image would show written (a total, a gate,
    the hours on Saturday), rather than "what time is it?"."""
    kinds = asks(question)
    if set(kinds) - {"hours"}:
        return True
    return bool(kinds) and bool(_OPENING.search(question) or asked_day(question) is not None)


def asks(question: str) -> list[str]:
    """What the question asks for, in the order of FIELDS, with "hours" for opening hours."""
    found = _asks(question)
    if set(found) <= {"hours"}:  # "when" and "what time" ask for hours; "boardng" for more
        again = _asks(_respelled(question))
        if set(again) - {"hours"} or not found:
            return again
    return found


def _respelled(question: str) -> str:
    """The question with a word one typo away from one of `_ASKED_WORDS` spelled right."""

    def right(match: re.Match[str]) -> str:
        word = match.group(0)
        close = difflib.get_close_matches(word.lower(), _ASKED_WORDS, n=1, cutoff=0.8)
        return close[0] if close else word

    return re.sub(r"[A-Za-z]{4,}", right, question)


def _asks(question: str) -> list[str]:
    found = [kind for kind, field in FIELDS.items() if re.search(field.asked, question, re.I)]
    if "closes" in found and _OPEN_TOO.search(question):
        found.remove("closes")
    timed = {"closes", "boarding", "departure"} & set(found)
    if not timed and _HOURS_ASKED.search(question):
        found.append("hours")
    return found


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
            money = re.fullmatch(rf"\s*({_MONEY})\s*", below)
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
    if _CLOSE_ONLY.search(question) and not _OPEN_TOO.search(question):
        return Pick("hours", span.group(2), line, day, "closes")
    return Pick("hours", f"{span.group(1)}-{span.group(2)}", line, day, "range")


def matching(question: str, lines: list[str]) -> list[str]:
    """The lines that share a word with the question; none when every line does."""
    words = _keywords(question)
    picked = [line for line in lines if words & _keywords(line, stop=False)]
    return picked if len(picked) < len(lines) else []


def _keywords(text: str, stop: bool = True) -> set[str]:
    english = {w for w in re.findall(r"[a-z]{3,}", text.lower()) if not (stop and w in _STOP)}
    chinese = _ZH_STOP.sub(" ", text) if stop else text
    pairs = {
        run[n : n + 2] for run in re.findall(r"[\u4e00-\u9fff]{2,}", chinese)
        for n in range(len(run) - 1)
    }  # fmt: skip
    return english | pairs


def item_price(question: str, lines: list[str]) -> Pick:
    """ "How much was the milk?": the line that names it, with its amount."""
    words = _keywords(question) - _PRICE_WORDS
    for line in lines:
        money = re.findall(_MONEY, line)
        if (
            money
            and words & _keywords(line, stop=False)
            and not re.search(FIELDS["total"].label, line, re.IGNORECASE)
        ):
            return Pick("price", money[-1].strip(), line)
    return Pick("price")


def pick(question: str, lines: list[str]) -> list[Pick] | None:
    """What the lines say about each thing the question asks; None when it asks for nothing
    this can look for (the caller then shares lines with the question's words)."""
    kinds = asks(question)
    if not kinds:
        return None
    picks = []
    for kind in kinds:
        if kind == "total" and (item := item_price(question, lines)).value:
            picks.append(item)
        elif kind == "hours":
            picks.append(hours(question, lines))
        else:
            found = field(kind, lines)
            # "When does it close?" under a shop's hours, not a gate's closing time.
            picks.append(hours(question, lines) if kind == "closes" and not found.value else found)
    return picks
