"""The label grammar of a ReAct reply: which lines are labels and what a label's value is.

`AnswerStream` reads the same grammar line by line, so everything here decides from what it has
seen so far, within bounded text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_SEP = r"[ \t_]{0,3}"
# A label starts a line. Every piece is bounded so a label is decided within its first 64
# characters (AnswerStream relies on that), and nothing crosses a newline. Bold opened before
# the label and not closed before the colon (`**Answer:**`) is closed after it.
_LABEL = re.compile(
    r"^[ \t]{0,8}(?:#{1,6}[ \t]{0,3})?(?:[-*•>][ \t]{1,3})?(?P<b1>\*\*|__|\*)?[ \t]{0,3}"
    rf"(?P<label>thoughts?|action{_SEP}input|action|final{_SEP}answer|answer|observations?)"
    r"[ \t]{0,3}(?P<b2>(?P=b1))?[ \t]{0,3}[:：](?(b1)(?(b2)|[ \t]{0,3}(?P=b1)?))",
    re.IGNORECASE | re.MULTILINE | re.ASCII,
)
LABEL_SPAN = 64
_LABEL_WORDS = "thought thoughts action actioninput finalanswer answer observation observations"
# Labels written mid-line ("Thought: ... Action: zoom"), read only when nothing else decides.
_MIDLINE = re.compile(
    r"(?<=\S)[ \t]+(?=(?:\*\*)?(?:Action Input|Action|Final Answer|Answer|Observation)"
    r"(?:\*\*)?[ \t]*[:：])"
)
_GAP = re.compile(r"[ \t_]")
FENCE_LINE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_NO_TOOL = {"none", "n/a", "null", "no action", "nothing", "no tool"}


class Mark(NamedTuple):
    """A label in a reply: its kind and where the label starts and its value begins."""

    kind: str  # thought, action, actioninput, answer, observation
    start: int
    end: int


def labels(text: str) -> list[Mark]:
    return [Mark(label_kind(m), m.start(), m.end()) for m in _LABEL.finditer(text)]


def match_label(line: str) -> re.Match[str] | None:
    return _LABEL.match(line)


def label_kind(match: re.Match[str]) -> str:
    word = _GAP.sub("", match["label"].lower()).rstrip("s")
    return "answer" if word == "finalanswer" else word


def spread_midline(text: str) -> str:
    return _MIDLINE.sub("\n", text)


def maybe_label(line: str) -> bool:
    """Whether an unfinished line could still become a label (never False when it could)."""
    if len(line) > LABEL_SPAN:
        return False
    core = _GAP.sub("", line.lstrip(" \t#>-•*_").lower())
    for word in _LABEL_WORDS.split():
        if word.startswith(core) or (core.startswith(word) and not core[len(word) :].strip("*")):
            return True
    return False


def clean_value(value: str) -> str:
    """Trim a label's value: whitespace, a closing fence left unmatched (the end of a fence
    around the whole reply) and an unmatched closing `**` (from `**Answer: ...**`)."""
    value = value.strip()
    last_line = value.rsplit("\n", 1)[-1]
    if last_line.strip() == "```" and len(FENCE_LINE.findall(value)) % 2:
        value = value[: len(value) - len(last_line)].rstrip()
    if value.endswith("**") and value.count("**") % 2:
        value = value[:-2].rstrip()
    return value


def trim_name(name: str) -> str:
    return name.strip().lstrip(" \t*`'\"[<").rstrip(" \t*`'\".,;:!?]>").strip()


def is_no_tool(line: str) -> bool:
    return trim_name(line).lower() in _NO_TOOL
