"""A saved conversation made the page's again: its files copied into the new session, a
turn's uploads prepared if it was saved before they were.

A file is looked for only under `sessions_root()` by names of the shapes the server makes, and
an upload only in Gradio's upload folder; an image whose file has gone shows as no longer
available, to the person and to the agent (`agent.session.without_images`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from gradio.utils import get_upload_folder

from agent.events import TRACE_ADAPTER
from agent.images.store import ImageRejected
from agent.session import Turn, without_images
from tools.base import ImageRef

from ..page.state import PageState, TurnRecord, sessions_root
from ..trace.view import render
from .stored import IMAGE_ID, StoredConversation

# The names the server gives session folders and image files; nothing else is looked for.
_FOLDER = re.compile(r"session-[A-Za-z0-9_]{1,64}")
_FILE = re.compile(r"img_\d{1,9}-[0-9a-f]{8,64}\.(png|jpg|jpeg|webp|gif)")


def stored_file(folder: str, name: str) -> Path | None:
    """A saved image's file, if it is still on the server; only names the server makes."""
    if not _FOLDER.fullmatch(folder) or not _FILE.fullmatch(name):
        return None
    path = sessions_root() / folder / name
    return path if path.is_file() else None


def uploaded_file(path: str) -> Path | None:
    """A file the page uploaded, if it is still in Gradio's upload folder; nothing else is
    looked for (the folder where Gradio accepts an input's files, `processing_utils`)."""
    try:
        root = Path(get_upload_folder()).resolve()
        candidate = Path(path)
        if not candidate.is_absolute():
            return None
        found = candidate.resolve()
    except (OSError, ValueError, RuntimeError):
        return None
    if found == root or not found.is_relative_to(root) or not found.is_file():
        return None
    return found


def restore(state: PageState, data: dict[str, Any]) -> None:
    """Make `state` (fresh: no turns, no images yet) hold the saved conversation `data`, with
    the settings already restored. Raises ValueError (a ValidationError) if `data` does not
    read as a conversation. Blocking (files are copied, uploads prepared): not on the event
    loop."""
    saved = StoredConversation.model_validate(data)
    language = state.prefs.language
    store = state.session.images
    available: dict[str, ImageRef] = {}
    for ref in saved.images:
        source = stored_file(saved.folder, Path(ref.path).name)
        if source is None or ref.id in available:
            continue
        target = store.root / source.name
        try:
            shutil.copyfile(source, target)
        except OSError:
            continue
        available[ref.id] = ImageRef(**{**ref.model_dump(), "path": str(target)})
    mentioned = {i for turn in saved.turns for i in turn.images}
    mentioned |= {i for turn in saved.history for i in turn.image_ids}
    mentioned |= {ref.id for ref in saved.images}
    events_by_turn = [TRACE_ADAPTER.validate_python(turn.events) for turn in saved.turns]
    for events in events_by_turn:
        for event in events:
            mentioned |= {image.id for image in getattr(event, "images", ())}
    # Only ids of the server's shape are kept: they number the images that come later.
    gone = sorted(i for i in mentioned - set(available) if re.fullmatch(IMAGE_ID, i))
    store.restore(list(available.values()), reserved=gone)
    state.turns = []
    last_turn = saved.turns[-1] if saved.turns else None
    for turn, events in zip(saved.turns, events_by_turn, strict=True):
        for event in events:
            for image in getattr(event, "images", ()):
                image.path = available[image.id].path if image.id in available else ""
        view = render(events, turn.number, language, turn.text)
        if not view.done:
            view.stop()
        refs = [available[i] for i in turn.images if i in available]
        if turn is last_turn and not turn.images and turn.uploads:
            # Only the last turn can have been saved before its images were prepared.
            refs = _prepared(store, turn.uploads[: state.env.max_images_per_message])
        state.turns.append(
            TurnRecord(
                text=turn.text,
                refs=refs,
                view=view,
                events=events,
                gone=[i for i in turn.images if i not in available],
            )
        )
    # Retry of the last turn starts from before it when the agent remembered it: a turn that
    # ended is remembered, and a stopped one once its stopped record was kept (`agent.runner`).
    last = state.turns[-1] if state.turns else None
    remembered = last is not None and _remembered_last(saved.history, state.run_id(last), last)
    state.session.restore(
        [without_images(turn, set(gone)) for turn in saved.history],
        saved.task,
        last_run_id=state.run_id(last) if remembered and last is not None else "",
        approval=saved.approval,
        allowed_tools=saved.allowed_tools,
    )
    state.conversation_id = saved.id
    if state.turns:
        state.write_trace(state.turns[-1])


def _remembered_last(history: list[Turn], run_id: str, last: TurnRecord) -> bool:
    """Whether the agent's memory ends with the page's last turn."""
    if history and history[-1].run_id:
        return history[-1].run_id == run_id
    return last.view.final is not None  # kept before turns carried their run


def _prepared(store: Any, uploads: list[str]) -> list[ImageRef]:
    """The uploads of a turn that had not prepared them, prepared now (those still there and
    usable), so that the turn shows them and Retry sends them."""
    refs: list[ImageRef] = []
    for upload in uploads:
        path = uploaded_file(upload)
        if path is None:
            continue
        try:
            ref = store.load(path)
        except ImageRejected:
            continue
        if all(r.id != ref.id for r in refs):
            refs.append(ref)
    return refs
