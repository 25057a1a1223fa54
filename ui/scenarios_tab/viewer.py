"""What the Scenarios tab's viewer shows (a scenario's run, or an opened conversation file),
kept as data with the files it shows, so that a change of language draws it again in the new
language without reading or copying anything again.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from ..conversations.view import viewer_values
from ..labels import language_key
from ..page.state import sessions_root
from .said import Said


@dataclass(frozen=True)
class Viewed:
    """The viewer's title, a sentence under it (why a scenario has no conversation), and the
    turns it shows (`ui.conversations.view.ViewedTurn`)."""

    title: Said
    note: Said | None = None
    turns: tuple[Any, ...] = ()
    # Of a scenario run (not a conversation file opened): a new run's results replace it.
    of_run: bool = True

    def drawn(self, language: str) -> tuple[str, list, list]:
        """The title's Markdown, the chat and the trace in `language`."""
        title = f"**{self.title.markdown(language)}**"
        if self.note is not None:
            title += f"  \n{self.note.markdown(language)}"
        if not self.turns:
            return title, [], []
        chat, trace = viewer_values(list(self.turns), language)
        return title, chat, trace


class ViewerFiles:
    """The files one session's viewer shows (images of an opened conversation or a scenario),
    under the folder the page serves, and what it shows (`viewed`); each new view replaces
    the one before."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="viewer-", dir=sessions_root()))
        self.current: Path | None = None
        self.viewed: Viewed | None = None

    def fresh(self) -> Path:
        # The idle sweep removes what no conversation owns once nobody used it for a while.
        self.root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="view-", dir=self.root))

    def shown(self, folder: Path | None, viewed: Viewed | None = None) -> None:
        """`folder` is on screen now, with `viewed`; the one that was goes."""
        if self.current is not None and self.current != folder:
            shutil.rmtree(self.current, ignore_errors=True)
        self.current = folder
        self.viewed = viewed

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def emptied(files: ViewerFiles | None) -> tuple:
    """The viewer emptied when it shows a scenario's run, which a new run's results replace
    (an opened conversation file stays): its title, chat, trace and files."""
    viewed = files.viewed if files is not None else None
    if files is None or viewed is None or not viewed.of_run:
        return gr.skip(), gr.skip(), gr.skip(), files
    files.shown(None)
    return "", [], [], files


def redrawn(language: str, files: ViewerFiles | None) -> tuple:
    """The viewer drawn again in `language` from what it keeps; with nothing kept, it stays."""
    viewed = files.viewed if files is not None else None
    if viewed is None:
        return gr.skip(), gr.skip(), gr.skip()
    return viewed.drawn(language_key(language))
