"""Forwarding the answer of a reply while it is still streaming, exactly as `parse_step` will
read it once the reply is complete."""

from __future__ import annotations

import re

from .grammar import (
    LABEL_SPAN,
    clean_value,
    is_cut_stop,
    is_no_tool,
    is_placeholder,
    label_kind,
    match_label,
    may_become_placeholder,
    maybe_label,
)

# Whether a held answer may still be a placeholder depends on its first words (the openers are
# all far shorter than this) and on whether a line break comes between its words.
_PROBE_CHARS = 64
_SPACES = re.compile(r"\s+")


class AnswerStream:
    """Forwards the answer of a streaming reply: the text after a line-start `Answer:` or
    `Final Answer:` label that `parse_step` takes as the answer, and nothing before it.

    It follows `parse_step`'s rule for a reply with both an action and an answer: an answer
    before any tool call counts; after a call, an answer counts until an Observation or a
    second Action. It holds back only what may still change: a line that may become a label
    (which ends the answer), trailing whitespace, `*` and backticks (trimmed from the end of an
    answer), and an answer that so far only announces a next step ("I will now search..."),
    which does not count if a tool call comes with it. A reply that `parse_step` reads as an
    answer without a line-start label (plain prose, a call to `final_answer`) streams nothing
    here; the caller sends the parsed answer when this stream stayed empty.
    """

    def __init__(self) -> None:
        self._mode = "seek"  # seek -> answer -> done; a placeholder answer returns to seek
        self._called = False  # a tool action has been seen
        self._state = "open"  # this line: open (may be a label), through, skip, action
        self._line = ""
        self._value: list[str] = []  # the raw answer, for the final trim in finish()
        self._pending: list[str] = []  # held back: it may yet be trimmed from the end
        self._hold = False  # the answer may be a placeholder: nothing forwarded yet
        self._probe = ""  # the held answer, shortened to what decides `may_become_placeholder`
        self._held: str | None = None  # a finished placeholder answer, if no call follows
        self._started = False
        self._sent = 0

    def feed(self, chunk: str) -> str:
        if (self._state == "skip" and "\n" not in chunk) or self._mode == "done":
            return ""  # the rest of a line that is not the answer: nothing to decide yet
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
        if self._state == "action" and not is_no_tool(self._line):
            self._call()
        if self._state == "open" and self._mode != "done":
            match = match_label(self._line)
            if match is None and self._mode == "answer" and not is_cut_stop(self._line):
                out = self._add(self._line)
            elif match is not None and self._mode == "seek" and label_kind(match) == "answer":
                out = self._start(self._line[match.end() :])
        if self._mode == "answer" and self._hold:
            value = "".join(self._value)
            if not value.strip() or (self._called and is_placeholder(value)):
                self._value = []
        elif self._mode == "seek":
            self._value = [self._held] if self._held and not self._called else []
        self._mode, self._line = "done", ""
        final = clean_value("".join(self._value))
        tail, self._sent = final[self._sent :], max(self._sent, len(final))
        return out + tail

    def _take(self, piece: str, ends_line: bool) -> str:
        out = ""
        if self._state == "through":
            out = self._add(piece)
        elif self._state != "skip":
            self._line += piece
            if self._state == "open":
                out = self._decide(ends_line)
            elif len(self._line.strip()) > LABEL_SPAN:  # too long for "none": it names a tool
                self._call()
                self._state = "skip"
        if ends_line:
            if self._state == "action" and not is_no_tool(self._line):
                self._call()
            elif self._state == "through":
                out += self._add("\n")
            self._line, self._state = "", "open"
        return out

    def _decide(self, ends_line: bool) -> str:
        line = self._line
        match = match_label(line)
        if match is None:
            if ends_line or not maybe_label(line):
                self._line = ""
                self._state = "through" if self._mode == "answer" else "skip"
                return self._add(line) if self._mode == "answer" else ""
            return ""
        out = ""
        if self._mode == "answer":
            out = self._end()  # any label ends the answer
            if self._mode == "done":
                return out
        kind = label_kind(match)
        if kind == "answer":
            rest = line[match.end() :]
            # Wait while a closing `**` may still follow the colon.
            if ends_line or rest.strip(" \t*_") or len(rest) >= 6:
                self._state, self._line = "through", ""
                out += self._start(rest)
        elif kind == "action" and self._called:
            self._mode = "done"  # a second call: the first one stands
        elif kind == "action":
            self._state, self._line = "action", line[match.end() :]
        elif kind == "observation" and self._called:
            self._mode = "done"  # what follows rests on a result the tool has not given
        else:
            self._state = "skip"
        return out

    def _call(self) -> None:
        self._called, self._held = True, None

    def _start(self, rest: str) -> str:
        self._mode, self._held, self._hold, self._probe = "answer", None, True, ""
        self._value, self._pending, self._started, self._sent = [], [], False, 0
        return self._add(rest)

    def _end(self) -> str:
        """The answer ends at a label: a placeholder waits for what follows, any other
        answer is final."""
        value = "".join(self._value)
        self._mode = "done"
        if self._hold and is_placeholder(value):
            self._mode, self._value = "seek", []
            self._held = None if self._called else value
        elif self._hold and value.strip():
            self._hold = False
            return self._emit(value)
        return ""

    def _add(self, text: str) -> str:
        self._value.append(text)
        if not self._hold:
            return self._emit(text)
        self._probe = _shorten(self._probe + text)
        if may_become_placeholder(self._probe):
            return ""
        self._hold = False
        return self._emit("".join(self._value))

    def _emit(self, text: str) -> str:
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


def _shorten(value: str) -> str:
    """A text that `may_become_placeholder` reads as it reads `value`, now and with anything
    appended: its first words, a mark for the words after them, and its trailing space. So a
    held answer of 16,000 blank lines is not read again whole at each line."""
    value = _SPACES.sub(lambda run: "\n" if "\n" in run[0] else " ", value.lstrip())
    if len(value) <= 2 * _PROBE_CHARS:
        return value
    end = value[-1] if value[-1].isspace() else ""
    return value[:_PROBE_CHARS] + "x" + end
