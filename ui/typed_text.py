"""The person's words as typed, for the parts of the page that draw Markdown and HTML (the
chat, the trace's turn titles): "<b>x</b>" and "9**9**9" are words, not markup to draw."""

from __future__ import annotations

import re
from html import escape

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
