"""The page's conversation as the browser keeps it: whole (`snapshot`), or one turn, one
image, its small fields, for the changes the server sends (`ui.conversations.kept`)."""

from __future__ import annotations

import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from tools.base import ImageRef

from ..access import shown_url
from ..labels import t
from ..page.state import PageState, Prefs, TurnRecord
from .export import conversation_data
from .stored import TITLE_CHARS

# Events that stream in small pieces: a run of them is kept as one, which shows the same.
_PIECES = {"model_delta": "step", "answer_delta": None, "tool_progress": "call_id"}


def title_of(text: str, language: str) -> str:
    words = " ".join(text.split())
    if not words:
        return t("untitled", language)
    return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1] + "…"


def snapshot(state: PageState, now: float | None = None) -> dict[str, Any] | None:
    """The page's conversation as the browser keeps it, whole; None when it has no turns.
    The page sends changes (`Kept.changes`); this is what they add up to."""
    if not state.turns:
        return None
    session = state.session
    return {
        **meta_of(state, title_of(state.turns[0].text, state.prefs.language)),
        "id": state.conversation_id,
        "saved_at": time.time() if now is None else now,
        "turns": [turn_data(record) for record in state.turns],
        "history": [turn.model_dump(mode="json") for turn in session.history],
        "images": [image_data(ref) for ref in session.images.refs()],
    }


def turn_data(record: TurnRecord) -> dict[str, Any]:
    data, _ = conversation_data([record])
    turn = data["turns"][0]
    turn["events"] = joined(turn["events"])
    return turn


def image_data(ref: ImageRef) -> dict[str, Any]:
    return {**ref.model_dump(mode="json", exclude={"path"}), "path": Path(ref.path).name}


def meta_of(state: PageState, title: str) -> dict[str, Any]:
    """The conversation's small fields, sent whole with each change (`saved_at` apart)."""
    session = state.session
    refs = session.images.refs()
    return {
        "title": title,
        "task": session.task.model_dump(mode="json") if session.task else None,
        "folder": session.images.root.name if refs else "",
        "prefs": stored_prefs(state.prefs),
    }


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


def stored_prefs(prefs: Prefs) -> dict[str, Any]:
    """The settings to keep: never the key, and the base URL as the page shows it (without
    credentials the server's own URL may carry)."""
    kept = {f.name: getattr(prefs, f.name) for f in fields(prefs) if f.name != "api_key"}
    kept["base_url"] = shown_url(prefs.base_url) if prefs.base_url else ""
    return kept
