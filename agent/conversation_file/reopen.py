"""A downloaded conversation opened again to go on with it: what the chat needs of the zip
(`ui.conversations.reopen` makes it the page's conversation).

The zip is read within the viewer's bounds (`reader`), then held to what the page writes: the
person's words in each turn are no longer than the input takes (`Settings.max_message_chars`),
and every other text (an answer, a step, a label) no longer than `reader.MAX_STEP_CHARS`; every
image id has the page's shape (`img_3`); each image it lists is in it and passes the checks an
upload passes (`agent.images.store`: its bytes, its pixels, the memory decoding it takes, the
formats), and is prepared again as an upload is, under its own id, so that "img_2" in the next
turn is the same picture and a new upload is numbered after it. An image whose file is not the
one the page writes for its entry (named for another id, listed twice as two, or of another
size than the entry says) is left out: its turn says it is no longer available, as it says of
an image a turn names and the file does not list, and the rest opens. The agent's memory is the
file's `memory` (`ui.conversations.export`), read as `agent.session` keeps it; a download from
before the page wrote it gets one made from its turns: the person's words and images, how each
turn ended and its last words. Tools the person allowed for a whole conversation are not taken
from a file, which anyone may have written: the agent asks about them again.

Pure data, no gradio; blocking (files are read and images decoded): not on the event loop.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ..config import Settings
from ..dialogue import PendingTask
from ..events import export_trace
from ..images.store import ImageRef, ImageRejected, ImageStore
from ..messages import StepRecord
from ..session import PendingApproval, Turn
from .reader import (
    MAX_ENTRIES,
    MAX_TURNS,
    Conversation,
    UnreadableFile,
    ViewedTurn,
    load_conversation,
)

IMAGE_ID = re.compile(r"img_\d{1,9}")
# An image's facts that its file decides: read from the checked copy, never from the file's word.
_CHECKED = frozenset({"id", "width", "height", "media_type", "path", "digest"})


class RefusedImage(UnreadableFile):
    """An image the zip lists that the page would not take as an upload (`rejected`, the
    upload's refusal), or does not hold as an image at all (`rejected` None)."""

    def __init__(self, image_id: str, rejected: ImageRejected | None = None) -> None:
        super().__init__("bad_image", f"{image_id}: {rejected or 'not held as an image'}")
        self.image_id = image_id
        self.rejected = rejected


class Memory(BaseModel):
    """The agent's memory as the download keeps it (`ui.conversations.export.memory_data`)."""

    history: list[Turn] = Field(default_factory=list, max_length=MAX_TURNS)
    task: PendingTask | None = None
    approval: PendingApproval | None = None
    images: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_ENTRIES)


@dataclass
class Reopened:
    """A conversation to go on with: its turns as the download has them (each run of
    streamed pieces one event, images by id), the agent's memory of it, and its images,
    prepared in the folder it was opened into."""

    turns: list[dict[str, Any]]
    history: list[Turn]
    task: PendingTask | None
    approval: PendingApproval | None
    images: list[ImageRef]


