"""The conversations a browser keeps: one page's conversation as a JSON value and back.

The value lives in the browser's localStorage (`gr.BrowserState`, wired by
`ui.history_panel`), so a reload or a closed tab loses nothing:

    {"format": "multimodal-react-agent/history", "version": 1, "current": <id or null>,
     "conversations": [<conversation>, ...],          newest first, at most MAX_CONVERSATIONS
     "prefs": <the page's latest settings>}           for a reload before the first message

Each conversation is {"id", "title", "saved_at", "turns" (the turns of the page's download,
`ui.conversation_export.conversation_data`, each run of streamed pieces kept as one event),
"history" and "task" (the agent's memory, `agent.session`), "images" (each image's
`ImageRef` with `path` the file's name alone), "folder" (the name of the session folder the
files are in) and "prefs" (the settings, never the API key)}. The files themselves stay on the
server: a restore copies those still there into the new session, and an image whose file has
gone shows as no longer available, to the person and to the agent
(`agent.session.without_images`).

Whatever the browser sends back is untrusted: its size and depth are bounded before it is
validated (the request that carries it is capped too, `ui.body_limit`), a file is looked for
only under `sessions_root()` by names of the shapes the server makes, and a value that does
not read is set aside whole or conversation by conversation, with one notice.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.dialogue import PendingTask
from agent.events import TRACE_ADAPTER
from agent.session import Turn, without_images
from tools.base import ImageRef

from .access import shown_url
from .conversation_export import conversation_data
from .json_bounds import check_value
from .labels import t
from .page_state import PageState, Prefs, TurnRecord, sessions_root
from .trace_view import render

FORMAT = "multimodal-react-agent/history"
VERSION = 1
MAX_CONVERSATIONS = 10
# The stored JSON, in UTF-8 bytes. The browser stores it encrypted and in base64 (4 characters
# for 3 bytes), and most browsers give a site 5 million characters.
MAX_BYTES = 1_500_000
TITLE_CHARS = 60
# Events that stream in small pieces: a run of them is kept as one, which shows the same.
_PIECES = {"model_delta": "step", "answer_delta": None, "tool_progress": "call_id"}
# The names the server gives session folders and image files; nothing else is looked for.
_FOLDER = re.compile(r"session-[A-Za-z0-9_]{1,64}")
_FILE = re.compile(r"img_\d{1,9}-[0-9a-f]{8,64}\.(png|jpg|jpeg|webp|gif)")
_ID = re.compile(r"[0-9a-f]{1,32}")
_IMAGE_ID = r"^img_\d{1,9}$"


ImageId = Annotated[str, Field(pattern=_IMAGE_ID)]


class StoredImage(ImageRef):
    id: ImageId


class StoredTurn(BaseModel):
    number: int = Field(ge=1)
    text: str
    images: list[ImageId] = Field(default_factory=list)
    status: str = "answered"
    events: list[dict[str, Any]] = Field(default_factory=list)


class StoredConversation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(pattern=f"^{_ID.pattern}$")
    title: str = ""
    saved_at: float = 0.0
    turns: list[StoredTurn]
    history: list[Turn] = Field(default_factory=list)
    task: PendingTask | None = None
    images: list[StoredImage] = Field(default_factory=list)
    folder: str = ""
    prefs: dict[str, Any] = Field(default_factory=dict)


class Stored(BaseModel):
    format: Literal["multimodal-react-agent/history"]
    version: Literal[1]
    current: str | None = None
    conversations: list[Any] = Field(default_factory=list)
    prefs: dict[str, Any] = Field(default_factory=dict)


def empty(current: str | None = None) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "current": current, "conversations": []}


def size_of(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def read(value: Any) -> tuple[dict[str, Any], bool]:
    """The stored value, checked, and whether any of it had to be set aside. Nothing stored
    (None) is an empty history, not a problem."""
    if value is None:
        return empty(), False
    try:
        # The walk stops at the bounds, so a value of any size or depth costs little to refuse;
        # then the exact size, and only then the validation (`ui.json_bounds`).
        check_value(value, MAX_BYTES)
        if size_of(value) > MAX_BYTES:
            return empty(), True
        stored = Stored.model_validate(value)
    except (ValidationError, TypeError, ValueError, RecursionError):
        return empty(), True
    kept, problem, seen = [], False, set()
    for item in stored.conversations:
        try:
            conversation = StoredConversation.model_validate(item)
            for turn in conversation.turns:
                TRACE_ADAPTER.validate_python(turn.events)
        except (ValidationError, TypeError, ValueError):
            problem = True
            continue
        if conversation.id not in seen and len(kept) < MAX_CONVERSATIONS:
            seen.add(conversation.id)
            kept.append(item)
    current = stored.current if stored.current in seen else None
    value = {**empty(current), "conversations": kept}
    if valid_prefs(stored.prefs):
        value["prefs"] = stored.prefs
    return value, problem


def title_of(text: str, language: str) -> str:
    words = " ".join(text.split())
    if not words:
        return t("untitled", language)
    return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1] + "…"


def snapshot(
    state: PageState, now: float | None = None, pending: str | None = None
) -> dict[str, Any] | None:
    """The page's conversation as the browser keeps it; None when it has no turns. `pending`
    is the words of a message taken whose turn has not started yet: kept as a turn that has
    not got anywhere (its images are kept once it starts)."""
    if not state.turns and pending is None:
        return None
    data, _ = conversation_data(state.turns)
    turns = data["turns"]
    for turn in turns:
        turn["events"] = joined(turn["events"])
    if pending is not None:
        # Numbered as its turn will be (`ui.turns`).
        number = len(state.turns) + 1
        turns.append({"number": number, "text": pending, "images": [], "status": "running"})
    session = state.session
    refs = session.images.refs()
    images = [
        {**ref.model_dump(mode="json", exclude={"path"}), "path": Path(ref.path).name}
        for ref in refs
    ]
    return {
        "id": state.conversation_id,
        "title": title_of(turns[0]["text"], state.prefs.language),
        "saved_at": time.time() if now is None else now,
        "turns": turns,
        "history": [turn.model_dump(mode="json") for turn in session.history],
        "task": session.task.model_dump(mode="json") if session.task else None,
        "images": images,
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


def put(saved: dict[str, Any], conversation: dict[str, Any] | None, current: str) -> dict[str, Any]:
    """`saved` with the page's conversation (`current`) first, or without it when it is empty,
    cut to MAX_CONVERSATIONS and MAX_BYTES: the oldest conversations go first, then the
    current one's oldest turns."""
    others = [c for c in saved.get("conversations", []) if c.get("id") != current]
    conversations = ([conversation] if conversation else []) + others
    value = _with_prefs(
        {**empty(current), "conversations": conversations[:MAX_CONVERSATIONS]}, saved
    )
    while size_of(value) > MAX_BYTES and len(value["conversations"]) > 1:
        value["conversations"].pop()
    if conversation and size_of(value) > MAX_BYTES:
        turns = list(conversation["turns"])
        while turns and size_of(value) > MAX_BYTES:
            turns.pop(0)
            value["conversations"] = [{**conversation, "turns": turns}]
        if not turns:
            value["conversations"] = []
    return value


