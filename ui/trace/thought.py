"""A step's Thought while its text streams: what the trace shows of it before the step's
Thought event gives it whole."""

from __future__ import annotations

from agent.react.grammar import decision_start, without_label

# A streaming Thought shows at most this much (the step's Thought event then gives it whole);
# past it, more text of the step changes nothing shown and costs nothing.
PREVIEW_CHARS = 4_000
# How far back from new text a label may begin: new text is searched from there on.
_CUT_REACH = 64


def streaming_thought(raw: str) -> str:
    """The Thought part of a step's text while it streams: no label, nothing from Action on."""
    cut = decision_start(raw)
    return without_label(raw[:cut], "thought")


class ThoughtPreview:
    """`streaming_thought` of one step's text as it grows, reading each piece once: the search
    for the Action label goes on from just before the new piece, and the text stops growing
    once the label is found or the preview is full."""

    def __init__(self) -> None:
        self.raw = ""
        self.final: str | None = None  # the preview, once nothing can change it

    def feed(self, text: str) -> str:
        """The preview with `text` added."""
        if self.final is not None:
            return self.final
        start = max(0, len(self.raw) - _CUT_REACH)
        self.raw += text[: PREVIEW_CHARS + _CUT_REACH - len(self.raw)]
        cut = decision_start(self.raw, start)
        if cut is not None:
            self.final = without_label(self.raw[:cut], "thought")
        elif len(self.raw) >= PREVIEW_CHARS:
            self.final = without_label(self.raw[:PREVIEW_CHARS], "thought") + "…"
        else:
            return without_label(self.raw, "thought")
        self.raw = ""
        return self.final
