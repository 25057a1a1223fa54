"""Reading a finished conversation from a file: a downloaded conversation zip (the format the
page writes, `ui.conversations.export`) or an older single-turn trace JSON, within bounds.

Pure data, no gradio and no model: a file becomes a `Conversation` (turns with the person's
words, their images on disk and the turn's events); the page's viewer shows it, and
`agent.scenarios.record` writes it as a scenario.
"""

from __future__ import annotations

import io
import json
import re
import struct
import warnings
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import ValidationError

from agent.events import load_trace

from ..json_bounds import OutOfBounds, check_strings, check_text, check_value
from .format import FORMAT, VERSION, joined

# What one opened file may hold, checked before any of it is unpacked or parsed: entries of
# the zip (conversation.json and the images) and the bytes of its list of them; then what the
# conversation's JSON may unpack to, the lists and objects in it, and once it is parsed its
# turns, images and events (streamed pieces joined, as the page keeps them). A file past any
# of these is refused with one sentence; past none, reading and showing it costs a bounded
# time and memory whatever it holds.
MAX_ENTRIES = 2_000
MAX_DIRECTORY_BYTES = MAX_ENTRIES * 512
MAX_JSON_BYTES = 8 * 1024 * 1024
MAX_CONTAINERS = 250_000
MAX_TURNS = 1_000
MAX_TURN_EVENTS = 1_000  # a turn of 50 steps, each with its calls, has fewer
# All turns' together: a conversation the page keeps (100 turns) has a few thousand. Checking
# events holds the interpreter whole (pydantic's core), so this bounds how long others wait.
MAX_EVENTS = 5_000
# The longest text one answer or step of the page's own download holds, with room to spare: a
# model's reply stops at 2,048 tokens of at most 8 characters (`agent.models.openai_compat`),
# and a tool's text is a few thousand characters. The browser draws every text of a turn it
# shows; one of 7 million characters held a tab for minutes.
MAX_STEP_CHARS = 64_000
MAX_IMAGE_BYTES = 40 * 1024 * 1024
MAX_IMAGES_BYTES = 200 * 1024 * 1024  # all of them together
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp"}
_CHUNK = 1024 * 1024
# The end of a zip: its signature, then the number of entries and the size of their list.
_END = struct.Struct("<4s4H2LH")
_END_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_LOCATOR_BYTES = 20