def drop(saved: dict[str, Any], conversation_id: str) -> dict[str, Any]:
    kept = [c for c in saved.get("conversations", []) if c.get("id") != conversation_id]
    current = saved.get("current")
    value = {**empty(None if current == conversation_id else current), "conversations": kept}
    return _with_prefs(value, saved)


def _with_prefs(value: dict[str, Any], saved: dict[str, Any]) -> dict[str, Any]:
    """`value`, with the page's latest settings that `saved` holds, if any."""
    return {**value, "prefs": saved["prefs"]} if saved.get("prefs") else value


def find(saved: dict[str, Any] | None, conversation_id: str | None) -> dict[str, Any] | None:
    for conversation in (saved or {}).get("conversations", []):
        if conversation.get("id") == conversation_id:
            return conversation
    return None


def past(saved: dict[str, Any] | None, current: str | None) -> list[tuple[str, str]]:
    """(title, id) of each saved conversation but the page's own, newest first."""
    return [
        (str(c.get("title") or c.get("id")), str(c.get("id")))
        for c in (saved or {}).get("conversations", [])
        if c.get("id") != current
    ]


def stored_file(folder: str, name: str) -> Path | None:
    """A saved image's file, if it is still on the server; only names the server makes."""
    if not _FOLDER.fullmatch(folder) or not _FILE.fullmatch(name):
        return None
    path = sessions_root() / folder / name
    return path if path.is_file() else None


def restore(state: PageState, data: dict[str, Any]) -> None:
    """Make `state` (fresh: no turns, no images yet) hold the saved conversation `data`, with
    the settings already restored. Raises ValueError (a ValidationError) if `data` does not
    read as a conversation."""
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
    gone = sorted(i for i in mentioned - set(available) if re.fullmatch(_IMAGE_ID, i))
    store.restore(list(available.values()), reserved=gone)
    state.turns = []
    for turn, events in zip(saved.turns, events_by_turn, strict=True):
        for event in events:
            for image in getattr(event, "images", ()):
                image.path = available[image.id].path if image.id in available else ""
        view = render(events, turn.number, language, turn.text)
        if not view.done:
            view.stop()
        state.turns.append(
            TurnRecord(
                text=turn.text,
                refs=[available[i] for i in turn.images if i in available],
                view=view,
                events=events,
                gone=[i for i in turn.images if i not in available],
            )
        )
    # Retry of the last turn starts from before it when the agent remembered it: a turn that
    # ended with an answer, a question or an error is remembered (`agent.runner`).
    last = state.turns[-1] if state.turns else None
    remembered = last is not None and last.view.final is not None
    state.session.restore(
        [without_images(turn, set(gone)) for turn in saved.history],
        saved.task,
        last_run_id=state.run_id(last) if remembered and last is not None else "",
    )
    state.conversation_id = saved.id
    if state.turns:
        state.write_trace(state.turns[-1])


class StoredPrefs(BaseModel):
    """The settings a conversation comes back with; one that does not fit sets none."""

    source: Literal["offline", "openai"]
    base_url: str = Field(max_length=2048)
    model: str = Field(max_length=256)
    temperature: float = Field(ge=0, le=2)
    max_steps: int = Field(ge=1, le=50)
    image_detail: Literal["auto", "low", "high"]
    language: Literal["en", "zh"]
    style: Literal["react", "plugin-task"]
    tool_protocol: Literal["auto", "react", "native"] = "auto"  # not in the oldest saves


def valid_prefs(prefs: Any) -> dict[str, Any]:
    """Stored settings that read, whole, or none (`StoredPrefs`)."""
    try:
        return StoredPrefs.model_validate(prefs or {}).model_dump()
    except ValidationError:
        return {}


def prefs_of(conversation: dict[str, Any]) -> dict[str, Any]:
    return valid_prefs(conversation.get("prefs"))
