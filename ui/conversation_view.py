"""Showing a finished conversation read-only: a downloaded conversation zip (the format of
`ui.conversation_export`), an older single-turn trace JSON, or a scenario run.

Pure data, no gradio and no model: a file becomes a `Conversation` (turns with the person's
words, their images on disk and the turn's events), and `viewer_values` makes the chat and the
trace panel the main page would show for it, through the same `TurnView` and `page_values`.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from PIL import Image
from pydantic import ValidationError

from agent.events import load_trace

from .conversation_export import FORMAT, VERSION
from .page_values import chat_messages, trace_messages
from .trace_view import TurnView, render

# What one opened file may unpack to: a conversation's JSON, and each of its images.
MAX_JSON_BYTES = 50 * 1024 * 1024
MAX_IMAGE_BYTES = 40 * 1024 * 1024
MAX_IMAGES_BYTES = 200 * 1024 * 1024  # all of them together
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp"}


class UnreadableFile(ValueError):
    """A file the viewer cannot show. `reason` names the page sentence that says why
    (`viewer_<reason>` in assets/ui_text.json); `detail` is for the log."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class ViewedTurn:
    text: str
    events: list[Any]
    images: list[str] = field(default_factory=list)  # paths of the person's images, on disk
    status: str = ""
    # False when the file does not hold what the person said (an older trace).
    said: bool = True


@dataclass
class Conversation:
    turns: list[ViewedTurn]
    # Images the file names but does not hold (or holds as something that is not an image).
    missing_images: list[str] = field(default_factory=list)


def load_conversation(path: str | Path, folder: str | Path) -> Conversation:
    """The conversation in the file at `path`; its images are unpacked into `folder` (which
    the page may serve). `UnreadableFile` for anything that is not a conversation."""
    path, folder = Path(path), Path(folder)
    if zipfile.is_zipfile(path):
        return _from_zip(path, folder)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile("unreadable", str(exc)) from None
    if len(data) > MAX_JSON_BYTES:
        raise UnreadableFile("too_big")
    return _from_trace(data)


def _from_trace(data: bytes) -> Conversation:
    """An older download: one turn's events, without the person's words."""
    try:
        events = load_trace(data)
    except (ValidationError, ValueError) as exc:
        raise UnreadableFile("not_conversation", str(exc)[:200]) from None
    if not isinstance(events, list) or not events:
        raise UnreadableFile("not_conversation", "no events")
    return Conversation([ViewedTurn(text="", events=events, said=False)])


def _from_zip(path: Path, folder: Path) -> Conversation:
    try:
        with zipfile.ZipFile(path) as archive:
            data = _conversation_json(archive)
            paths, missing = _unpack_images(archive, data.get("images") or [], folder)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError, ValueError) as exc:
        if isinstance(exc, UnreadableFile):
            raise
        raise UnreadableFile("broken_zip", str(exc)) from None
    turns = []
    try:
        for turn in data.get("turns") or []:
            events = load_trace(json.dumps(turn.get("events") or []))
            for event in events:
                for image in getattr(event, "images", None) or ():
                    image.path = paths.get(image.id, "")
            shown = [paths[i] for i in turn.get("images") or [] if i in paths]
            turns.append(
                ViewedTurn(
                    text=str(turn.get("text") or ""),
                    events=events,
                    images=shown,
                    status=str(turn.get("status") or ""),
                )
            )
    except (ValidationError, ValueError, TypeError, AttributeError) as exc:
        raise UnreadableFile("not_conversation", str(exc)[:200]) from None
    if not turns:
        raise UnreadableFile("no_turns")
    return Conversation(turns, missing)


def _conversation_json(archive: zipfile.ZipFile) -> dict[str, Any]:
    try:
        info = archive.getinfo("conversation.json")
    except KeyError:
        raise UnreadableFile("not_conversation", "no conversation.json") from None
    if info.file_size > MAX_JSON_BYTES:
        raise UnreadableFile("too_big")
    try:
        data = json.loads(archive.read(info).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UnreadableFile("not_conversation", str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UnreadableFile("not_conversation", "another format")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise UnreadableFile("newer", str(data.get("version")))
    return data


def _unpack_images(
    archive: zipfile.ZipFile, entries: list[Any], folder: Path
) -> tuple[dict[str, str], list[str]]:
    """Each listed image that the zip holds and that is an image, under a name of our own
    (never the one in the zip, which could point anywhere); the ids of the others."""
    paths: dict[str, str] = {}
    missing: list[str] = []
    names = set(archive.namelist())
    room = MAX_IMAGES_BYTES
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("id"):
            continue
        image_id = str(entry["id"])
        inside = str(entry.get("file") or "")
        suffix = Path(inside).suffix.lower()
        if inside not in names or suffix not in IMAGE_SUFFIXES:
            missing.append(image_id)
            continue
        info = archive.getinfo(inside)
        if info.file_size > min(MAX_IMAGE_BYTES, room):
            missing.append(image_id)
            continue
        room -= info.file_size
        data = archive.read(info)
        if not _is_image(data):
            missing.append(image_id)
            continue
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{_safe_name(image_id)}{suffix}"
        target.write_bytes(data)
        paths[image_id] = str(target)
    return paths, missing


def _is_image(data: bytes) -> bool:
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
    except Exception:  # PIL raises many kinds for bytes that are not an image
        return False
    return True


def _safe_name(image_id: str) -> str:
    # The trace names a served image after the part of its file name before the first dash.
    return re.sub(r"[^A-Za-z0-9_.]", "_", image_id)[:64] or "image"


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
                target = folder / f"{_safe_name(source.stem)}{source.suffix.lower()}"
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
    records = []
    for number, turn in enumerate(turns, 1):
        view: TurnView = render(turn.events, number, language, turn.text)
        if not view.done:
            view.stop()  # a turn that never finished stays finished here: nothing runs on
        refs = [
            SimpleNamespace(path=path, id=image_id)
            for path, image_id in zip(turn.images, _image_ids(turn), strict=True)
            if Path(path).is_file()
        ]
        records.append(SimpleNamespace(text=turn.text, refs=refs, view=view, gone=[]))
    shown = SimpleNamespace(turns=records, prefs=SimpleNamespace(language=language))
    # An older trace does not hold the person's words: no empty bubble stands for them.
    said = iter([turn.said for turn in turns])
    chat = [m for m in chat_messages(shown) if m["role"] != "user" or next(said)]
    return chat, trace_messages(shown)