def reopen_conversation(path: str | Path, folder: str | Path, settings: Settings) -> Reopened:
    """The downloaded conversation at `path`, its images prepared into `folder` as uploads
    are under `settings`' bounds. `UnreadableFile` (`RefusedImage` for an image) for a file
    that is not a zip of this page's, is damaged, or is larger than any it writes."""
    path, folder = Path(path), Path(folder)
    try:
        if not zipfile.is_zipfile(path):
            # A zip's first bytes without its end: cut short on its way, or damaged.
            with path.open("rb") as file:
                damaged = file.read(4) == b"PK\x03\x04"
            raise UnreadableFile("broken_zip" if damaged else "not_conversation", "not a zip")
    except OSError as exc:
        raise UnreadableFile("unreadable", str(exc)) from None
    unpacked, checking = folder / "unpacked", folder / "checking"
    try:
        conversation = load_conversation(path, unpacked)
        if conversation.missing_images:
            first = conversation.missing_images[0]
            # Refused as an upload of it is: Pillow will not open that many pixels.
            bomb = ImageRejected("bomb") if first in conversation.bombs else None
            raise RefusedImage(first, bomb)
        data = conversation.data
        listed = data["turns"]
        _check_words(conversation, settings.max_message_chars)
        _check_ids(data)
        uploads = {i for turn in listed for i in turn.get("images") or ()}
        memory = _memory(data.get("memory"))
        facts = {str(f.get("id")): f for f in memory.images} if memory is not None else {}
        store = ImageStore.for_settings(settings, root=checking)
        images: list[ImageRef] = []
        left_out = _unmatched(data.get("images") or [])
        for entry in data.get("images") or ():
            image_id = entry["id"]
            if image_id in left_out:
                continue
            left_out.add(image_id)  # the same entry again is the same picture
            source = conversation.images[image_id]
            fact = facts.get(image_id) or _old_facts(entry, image_id in uploads)
            ref = _checked(store, entry, source, fact, folder)
            if ref is not None:
                images.append(ref)
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)
        shutil.rmtree(checking, ignore_errors=True)
    turns = [
        _turn(viewed, said, n)
        for n, (viewed, said) in enumerate(zip(conversation.turns, listed, strict=True), 1)
    ]
    keep = settings.max_history_turns
    if memory is None:
        history = _rebuilt(conversation.turns, listed)[-keep:]
        return Reopened(turns, history, None, None, images)
    return Reopened(turns, memory.history[-keep:], memory.task, memory.approval, images)


def _check_words(conversation: Conversation, words_chars: int) -> None:
    """`UnreadableFile` ("too_big") unless the person's words, each turn's and each
    remembered turn's (`user_text` in the memory's history), are at most `words_chars`
    characters. Every other text the reader has held to MAX_STEP_CHARS already."""
    memory = conversation.data.get("memory")
    history = memory.get("history") if isinstance(memory, dict) else None
    history = history if isinstance(history, list) else []
    remembered = [t.get("user_text") for t in history if isinstance(t, dict)]
    # A turn's words that were no text in the file are read as one (`reader`).
    words = [turn.text for turn in conversation.turns]
    words += [text for text in remembered if isinstance(text, str)]
    if any(len(text) > words_chars for text in words):
        raise UnreadableFile("too_big", "a person's words are longer than the input takes")


def _check_ids(data: dict[str, Any]) -> None:
    """Every image the file lists or a turn names has an id of the page's shape."""
    entries = data.get("images") or []
    if not all(isinstance(e, dict) for e in entries):
        raise UnreadableFile("not_conversation", "an image that is no object")
    ids = [e.get("id") for e in entries]
    for turn in data["turns"]:
        named = turn.get("images") or []
        if not isinstance(named, list):
            raise UnreadableFile("not_conversation", "a turn's images are not a list")
        ids += named
    if not all(isinstance(i, str) and IMAGE_ID.fullmatch(i) for i in ids):
        raise UnreadableFile("not_conversation", "an image id this page does not give")


def _memory(value: Any) -> Memory | None:
    """The file's memory of the conversation; None in a download from before it had one."""
    if value is None:
        return None
    try:
        memory = Memory.model_validate(value)
        if memory.approval is not None:
            for step in memory.approval.steps:
                StepRecord.model_validate(step)
    except ValidationError as exc:
        raise UnreadableFile("not_conversation", f"memory: {str(exc)[:200]}") from None
    named = [i for turn in memory.history for i in turn.image_ids]
    if not all(IMAGE_ID.fullmatch(i) for i in named):
        raise UnreadableFile("not_conversation", "an image id this page does not give")
    return memory


def _old_facts(entry: dict[str, Any], uploaded: bool) -> dict[str, Any]:
    """What an older download says of an image: its label, an upload's file name."""
    label = str(entry.get("label") or "")
    return {"source_name": label} if uploaded else {"label": label}


