"""Reasoning models (DeepSeek-R1, Qwen3, QwQ) may write `<think>...</think>` before their reply.

What is inside is the model thinking aloud: it may contain `Answer:` or `Action:` lines that
are not the step. It is removed before the step is read, and held back from the streamed
answer; the trace still shows it through the raw model deltas.
"""

from __future__ import annotations

import re

_OPEN, _CLOSE = "<think>", "</think>"
_BLOCK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """The reply without its reasoning. A lone `</think>` (the chat template opened the block)
    ends reasoning that began with the reply."""
    lowered = text.lower()
    if "think>" not in lowered:
        return text
    close = lowered.find(_CLOSE)
    if close >= 0 and _OPEN not in lowered[:close]:
        text = text[close + len(_CLOSE) :]
    return _BLOCK.sub("", text)


class ReasoningFilter:
    """Streaming `strip_reasoning` for a reply that opens with `<think>`; other replies pass
    through untouched (a template-opened block cannot be told apart until its `</think>`, and
    `parse_step` removes it from the finished reply)."""

    def __init__(self) -> None:
        self._buffer = ""
        self._inside = False
        self._decided = False

    def feed(self, chunk: str) -> str:
        if self._decided and not self._inside:
            return chunk  # the reasoning is over (or never began): everything passes
        self._buffer += chunk
        out = []
        while self._buffer:
            if not self._decided:
                head = self._buffer.lstrip()
                if len(head) < len(_OPEN) and _OPEN.startswith(head.lower()):
                    return "".join(out)  # may still become `<think>`
                self._decided = True
                if head.lower().startswith(_OPEN):
                    self._inside = True
                    self._buffer = head[len(_OPEN) :]
                continue
            if not self._inside:
                out.append(self._buffer)
                self._buffer = ""
                break
            close = self._buffer.lower().find(_CLOSE)
            if close < 0:
                # Keep only what could be the start of `</think>`.
                self._buffer = self._buffer[-(len(_CLOSE) - 1) :]
                break
            self._buffer = self._buffer[close + len(_CLOSE) :]
            self._inside = False
        return "".join(out)
