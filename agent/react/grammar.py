"""The label grammar of a ReAct reply: which lines are labels, what a label's value is, and the
words that look like a decision but are none (`Action: None`, a placeholder `Answer:`, a stop
word the server cut in half at the end of the reply).

Labels are English as the prompts ask (`Thought`, `Action`, `Action Input`, `Answer`,
`Final Answer`, `Observation`) or Chinese as Chinese-prompted agents write them (`思考`, `行动`,
`行动输入`, `最终答案`, `观察`), with any colon. `AnswerStream` reads the same grammar line by
line, so everything here decides from what it has seen so far, within bounded text.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

_SEP = r"[ \t_]{0,3}"
_WORDS = (
    rf"thoughts?|action{_SEP}input|action|final{_SEP}answer|answer|observations?"
    r"|思考|想法|行动输入|动作输入|行动|动作|最终答案|最终回答|答案|观察结果|观察"
)
_CHINESE = {
    "思考": "thought",
    "想法": "thought",
    "行动输入": "actioninput",
    "动作输入": "actioninput",
    "行动": "action",
    "动作": "action",
    "最终答案": "answer",
    "最终回答": "answer",
    "答案": "answer",
    "观察结果": "observation",
    "观察": "observation",
}
# A label starts a line. Every piece is bounded so a label is decided within its first 64
# characters (AnswerStream relies on that), and nothing crosses a newline. Bold opened before
# the label and not closed before the colon (`**Answer:**`) is closed after it.
_LABEL = re.compile(
    r"^[ \t]{0,8}(?:#{1,6}[ \t]{0,3})?(?:[-*•>][ \t]{1,3})?(?P<b1>\*\*|__|\*)?[ \t]{0,3}"
    rf"(?P<label>{_WORDS})"
    r"[ \t]{0,3}(?P<b2>(?P=b1))?[ \t]{0,3}[:：](?(b1)(?(b2)|[ \t]{0,3}(?P=b1)?))",
    re.IGNORECASE | re.MULTILINE | re.ASCII,
)
LABEL_SPAN = 64
_LABEL_WORDS = (
    "thought thoughts action actioninput finalanswer answer observation observations "
    + " ".join(_CHINESE)
)
# Labels without a colon (`Action search`): read when the colon grammar finds no decision, and
# for an `Action Input` line right after an Action.
_LOOSE = re.compile(
    r"^[ \t]{0,8}(?:#{1,6}[ \t]{0,3})?(?:[-*•>][ \t]{1,3})?(?:\*\*)?"
    rf"(?P<label>thoughts?|action{_SEP}input|action|final{_SEP}answer|observation)"
    r"(?:\*\*)?(?:[ \t]+|$)",
    re.IGNORECASE | re.MULTILINE | re.ASCII,
)
# Labels written mid-line ("Thought: ... Action: zoom"), read only when nothing else decides.
_MIDLINE = re.compile(
    r"(?<=\S)[ \t]+(?=(?:\*\*)?(?:Action Input|Action|Final Answer|Answer|Observation)"
    r"(?:\*\*)?[ \t]*[:：])"
)
_GAP = re.compile(r"[ \t_]")
FENCE_LINE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_NO_TOOL = {"none", "n/a", "null", "no action", "nothing", "no tool", "无", "不需要"}
_STOP_WORDS = ("observations", "观察结果")
# How an answer that only announces the next step begins ("I will now search..."). With a tool
# call in the same reply such an answer is not what the model concluded.
_OPENERS = (
    "i'll", "i’ll", "i will", "i am going to", "i'm going to", "i’m going to", "i need to",
    "i have to", "i must", "i should", "let me", "let's", "let’s", "let us", "now i", "now, i",
    "first i", "first, i", "next i", "next, i", "please wait", "one moment", "waiting",
    "我将", "我会", "我要", "我需要", "我先", "我来", "让我", "我们来", "首先", "接下来",
    "下面我", "现在我", "请稍等", "稍等", "等待",
)  # fmt: skip


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
    return _kind(match["label"])


@functools.lru_cache(maxsize=256)
def _kind(word: str) -> str:
    if word in _CHINESE:
        return _CHINESE[word]
    word = _GAP.sub("", word.lower()).rstrip("s")
    return "answer" if word == "finalanswer" else word


def loose_labels(text: str) -> list[tuple[Mark, str]]:
    """Colon-less labels, each with the rest of its line (the caller decides which count)."""
    return [_loose(match, text) for match in _LOOSE.finditer(text)]


def loose_label_at_start(text: str) -> tuple[Mark, str] | None:
    match = _LOOSE.match(text)
    return _loose(match, text) if match else None


def _loose(match: re.Match[str], text: str) -> tuple[Mark, str]:
    rest = text[match.end() :].split("\n", 1)[0].strip()
    return Mark(label_kind(match), match.start(), match.end()), rest


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


def is_cut_stop(line: str) -> bool:
    """A last line that is the stop label `Observation:` cut short (`Obs`, `Observat`,
    `Observation` without its colon, `观察`): the server stopped inside it. One Latin letter
    is too little to tell."""
    core = line.strip().strip("*_#>-• \t").lower()
    shortest = 2 if core.isascii() else 1
    return len(core) >= shortest and any(word.startswith(core) for word in _STOP_WORDS)


def drop_cut_stop(text: str) -> str:
    """`text` without a cut-off stop label on its last line (one with nothing after it)."""
    head, newline, last = text.rstrip(" \t").rpartition("\n")
    if newline and head.strip() and is_cut_stop(last):
        return head
    return text


def is_placeholder(answer: str) -> bool:
    """An answer of one line that only announces what comes next."""
    text = answer.strip()
    return "\n" not in text and _opens_placeholder(" ".join(text.split()).lower())


def may_become_placeholder(start: str) -> bool:
    """Whether an answer that begins with `start` may still be a placeholder (never False
    when it may)."""
    if "\n" in start.strip():
        return False
    text = " ".join(start.split()).lower()
    return any(o.startswith(text) for o in _OPENERS) or _opens_placeholder(text)


def _opens_placeholder(text: str) -> bool:
    if not text.startswith(_OPENERS):
        return False
    for opener in _OPENERS:
        if text.startswith(opener):
            after = text[len(opener) : len(opener) + 1]
            if not (opener.isascii() and after.isascii() and after.isalpha()):
                return True
    return False


# Where a step's Thought ends while it streams: the first Action, Action Input or Answer label,
# at a line's start or mid-line after a space, English or Chinese.
_DECIDES = re.compile(
    r"(?:^|(?<=\s))[ \t]{0,8}(?:\*\*)?[ \t]{0,3}"
    rf"(?:action{_SEP}input|action|final{_SEP}answer|answer"
    r"|行动输入|动作输入|行动|动作|最终答案|最终回答|答案)"
    r"[ \t]{0,3}(?:\*\*)?[ \t]{0,3}[:：]",
    re.IGNORECASE | re.MULTILINE,
)


def decision_start(text: str, start: int = 0) -> int | None:
    """Where the first label that ends a Thought (Action, Action Input, Answer) begins in
    `text`, searching from `start`; None if there is none yet."""
    match = _DECIDES.search(text, start)
    return match.start() if match else None


def without_label(text: str, *kinds: str) -> str:
    """`text` without the label it starts with, when that label is one of `kinds`
    (thought, action, actioninput, answer, observation); stripped."""
    text = text.strip()
    match = _LABEL.match(text)
    if match is not None and label_kind(match) in kinds:
        return text[match.end() :].strip()
    return text


def starts_with_label(text: str, *kinds: str) -> bool:
    """Whether `text` begins with a label of one of `kinds`."""
    match = _LABEL.match(text.lstrip())
    return match is not None and label_kind(match) in kinds
