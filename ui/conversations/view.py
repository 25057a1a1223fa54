"""Showing a finished conversation read-only: one read from a file
(`agent.conversation_file`) or a scenario run.

Pure data, no gradio and no model: `viewer_values` makes the chat and the trace panel the main
page would show for the turns, through the same `TurnView` and `page_values`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent.conversation_file import ViewedTurn, safe_name
from agent.events import load_trace

from ..page.values import (
    ReadConversation,
    ReadImage,
    ReadPrefs,
    ReadTurn,
    chat_messages,
    trace_messages,
)
from ..trace.view import TurnView, render


def scenario_turns(result: Any, base: Path | None, folder: str | Path) -> list[ViewedTurn]:
    """A scenario run (`agent.scenarios.RunResult`) as turns to view. Its images are named
    from the folder `base` (None: they cannot be shown) and copied into `folder`, which the
    page serves."""
    turns = []
    folder = Path(folder)
    for turn in result.turns:
        try:
            events = load_trace(json.dumps(turn.events))
        except (ValidationError, ValueError):
            events = []
        images = []
        for name in turn.images if base is not None else ():
            source = base / name
            if source.is_file():
                folder.mkdir(parents=True, exist_ok=True)
                target = folder / f"{safe_name(source.stem)}{source.suffix.lower()}"
                shutil.copyfile(source, target)
                images.append(str(target))
        turns.append(ViewedTurn(text=turn.user, events=events, images=images))
    return turns


def _image_ids(turn: ViewedTurn) -> list[str]:
    """The ids the turn's images had, from its `run_started` event; else each file's name,
    which the page's download gives as `<id>-<token>`."""
    started = next((e for e in turn.events if e.type == "run_started"), None)
    ids = [image.id for image in started.images] if started is not None else []
    if len(ids) == len(turn.images):
        return ids
    return [Path(path).stem.partition("-")[0] for path in turn.images]


def viewer_values(turns: list[ViewedTurn], language: str) -> tuple[list, list]:
    """The chat and the trace for `turns`, as the main page shows a conversation."""
    records: list[ReadTurn] = []
    for number, turn in enumerate(turns, 1):
        view: TurnView = render(turn.events, number, language, turn.text)
        if not view.done:
            view.stop()  # a turn that never finished stays finished here: nothing runs on
        refs = [
            ReadImage(path, image_id)
            for path, image_id in zip(turn.images, _image_ids(turn), strict=True)
            if Path(path).is_file()
        ]
        records.append(ReadTurn(turn.text, refs, view))
    shown = ReadConversation(records, ReadPrefs(language))
    # An older trace does not hold the person's words: no empty bubble stands for them.
    said = iter([turn.said for turn in turns])
    chat = [m for m in chat_messages(shown) if m["role"] != "user" or next(said)]
    return chat, trace_messages(shown)
