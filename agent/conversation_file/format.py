"""What a downloaded conversation file says it is, and its events as it keeps them.

The page writes it (`ui.conversations.export`); `agent.conversation_file.reader` reads it back.
"""

from __future__ import annotations

from typing import Any

FORMAT = "multimodal-react-agent/conversation"
VERSION = 1

# Events that stream in small pieces: a run of them is kept as one, which shows the same.
_PIECES = {"model_delta": "step", "answer_delta": None, "tool_progress": "call_id"}


def joined(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turn's events with each run of streamed pieces as one event: the text deltas of a
    step joined, only the last progress line of a tool call. Linear in the events: a run's
    pieces are joined once it ends, never copied piece by piece."""
    kept: list[dict[str, Any]] = []
    pieces: list[str] = []  # the texts of the run that kept[-1] stands for

    def close() -> None:
        if len(pieces) > 1:
            kept[-1] = {**kept[-1], "text": "".join(pieces)}

    for event in events:
        kind = event.get("type")
        last = kept[-1] if kept else {}
        if kind in _PIECES and last.get("type") == kind:
            same = _PIECES[kind] or "type"
            if last.get(same) == event.get(same):
                if kind == "tool_progress":
                    kept[-1] = event
                else:
                    pieces.append(event["text"])
                continue
        close()
        kept.append(event)
        pieces = [event["text"]] if kind in _PIECES and kind != "tool_progress" else []
    close()
    return kept
