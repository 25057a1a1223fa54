"""The line of an image's text that answers the question asked, and the value in it.

Pure functions over the question and the lines the OCR read: the total of a receipt, the hours
on a given day, a gate and when it closes. Each pattern has its English and its Chinese words
side by side. A question that asks for none of these finds the lines that share its words; a
question that asks what the image says gets none of this (the whole text is its answer).

Here is what a question asks for and which picker reads it: a labelled value (`fields`), the
opening hours (`opening_hours`), or the line that names an item with its price.
"""

from __future__ import annotations

import difflib
import re

from .fields import FIELDS, field
from .opening_hours import OPEN_TOO, asked_day, hours
from .values import MONEY, Pick

_HOURS_ASKED = re.compile(
    r"\bopen|\bhours?\b|\bwhen\b|what time|几点|什么时候|几时|开门|营业|开放|上班", re.I
)
# A question about the whole text, and one that asks nothing at all.
_WHOLE = re.compile(
    r"\bsays?\b|\bread\b|\btext\b|\bwritten\b|\bwords?\b|transcribe|describe|"
    r"^\W*what(?:'s| is| are)? (?:this|that|it|these|those)\W*$|^\W*what(?:'s| is) (?:on|in) "
    r"(?:it|this|that|the \w+)\W*$|写了什么|写的什么|写着什么|上面写|什么字|文字|内容|"
    r"^\W*(?:这|那)(?:个|张)?(?:是|写)?(?:什么|啥)\W*$",
    re.IGNORECASE,
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
    found = [kind for kind, spec in FIELDS.items() if re.search(spec.asked, question, re.I)]
    if "closes" in found and OPEN_TOO.search(question):
        found.remove("closes")
    timed = {"closes", "boarding", "departure"} & set(found)
    if not timed and _HOURS_ASKED.search(question):
        found.append("hours")
    return found


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
        money = re.findall(MONEY, line)
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