class UnreadableFile(ValueError):
    """A file the viewer cannot show. `reason` names the page sentence that says why
    (`page.viewer_<reason>` in the word catalogs); `detail` is for the log; `unpacked` the bytes
    decompressed before it was refused."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        self.unpacked = 0


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
    # Of those, the ones it holds as an image of more pixels than can be decoded safely.
    bombs: list[str] = field(default_factory=list)
    unpacked: int = 0  # bytes decompressed to read it
    # What a zip said, parsed (within the bounds above), and its images unpacked, by id: what
    # opening it again in the chat reads (`agent.conversation_file.reopen`).
    data: dict[str, Any] = field(default_factory=dict)
    images: dict[str, str] = field(default_factory=dict)


class _Unpacking:
    """What one zip's reading has decompressed so far."""

    def __init__(self) -> None:
        self.unpacked = 0

    def read(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes:
        """The entry's bytes; `UnreadableFile` as soon as they pass `cap`, whatever its
        header says (zipfile trusts the header's size, but it is the sender's word)."""
        if info.file_size > cap:
            raise UnreadableFile("too_big", f"{info.filename} says {info.file_size} bytes")
        parts = []
        with archive.open(info) as member:
            while chunk := member.read(_CHUNK):
                self.unpacked += len(chunk)
                cap -= len(chunk)
                if cap < 0:
                    raise UnreadableFile("too_big", f"{info.filename} holds more than it says")
                parts.append(chunk)
        data = b"".join(parts)
        # Fewer bytes than its header says, checked whole by their CRC: the zip's list of
        # entries is not the one written with them.
        if len(data) != info.file_size:
            raise UnreadableFile("broken_zip", f"{info.filename} holds less than it says")
        return data


def load_conversation(path: str | Path, folder: str | Path) -> Conversation:
    """The conversation in the file at `path`; its images are unpacked into `folder` (which
    the page may serve). `UnreadableFile` for anything that is not a conversation, or is
    larger than any conversation the page writes."""
    path, folder = Path(path), Path(folder)
    if zipfile.is_zipfile(path):
        unpacking = _Unpacking()
        try:
            conversation = _from_zip(path, folder, unpacking)
        except UnreadableFile as exc:
            exc.unpacked = unpacking.unpacked
            raise
        conversation.unpacked = unpacking.unpacked
        return conversation
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            raise UnreadableFile("too_big")
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile("unreadable", str(exc)) from None
    return _from_trace(data)


def _from_trace(data: bytes) -> Conversation:
    """An older download: one turn's events, without the person's words."""
    value = _parsed(data)
    if not isinstance(value, list) or not value:
        raise UnreadableFile("not_conversation", "no events")
    return Conversation([ViewedTurn(text="", events=_events(value), said=False)])


def _parsed(data: bytes) -> Any:
    """The JSON text `data` (at most MAX_JSON_BYTES), within the bounds above."""
    try:
        check_text(data, MAX_CONTAINERS)
        value = json.loads(data)
        check_value(value, MAX_JSON_BYTES)
        check_strings(value, MAX_STEP_CHARS)
    except OutOfBounds as exc:
        # Nested deeper than the page writes is past a bound as much as larger is.
        raise UnreadableFile("too_big", str(exc)) from None
    except RecursionError as exc:
        raise UnreadableFile("too_big", str(exc)[:200]) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UnreadableFile("not_conversation", str(exc)[:200]) from None
    return value


def _events(listed: Any, room: int = MAX_TURN_EVENTS) -> list[Any]:
    """A turn's events from their JSON (a list of objects), streamed pieces joined; no more
    than `room` of them."""
    if not isinstance(listed, list):
        raise UnreadableFile("not_conversation", "events are not a list")
    try:
        kept = joined(listed)
        if len(kept) > room:
            raise UnreadableFile("too_big", f"more than {room} events")
        # Pieces short enough each can join into a step longer than the page writes.
        if any(len(str(event.get("text") or "")) > MAX_STEP_CHARS for event in kept):
            raise UnreadableFile("too_big", "a step longer than any the page writes")
        return load_trace(json.dumps(kept))
    except (ValidationError, ValueError, TypeError, AttributeError, KeyError) as exc:
        if isinstance(exc, UnreadableFile):
            raise
        raise UnreadableFile("not_conversation", str(exc)[:200]) from None


def _from_zip(path: Path, folder: Path, unpacking: _Unpacking) -> Conversation:
    _check_directory(path)
    try:
        with zipfile.ZipFile(path) as archive:
            _check_entries(archive)
            data = _conversation_json(archive, unpacking)
            listed = _turns(data)
            turns = _viewed_turns(listed)
            entries = data.get("images") or []
            paths, missing, bombs = _unpack_images(archive, entries, folder, unpacking)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError, ValueError) as exc:
        if isinstance(exc, UnreadableFile):
            raise
        raise UnreadableFile("broken_zip", str(exc)) from None
    for turn, shown in zip(turns, listed, strict=True):
        for event in turn.events:
            for image in getattr(event, "images", None) or ():
                image.path = paths.get(image.id, "")
        ids = shown.get("images") or []
        ids = ids if isinstance(ids, list) else []
        turn.images = [paths[i] for i in ids if isinstance(i, str) and i in paths]
    return Conversation(turns, missing, bombs, data=data, images=paths)


