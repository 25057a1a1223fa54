"""The value inside a short reply: "to kilometers", "in Tokyo please", "换成公里吧".

People answer a question with a phrase, not a bare value. Extractors call `reply_value` to peel
off the polite and connecting words around the value, and learn from them whether the value is
where something goes ("to km", "换成公里") or where it comes from ("from miles").
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel

Direction = Literal["to", "from", ""]

MAX_REPLY_CHARS = 60

# Longest first within each group, so "make it" is taken whole before "make".
_ENGLISH_TO = (
    r"convert (?:it|that|this|them) (?:in)?to|change (?:it|that|this) (?:in)?to|"
    r"switch (?:it|that|this)? ?to|turn (?:it|that|this) into|make (?:it|that|this)(?: in)?|"
    r"(?:i want|i'?d like|i need) (?:it|that)? ?(?:in|to|as)?|into|to|as"
)
_CHINESE_TO = r"换算成|换算为|转换成|转换为|换成|换为|转成|转为|改成|改为|变成|成为|到|成"
_ENGLISH_NEUTRAL = (
    r"ok(?:ay)?|yes|yeah|yep|sure|well|so|and|then|now|actually|i mean|i meant|hmm+|um+|uh+|"
    r"let'?s (?:do|say|go with|use|try)|how about|what about|maybe|just|only|please|pls|"
    r"(?:use|using|with|in|at|for|per|the one in|the|it'?s|it is|that'?s|that is|they are)"
)
_CHINESE_NEUTRAL = (
    r"请|麻烦|帮我|给我|那就|就是|就用|就|还是|我要|我想要|我想|要|用|按照|按|以|是|在|"
    r"嗯|好的|好|那"
)
_ENGLISH_TAIL = (
    r"please|pls|thanks|thank you|thx|instead|then|now|only|for me|if you can|if possible|"
    r"ok(?:ay)?|time"
)
_CHINESE_TAIL = r"吧|的|啊|呀|哦|嘛|呢|就行|就好|就可以|即可|谢谢|谢啦|好了|时间|的时间|单位|的单位"
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_EDGES = " \t\r\n,.;:!?。，、；：！？…~～\"'“”‘’「」『』()（）[]【】<>《》-"


class Reply(BaseModel):
    value: str
    direction: Direction = ""


def normalise(text: str) -> str:
    """Full-width letters, digits and punctuation as their plain forms; spaces collapsed.
    Only those: NFKC would also turn "m³³³" into "m333", a different unit."""
    return " ".join(text.translate(_FULL_WIDTH).split())


def reply_value(text: str) -> Reply:
    """The value a short reply gives, and which way it points; an empty value for long text."""
    value = normalise(text).strip(_EDGES)
    if not value or len(value) > MAX_REPLY_CHARS:
        return Reply(value="")
    direction: Direction = ""
    for _ in range(6):
        before = value
        way, lead = next(((way, m) for way, p in _LEADS if (m := p.match(value))), ("", None))
        if lead and lead.end() < len(value):
            value = value[lead.end() :].strip(_EDGES)
            direction = way or direction
        tail = _TAIL.search(value)
        if tail and tail.start() > 0:
            value = value[: tail.start()].strip(_EDGES)
        if value == before:
            break
    return Reply(value=value, direction=direction)


def split_pair(value: str) -> tuple[str, str] | None:
    """ "miles to km", "convert from miles to km", "把英里换成公里": the two ends, else None."""
    match = _PAIR.match(value)
    return (match.group(1), match.group(2)) if match else None


def fill_slot(
    reply: Reply, value: Any, slots: tuple[str, str], known: dict[str, Any]
) -> dict[str, Any]:
    """Put a reply's value in the (from, to) slot its direction names; without one, in the
    first slot still missing, which is the one the question asked for."""
    if reply.direction:
        return {slots[0] if reply.direction == "from" else slots[1]: value}
    for slot in slots:
        if slot not in known:
            return {slot: value}
    return {}


_PAIR = re.compile(
    r"^(?:(?:convert|change|turn)\s+|把)?(?:from\s+|从)?(.+?)\s*"
    r"(?:\b(?:to|into|in|as)\b|换算成|转换成|换成|转成|改成|到)\s*(.+)$",
    re.IGNORECASE,
)
_LEAD_FROM = re.compile(r"(?:(?:convert(?:ing)? )?from\b|从)\s*", re.IGNORECASE)
_LEAD_TO = re.compile(rf"(?:(?:{_ENGLISH_TO})\b|(?:{_CHINESE_TO}))\s*", re.IGNORECASE)
_LEAD_NEUTRAL = re.compile(
    rf"(?:(?:{_ENGLISH_NEUTRAL})\b|(?:{_CHINESE_NEUTRAL}))[\s,，]*", re.IGNORECASE
)
_LEADS: tuple[tuple[Direction, re.Pattern[str]], ...] = (
    ("from", _LEAD_FROM),
    ("to", _LEAD_TO),
    ("", _LEAD_NEUTRAL),
)
_TAIL = re.compile(
    rf"[\s,，]*(?:\b(?:{_ENGLISH_TAIL})|(?:{_CHINESE_TAIL}))[\s{re.escape(_EDGES)}]*$",
    re.IGNORECASE,
)
