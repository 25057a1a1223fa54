"""The page's conversation as the browser keeps it: whole (`snapshot`), or one turn, one
image, its small fields, for the changes the server sends (`ui.conversations.kept`)."""

from __future__ import annotations

import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from agent.conversation_file.format import joined
from tools.base import ImageRef

from ..access import shown_url
from ..labels import t
from ..page.state import PageState, Prefs, TurnRecord
from .export import conversation_data
from .stored import TITLE_CHARS


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
        # A call waiting for approval, and the tools allowed for the whole conversation: a
        # reload asks the same question again and remembers the same "always".
        "approval": session.approval.model_dump(mode="json") if session.approval else None,
        "allowed_tools": list(session.allowed_tools),
        "folder": session.images.root.name if refs else "",
        "prefs": stored_prefs(state.prefs),
    }


def stored_prefs(prefs: Prefs) -> dict[str, Any]:
    """The settings to keep: never the key, and the base URL as the page shows it (without
    credentials the server's own URL may carry)."""
    kept = {f.name: getattr(prefs, f.name) for f in fields(prefs) if f.name != "api_key"}
    kept["base_url"] = shown_url(prefs.base_url) if prefs.base_url else ""
    return kept
