"""Forwarding the answer of a reply while it is still streaming, exactly as `parse_step` will
read it once the reply is complete."""

from __future__ import annotations

from .labels import (
    LABEL_SPAN,
    clean_value,
    is_cut_stop,
    is_no_tool,
    label_kind,
    match_label,
    maybe_label,
)


class AnswerStream:
    """Forwards the answer of a streaming reply: the text after a line-start `Answer:` or
    `Final Answer:` label, exactly as `parse_step` will read it, and nothing before it.

    It holds back only what may still change: a line that may become a label (which ends the
    answer), and trailing whitespace, `*` and backticks (trimmed from the end of an answer).
    After an `Action:` line it forwards nothing. A reply that `parse_step` reads as an answer
    without a line-start label (plain prose) streams nothing here; the caller sends the parsed
    answer when this stream stayed empty.
    """

    def __init__(self) -> None:
        self._mode = "seek"  # seek -> answer -> done, or seek -> done after an Action
        self._state = "open"  # this line: open (may be a label), through, skip, action
        self._line = ""
        self._value: list[str] = []  # the raw answer, for the final trim in finish()
        self._pending: list[str] = []  # held back: it may yet be trimmed from the end
        self._started = False
        self._sent = 0

    def feed(self, chunk: str) -> str:
        out: list[str] = []
        pos = 0
        while pos < len(chunk) and self._mode != "done":
            end = chunk.find("\n", pos)
            stop = len(chunk) if end < 0 else end
            out.append(self._take(chunk[pos:stop], end >= 0))
            pos = stop + 1
        return "".join(out)

    def finish(self) -> str:
        """The rest of the answer, trimmed as `parse_step` trims it."""
        out = ""
        if self._state == "open" and self._mode != "done":
            match = match_label(self._line)
            if match is None and self._mode == "answer" and not is_cut_stop(self._line):
                out = self._push(self._line)
            elif match is not None and self._mode == "seek" and label_kind(match) == "answer":
                out = self._push(self._line[match.end() :])
        self._mode, self._line = "done", ""
        final = clean_value("".join(self._value))
        tail, self._sent = final[self._sent :], max(self._sent, len(final))
        return out + tail

    def _take(self, piece: str, ends_line: bool) -> str:
        out = ""
        if self._state == "through":
            out = self._push(piece)
        elif self._state != "skip":
            self._line += piece
            if self._state == "open":
                out = self._decide(ends_line)
            elif len(self._line) > LABEL_SPAN:  # too long for "none": it names a tool
                self._mode = "done"
        if ends_line:
            if self._state == "action" and not is_no_tool(self._line):
                self._mode = "done"
            elif self._state == "through":
                out += self._push("\n")
            self._line, self._state = "", "open"
        return out

    def _decide(self, ends_line: bool) -> str:
        line = self._line
        match = match_label(line)
        if match is None:
            if ends_line or not maybe_label(line):
                self._line = ""
                self._state = "through" if self._mode == "answer" else "skip"
                return self._push(line) if self._mode == "answer" else ""
            return ""
        kind = label_kind(match)
        if self._mode == "answer":
            self._mode = "done"  # any label ends the answer
        elif kind == "answer":
            rest = line[match.end() :]
            # Wait while a closing `**` may still follow the colon.
            if ends_line or rest.strip(" \t*_") or len(rest) >= 6:
                self._mode, self._state, self._line = "answer", "through", ""
                return self._push(rest)
        elif kind == "action":
            self._state, self._line = "action", line[match.end() :]
        else:
            self._state = "skip"
        return ""

    def _push(self, text: str) -> str:
        self._value.append(text)
        if not self._started:
            text = text.lstrip()
            if not text:
                return ""
            self._started = True
        keep = len(text)
        while keep and (text[keep - 1].isspace() or text[keep - 1] in "*`"):
            keep -= 1
        if not keep:
            self._pending.append(text)
            return ""
        out = "".join(self._pending) + text[:keep]
        self._pending = [text[keep:]]
        self._sent += len(out)
        return out
