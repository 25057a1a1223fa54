"""A cleared conversation kept a moment, so that Clear can be undone (`PageState.set_aside`)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.session import Session

    from .state import TurnRecord


@dataclass
class SetAside:
    """What left the page: its id, turns, download and session with their folders (the
    images', the trace's), and when (`time.monotonic`). `saved_at` is when the browser's copy
    was last saved, for the list's order once it is back."""

    conversation_id: str
    turns: list[TurnRecord]
    trace_file: str | None
    session: Session | None
    folders: tuple[str | None, str | None]
    at: float
    saved_at: float | None = None

    def drop(self) -> None:
        remove(*self.folders)


def remove(*folders: str | None) -> None:
    for folder in folders:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