def _unmatched(entries: list[dict[str, Any]]) -> set[str]:
    """The ids of the images whose file is not the one the page writes for them: named for
    another id (`images/<id>.<ext>`), or listed twice as two different ones. Each may be
    another picture than the conversation speaks of, so it is left out, and the turns that
    name it say it is no longer available, as a restored conversation says of an image
    gone; the rest of the conversation opens."""
    seen: dict[str, dict[str, Any]] = {}
    unmatched = set()
    for entry in entries:
        image_id = entry["id"]
        if PurePosixPath(str(entry.get("file") or "")).stem != image_id:
            unmatched.add(image_id)
        if seen.setdefault(image_id, entry) != entry:
            unmatched.add(image_id)
    return unmatched


def _checked(
    store: ImageStore, entry: dict[str, Any], source: str, fact: dict[str, Any], folder: Path
) -> ImageRef | None:
    """The image `source` checked and prepared as an upload, under the id of its `entry` in
    `folder`; None if its pixels are not the size the entry says (another picture than the
    conversation speaks of: left out, as `_unmatched`)."""
    image_id = entry["id"]
    try:
        ref = store.load(source)
    except ImageRejected as exc:
        raise RefusedImage(image_id, exc) from None
    if (entry.get("width"), entry.get("height")) != (ref.original_width, ref.original_height):
        return None
    target = folder / f"{image_id}-{secrets.token_hex(12)}{Path(ref.path).suffix}"
    # Copied, not moved: the same picture under two ids is one file of the store's.
    shutil.copyfile(ref.path, target)
    checked = ref.model_dump(include=set(_CHECKED))
    known = {k: v for k, v in fact.items() if k not in _CHECKED}
    base = ref.model_dump(exclude={"source_name", "label", *_CHECKED})
    try:
        return ImageRef.model_validate(
            {**base, **known, **checked, "id": image_id, "path": str(target)}
        )
    except ValidationError as exc:
        raise UnreadableFile("not_conversation", f"{image_id}: {str(exc)[:200]}") from None


def _turn(viewed: ViewedTurn, said: dict[str, Any], position: int) -> dict[str, Any]:
    """A turn as the download has it, read back: its events checked, without paths. It is
    numbered by its place, whatever the file says: the page numbers the next turn after the
    ones it has, so the numbers must be 1..n. How it ended is what its events say, as the page
    says it of a turn it restores (`ui.conversations.export.turn_status`)."""
    finished = next((e for e in viewed.events if e.type == "run_finished"), None)
    status = getattr(finished, "status", None) or "stopped"
    return {
        "number": position,
        "text": viewed.text,
        "images": list(said.get("images") or []),
        "status": status,
        "events": json.loads(export_trace(viewed.events)),
    }


def _rebuilt(turns: list[ViewedTurn], listed: list[dict[str, Any]]) -> list[Turn]:
    """The agent's memory as a turn leaves it (`agent.turn.TurnState.remember`), from the
    turns of a download that does not hold it: each turn that ran, with its words, its
    images, how it ended and its last words (an answer, or the question it asked)."""
    history = []
    for viewed, said in zip(turns, listed, strict=True):
        started = next((e for e in viewed.events if e.type == "run_started"), None)
        if started is None:
            continue  # refused or stopped before it ran: the agent never had it
        final = next((e for e in reversed(viewed.events) if e.type in _FINAL), None)
        outcome: Outcome = "stopped"
        if final is not None:
            outcome = "ended" if getattr(final, "ended", False) else _FINAL[final.type]
        reply = getattr(final, "text", None) or getattr(final, "question", None) or ""
        turn = Turn(
            user_text=viewed.text.strip(),
            image_ids=list(said.get("images") or []),
            reply=reply if outcome not in ("error", "stopped") else "",
            outcome=outcome,
            language=started.language,
            run_id=started.run_id,
        )
        history.append(turn)
    return history


Outcome = Literal["answered", "asked", "ended", "error", "stopped"]
_FINAL: dict[str, Outcome] = {
    "answer": "answered",
    "ask_user": "asked",
    "approval": "asked",
    "error": "error",
}