def _check_directory(path: Path) -> None:
    """Refuse a zip whose list of entries is longer than a conversation's, from its last
    bytes, before zipfile reads that list (it makes an object of every entry)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            # The end record, its comment, and what may come before it.
            file.seek(max(0, size - _END.size - (1 << 16) - _ZIP64_LOCATOR_BYTES))
            tail = file.read()
    except OSError as exc:
        raise UnreadableFile("unreadable", str(exc)) from None
    at = tail.rfind(_END_SIGNATURE)
    if at < 0 or len(tail) - at < _END.size:
        raise UnreadableFile("broken_zip", "no end record")
    *_, entries, directory_bytes, _, _ = _END.unpack_from(tail, at)
    # A zip64 file says 0xFFFF and 0xFFFFFFFF here, or says its sizes in a record before
    # this one that zipfile would read instead: the page never writes one.
    zip64 = tail[max(0, at - _ZIP64_LOCATOR_BYTES) : at].startswith(_ZIP64_LOCATOR)
    if zip64 or entries > MAX_ENTRIES or directory_bytes > MAX_DIRECTORY_BYTES:
        raise UnreadableFile("too_big", f"{entries} entries in {directory_bytes} bytes")


def _check_entries(archive: zipfile.ZipFile) -> None:
    """Every entry's size as its header gives it, and all of them together."""
    infos = archive.infolist()
    total = sum(info.file_size for info in infos)
    if len(infos) > MAX_ENTRIES or total > MAX_JSON_BYTES + MAX_IMAGES_BYTES:
        raise UnreadableFile("too_big", f"{len(infos)} entries of {total} bytes")
    # The page names its entries plainly; a name that climbs out of a folder or starts at the
    # root is another program's (nothing here writes a file under a name from the zip).
    for info in infos:
        name = info.filename
        if name.startswith("/") or "\\" in name or ".." in name.split("/"):
            raise UnreadableFile("not_conversation", f"an entry named {name[:200]!r}")


def _conversation_json(archive: zipfile.ZipFile, unpacking: _Unpacking) -> dict[str, Any]:
    try:
        info = archive.getinfo("conversation.json")
    except KeyError:
        raise UnreadableFile("not_conversation", "no conversation.json") from None
    data = _parsed(unpacking.read(archive, info, MAX_JSON_BYTES))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UnreadableFile("not_conversation", "another format")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise UnreadableFile("newer", str(data.get("version")))
    return data


def _turns(data: dict[str, Any]) -> list[dict[str, Any]]:
    turns, images = data.get("turns") or [], data.get("images") or []
    if not isinstance(turns, list) or not all(isinstance(turn, dict) for turn in turns):
        raise UnreadableFile("not_conversation", "turns are not a list of objects")
    if not isinstance(images, list):
        raise UnreadableFile("not_conversation", "images are not a list")
    if len(turns) > MAX_TURNS or len(images) > MAX_ENTRIES:
        raise UnreadableFile("too_big", f"{len(turns)} turns, {len(images)} images")
    if not turns:
        raise UnreadableFile("no_turns")
    return turns


def _viewed_turns(listed: list[dict[str, Any]]) -> list[ViewedTurn]:
    turns, room = [], MAX_EVENTS
    for turn in listed:
        events = _events(turn.get("events") or [], min(room, MAX_TURN_EVENTS))
        room -= len(events)
        text, status = str(turn.get("text") or ""), str(turn.get("status") or "")
        turns.append(ViewedTurn(text=text, events=events, status=status))
    return turns


def _unpack_images(
    archive: zipfile.ZipFile, entries: list[Any], folder: Path, unpacking: _Unpacking
) -> tuple[dict[str, str], list[str], list[str]]:
    """Each listed image that the zip holds and that is an image, under a name of our own
    (never the one in the zip, which could point anywhere); the ids of the others, and of
    those the ones of too many pixels to decode."""
    paths: dict[str, str] = {}
    missing: list[str] = []
    bombs: list[str] = []
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
        data = unpacking.read(archive, info, info.file_size)
        problem = _image_problem(data)
        if problem is not None:
            missing.append(image_id)
            if problem == "bomb":
                bombs.append(image_id)
            continue
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{safe_name(image_id)}{suffix}"
        target.write_bytes(data)
        paths[image_id] = str(target)
    return paths, missing, bombs


def _image_problem(data: bytes) -> str | None:
    """None for an image; "bomb" for one of more pixels than Pillow opens at all, which an
    upload refuses the same way; "not_image" for anything else."""
    try:
        # Pillow's warning about a large image is noise in the log: nothing is decoded here.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as image:
                image.verify()
    except Image.DecompressionBombError:
        return "bomb"
    except Exception:  # PIL raises many kinds for bytes that are not an image
        return "not_image"
    return None


def safe_name(image_id: str) -> str:
    # The trace names a served image after the part of its file name before the first dash.
    return re.sub(r"[^A-Za-z0-9_.]", "_", image_id)[:64] or "image"
