"""Text as written, for the parts of the page that draw Markdown and HTML: the person's words in
the chat and the trace's turn titles (`as_typed`), and a name or sentence a person or a model
server gave, on one line (`as_text`): "<b>x</b>" and "9**9**9" are words, not markup to draw."""

from __future__ import annotations

import re
from html import escape
from typing import Any

# Marks the chat's Markdown would act on anywhere in a line, and those that act at its start
# (a list, a numbered item, a heading underline); a link as typed is left whole.
_MARKS = re.compile(r"[\\`*_~\[\]|#]")
_LINE_MARKS = re.compile(r"^(\s*)([-+=]|\d+(?=[.)](?:\s|$)))", re.MULTILINE)
_LINK = re.compile(r"(https?://\S+|www\.\S+)")


def as_typed(text: str) -> str:
    """The person's words for the chat, which draws HTML and Markdown: both escaped."""
    parts = _LINK.split(escape(text, quote=False))
    for n in range(0, len(parts), 2):  # the even parts are between links
        parts[n] = _MARKS.sub(r"\\\g<0>", parts[n])
    escaped = "".join(parts)
    return _LINE_MARKS.sub(
        lambda m: m.group(1) + (m.group(2) + "\\" if m.group(2).isdigit() else "\\" + m.group(2)),
        escaped,
    )


# The characters Markdown (and the page's LaTeX) reads as markup wherever they are, each
# escaped; `<`, `>` and `&` become entities. A link needs `[`, and an image `![`.
_MARKUP = re.compile(r"([\\`*_\[\]#|~$@])")
# What starts a list or a heading at the start of a line.
_LINE_START = re.compile(r"^(\d+)([.)])|^([-+=])")
# What Markdown would make a link of with no markup at all: an address.
_BARE_LINK = re.compile(r"(?<=:)//|(?<=www)\.", re.IGNORECASE)


def as_text(text: Any) -> str:
    """`text` shown as Markdown exactly as written, on one line: no tag, link, heading or
    formula of its own. For anything a person or a model server wrote."""
    flat = " ".join(str(text).split())
    escaped = _MARKUP.sub(r"\\\1", escape(flat, quote=False))
    escaped = _BARE_LINK.sub(lambda found: "\\" + "\\".join(found.group()), escaped)
    return _LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", escaped)
