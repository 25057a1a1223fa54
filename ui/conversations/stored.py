"""The conversations a browser keeps, and what the server sends it of them.

The browser keeps them in its own storage, from the page's script (`assets/history.js`, wired
by `ui.history_panel`), one key a conversation, so a save writes only the conversation that
changed and a reload reads only the one it shows:

    localStorage    <prefix>index      {"format": "multimodal-react-agent/history", "version": 2,
                                         "conversations": [{"id", "title", "saved_at", "turns"}],
                                         newest first, at most MAX_CONVERSATIONS,
                                         "prefs": the page's latest settings}
                    <prefix>c/<id>     one conversation (below)
    sessionStorage  <prefix>current    the id of this tab's own conversation
                    <prefix>pending    the message the tab has sent and the server has not yet
                                       said it took: {"id", "text", "files"}

A conversation is {"id", "title", "saved_at", "turns" (the turns of the page's download,
`ui.conversation_export.conversation_data`, each run of streamed pieces kept as one event; a
turn whose images are not yet prepared has "uploads", the paths of the files the page
uploaded), "history" and "task" (the agent's memory, `agent.session`), "images" (each image's
`ImageRef` with `path` the file's name alone), "folder" (the name of the session folder the
files are in) and "prefs" (the settings, never the API key)}. The files themselves stay on
the server: a restore copies those still there into the new session, and an image whose file
has gone shows as no longer available, to the person and to the agent
(`agent.session.without_images`).

The server sends changes, never the whole (`Kept.changes`): for the page's own conversation,
its small fields and, for each of its lists (turns, history, images), how many items the
browser drops from the front, how many of the rest it keeps and the items that follow. The
list of past conversations is the browser's, merged entry by entry; each tab has its own
current conversation.

Whatever the browser sends back is untrusted: its size is checked before it is parsed, and its
nesting and containers before it is validated (`ui.json_bounds`; the request that carries it
is capped too, `ui.body_limit`); a file is looked for only under `sessions_root()` by names of
the shapes the server makes, and an upload only in Gradio's upload folder; a conversation that
does not read is set aside, with one notice.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any, Literal

from gradio.utils import get_upload_folder
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.config import ImageDetail, Language, ModelSource, Style, ToolProtocolName
from agent.dialogue import PendingTask
from agent.events import TRACE_ADAPTER
from agent.images.store import ImageRejected
from agent.session import Turn, without_images
from tools.base import ImageRef

from .access import shown_url
from .conversation_export import conversation_data, turn_status
from .json_bounds import check_text, check_value
from .labels import t
from .page_state import PageState, Prefs, TurnRecord, sessions_root
from .trace_view import render

FORMAT = "multimodal-react-agent/history"
VERSION = 2
MAX_CONVERSATIONS = 10
# What the page sends up at once (a conversation, the list, a message not yet taken), in
# UTF-8 bytes; `ui.body_limit` lets a request this large through.
MAX_BYTES = 1_500_000
# One conversation as the browser keeps it: its oldest turns go past this. Most browsers give
# a site 5 million characters, shared by every conversation (the page's script makes room).
CONVERSATION_BYTES = 1_000_000
# Lists and objects in what the page sends up: a long conversation holds a few thousand.
MAX_CONTAINERS = 100_000
TITLE_CHARS = 60
# Events that stream in small pieces: a run of them is kept as one, which shows the same.
_PIECES = {"model_delta": "step", "answer_delta": None, "tool_progress": "call_id"}
# The names the server gives session folders and image files; nothing else is looked for.
_FOLDER = re.compile(r"session-[A-Za-z0-9_]{1,64}")
_FILE = re.compile(r"img_\d{1,9}-[0-9a-f]{8,64}\.(png|jpg|jpeg|webp|gif)")
_ID = re.compile(r"[0-9a-f]{1,32}")
_IMAGE_ID = r"^img_\d{1,9}$"


ImageId = Annotated[str, Field(pattern=_IMAGE_ID)]
ConversationId = Annotated[str, Field(pattern=f"^{_ID.pattern}$")]
UploadPath = Annotated[str, Field(max_length=4096)]


class StoredImage(ImageRef):
    id: ImageId


class StoredTurn(BaseModel):
    number: int = Field(ge=1)
    text: str
    images: list[ImageId] = Field(default_factory=list)
    status: str = "answered"
    events: list[dict[str, Any]] = Field(default_factory=list)
    # A turn taken before its images were prepared: the files as the page uploaded them.
    uploads: list[UploadPath] = Field(default_factory=list, max_length=100)


class StoredConversation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: ConversationId
    title: str = ""
    saved_at: float = 0.0
    turns: list[StoredTurn]
    history: list[Turn] = Field(default_factory=list)
    task: PendingTask | None = None
    images: list[StoredImage] = Field(default_factory=list)
    folder: str = ""
    prefs: dict[str, Any] = Field(default_factory=dict)


class IndexEntry(BaseModel):
    """A conversation in the browser's list: enough to show it without reading it."""

    id: ConversationId
    title: str = Field(default="", max_length=4 * TITLE_CHARS)
    saved_at: float = 0.0
    turns: int = Field(default=0, ge=0)


class StoredIndex(BaseModel):
    format: Literal["multimodal-react-agent/history"]
    version: Literal[2]
    conversations: list[Any] = Field(default_factory=list)
    prefs: dict[str, Any] | None = None


class PendingMessage(BaseModel):
    """A message the tab sent that the server had not said it took when the page went."""

    id: ConversationId | None = None
    text: str = Field(default="", max_length=1_000_000)
    files: list[UploadPath] = Field(default_factory=list, max_length=100)


class Payload(BaseModel):
    """What the page sends as it loads: its list, its own conversation, a message not taken."""

    format: Literal["multimodal-react-agent/history"]
    version: Literal[2]
    index: Any = None
    current_id: ConversationId | None = None
    current: Any = None
    pending: Any = None
    # Something the browser keeps did not parse there (`assets/history.js`).
    unreadable: bool = False


@dataclass
class Loaded:
    """What a page load brought, checked: the list (newest first), the page's settings, the
    tab's conversation (None if it has none, or it did not read), a message not yet taken,
    whether anything was set aside, and the ids of conversations to forget."""

    index: list[dict[str, Any]] = field(default_factory=list)
    prefs: dict[str, Any] = field(default_factory=dict)
    current_id: str | None = None
    current: dict[str, Any] | None = None
    pending: PendingMessage | None = None
    problem: bool = False
    unreadable: list[str] = field(default_factory=list)


def size_of(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def parse(text: Any, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON `text` the browser sent, parsed once its size, its lists and objects and its
    nesting are known to be within bounds. Raises ValueError (`OutOfBounds` past a bound)."""
    if not isinstance(text, str):
        raise ValueError("not text")
    if len(text) > max_bytes:  # a character is a byte or more: refused before encoding it
        raise ValueError("too large")
    data = text.encode("utf-8", "replace")
    if len(data) > max_bytes:
        raise ValueError("too large")
    check_text(data, MAX_CONTAINERS)
    value = json.loads(data)
    check_value(value, max_bytes)
    return value


def read_loaded(text: Any) -> Loaded:
    """What the page sent as it loaded (`assets/history.js`, `payload`), checked. Nothing
    sent is nothing kept, not a problem; what does not read is set aside, part by part."""
    if text is None or text == "":
        return Loaded()
    try:
        payload = Payload.model_validate(parse(text))
    except (ValidationError, ValueError, RecursionError):
        return Loaded(problem=True)
    loaded = Loaded(problem=payload.unreadable, current_id=payload.current_id)
    if payload.index is not None:
        loaded.index, loaded.prefs, problem = read_index(payload.index)
        loaded.problem |= problem
    if payload.current is not None:
        conversation = read_conversation(payload.current)
        if conversation is None or conversation["id"] != payload.current_id:
            loaded.problem = True
            loaded.unreadable.append(payload.current_id or "")
        else:
            loaded.current = conversation
    elif payload.unreadable and payload.current_id:
        loaded.unreadable.append(payload.current_id)
    if payload.pending is not None:
        try:
            loaded.pending = PendingMessage.model_validate(payload.pending)
        except ValidationError:
            loaded.problem = True
    loaded.unreadable = [i for i in loaded.unreadable if i]
    return loaded


def read_index(value: Any) -> tuple[list[dict[str, Any]], dict[str, Any], bool]:
    """The browser's list of conversations (newest first, at most MAX_CONVERSATIONS), the
    page's settings it holds, and whether any of it had to be set aside."""
    try:
        index = StoredIndex.model_validate(value)
    except ValidationError:
        return [], {}, True
    entries, problem, seen = [], False, set()
    for item in index.conversations:
        try:
            entry = IndexEntry.model_validate(item)
        except ValidationError:
            problem = True
            continue
        if entry.id not in seen:
            seen.add(entry.id)
            entries.append(entry.model_dump())
    entries.sort(key=lambda e: e["saved_at"], reverse=True)
    return entries[:MAX_CONVERSATIONS], valid_prefs(index.prefs), problem


# The list alone is ten short entries and the settings: far below this.
LIST_BYTES = 64_000


def read_listed(text: Any) -> list[dict[str, Any]] | None:
    """The browser's list, sent alone after another tab changed it (`assets/history.js`,
    `index`), checked; None if it does not read (the list shown stays as it is)."""
    try:
        value = StoredIndex.model_validate(parse(text, LIST_BYTES))
    except (ValueError, RecursionError):  # pydantic's ValidationError is a ValueError
        return None
    return read_index(value.model_dump())[0]


def read_conversation(value: Any) -> dict[str, Any] | None:
    """A conversation the browser sent, if it reads (its events too); None otherwise. A text
    is parsed within the bounds first (`parse`)."""
    try:
        if isinstance(value, str):
            value = parse(value)
        conversation = StoredConversation.model_validate(value)
        for turn in conversation.turns:
            TRACE_ADAPTER.validate_python(turn.events)
    except (ValidationError, TypeError, ValueError, RecursionError):
        return None
    return value


def with_pending(
    conversation: dict[str, Any] | None, pending: PendingMessage, new_id: str
) -> dict[str, Any]:
    """`conversation` (a new one named `new_id` if None) with the message not yet taken as
    its last turn, which had not got anywhere: a reload keeps its words and its images."""
    if conversation is None:
        conversation = {"id": new_id, "turns": []}
    turns = list(conversation.get("turns") or [])
    number = (turns[-1].get("number", len(turns)) if turns else 0) + 1
    turn = {"number": number, "text": pending.text, "status": "running"}
    turns.append({**turn, "images": [], "uploads": pending.files})
    return {**conversation, "turns": turns}


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
        **_meta(state, title_of(state.turns[0].text, state.prefs.language)),
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


def _meta(state: PageState, title: str) -> dict[str, Any]:
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


# -- what the browser holds, and what it is sent -----------------------------------------------


@dataclass
class _Held:
    """One list of the page's conversation as the browser holds it: for each item, what it
    stands for (compared by identity: a turn's record, a remembered turn, an image's ref), its
    version, its size as stored and, for a turn, how many events it has."""

    owners: list[Any] = field(default_factory=list)
    versions: list[Any] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    # For a turn, how many events the browser holds of it.
    lengths: list[int] = field(default_factory=list)

    def diff(self, owners: list[Any], versions: list[Any]) -> tuple[int, int, int]:
        """(cut, keep, start): the browser drops the first `cut` items it holds, keeps the
        next `keep`, and adds `owners[start:]`. The browser's items may begin later in
        `owners` (older ones were left out for size) or earlier (older ones have gone)."""
        if not self.owners or not owners:
            return len(self.owners), 0, 0
        begin = _position(owners, self.owners[0])
        if begin is not None:
            cut, start = 0, begin
        else:
            cut = _position(self.owners, owners[0])
            if cut is None:
                return len(self.owners), 0, 0
            start = 0
        keep, held = 0, len(self.owners) - cut
        while (
            keep < held
            and start + keep < len(owners)
            and self.owners[cut + keep] is owners[start + keep]
            and self.versions[cut + keep] == versions[start + keep]
        ):
            keep += 1
        return cut, keep, start + keep


def _position(items: list[Any], item: Any) -> int | None:
    return next((i for i, x in enumerate(items) if x is item), None)


class Pending:
    """The message taken whose turn has not started: a turn that has not got anywhere,
    numbered as its turn will be (`ui.turns`), its uploads not yet prepared."""

    def __init__(self, number: int, text: str, uploads: list[str]) -> None:
        self.number = number
        self.text = text
        self.uploads = uploads

    def data(self) -> dict[str, Any]:
        turn = {"number": self.number, "text": self.text, "images": [], "status": "running"}
        return {**turn, "uploads": self.uploads}


@dataclass
class Kept:
    """What the server knows of one page's saved conversations (`PageState.saved`): the
    browser's list as it loaded, kept up to date with what this page saves; what the browser
    holds of the page's conversation; and the settings last sent."""

    index: list[dict[str, Any]] = field(default_factory=list)
    prefs: dict[str, Any] = field(default_factory=dict)
    conversation: str | None = None  # the conversation the lists below are of
    turns: _Held = field(default_factory=_Held)
    history: _Held = field(default_factory=_Held)
    images: _Held = field(default_factory=_Held)
    meta: dict[str, Any] | None = None
    # The browser may hold another copy than the lists say (nothing sent yet, or it lost its
    # place): the next change replaces its copy whole.
    whole: bool = True
    pending: Pending | None = None
    seq: int = 0  # each patch is numbered: the page applies each once, in order
    shown: list[tuple[str, str]] | None = None  # the list as the page last showed it

    def forget(self, conversation: str | None = None) -> None:
        """Nothing is known of what the browser holds of `conversation`."""
        self.conversation = conversation
        self.turns, self.history, self.images = _Held(), _Held(), _Held()
        self.meta, self.whole = None, True

    def past(self, current: str | None) -> list[tuple[str, str]]:
        """(title, id) of each saved conversation but the page's own, newest first."""
        return [(e["title"] or e["id"], e["id"]) for e in self.index if e["id"] != current]

    def find(self, conversation_id: str | None) -> dict[str, Any] | None:
        return next((e for e in self.index if e["id"] == conversation_id), None)

    def remove(self, conversation_id: str) -> dict[str, Any]:
        """The browser is to forget the conversation `conversation_id`: the change that says
        so."""
        self.index = [e for e in self.index if e["id"] != conversation_id]
        if conversation_id == self.conversation:
            self.forget(conversation_id)
        return {"op": "drop", "id": conversation_id}

    def patch(self, ops: list[dict[str, Any]]) -> str:
        self.seq += 1
        return json.dumps({"seq": self.seq, "ops": ops}, ensure_ascii=False)

    def held(self, state: PageState, data: dict[str, Any]) -> None:
        """The browser holds `data`, which `state` was just restored from: the lists match
        it, but for a last turn that was under way when it was saved (it is stopped now, and
        its uploads are images) and the images that are gone."""
        self.forget(state.conversation_id)
        self.whole = False
        self.meta = {name: data.get(name) for name in ("title", "task", "folder", "prefs")}
        stored = data.get("turns") or []
        for record, turn in zip(state.turns, stored, strict=True):
            same = turn.get("status") == turn_status(record) and not turn.get("uploads")
            self.turns.owners.append(record)
            self.turns.versions.append(_version(record) if same else None)
            self.turns.sizes.append(size_of(turn))
            self.turns.lengths.append(len(turn.get("events") or ()))
        for remembered, turn in zip(state.session.history, data.get("history") or [], strict=True):
            self.history.owners.append(remembered)
            self.history.versions.append(None)
            self.history.sizes.append(size_of(turn))
            self.history.lengths.append(0)
        refs = {(ref.id, Path(ref.path).name): ref for ref in state.session.images.refs()}
        for image in data.get("images") or []:
            self.images.owners.append(refs.get((image["id"], image["path"]), object()))
            self.images.versions.append(None)
            self.images.sizes.append(size_of(image))
            self.images.lengths.append(0)

    def changes(
        self, state: PageState, now: float | None = None, taken: bool = False
    ) -> list[dict[str, Any]]:
        """What the browser is to change so that it holds the page's conversation as it is
        now: nothing, a `put` of what is new in it, or a `drop` when it has no turns left.
        `taken` says the message just taken is in it (the page forgets its own copy)."""
        ops: list[dict[str, Any]] = []
        prefs = stored_prefs(state.prefs)
        if prefs != self.prefs:
            self.prefs = prefs
            ops.append({"op": "prefs", "prefs": prefs})
        if state.conversation_id != self.conversation:
            self.forget(state.conversation_id)
        pending = [self.pending] if self.pending is not None else []
        if not state.turns and not pending:
            if self.turns.owners:
                ops.append(self.remove(state.conversation_id))
            return ops
        put = self._put(state, pending, time.time() if now is None else now)
        if put is not None:
            put["taken"] = taken
            ops.append(put)
        return ops

    def _put(self, state: PageState, pending: list[Pending], now: float) -> dict[str, Any] | None:
        session = state.session
        records: list[Any] = [*state.turns, *pending]
        first = records[0]
        meta = _meta(state, title_of(first.text, state.prefs.language))
        lists: dict[str, list[Any]] = {}
        new: dict[str, _Held] = {}
        # Each list: what of it the browser holds, its owners, their versions, one's item.
        tables: list[tuple[str, _Held, list[Any], list[Any] | None, _Item]] = [
            ("turns", self.turns, records, [_version(r) for r in records], _turn_item),
            ("history", self.history, session.history, [None] * len(session.history), _memory),
            ("images", self.images, session.images.refs(), None, image_data),
        ]
        for name, held, owners, versions, data in tables:
            versions = versions or [None] * len(owners)
            cut, keep, start = held.diff(owners, versions)
            items = [data(owner) for owner in owners[start:]]
            new[name] = _Held(
                held.owners[cut : cut + keep] + owners[start:],
                held.versions[cut : cut + keep] + versions[start:],
                held.sizes[cut : cut + keep] + [size_of(i) for i in items],
                held.lengths[cut : cut + keep] + [len(i.get("events") or ()) for i in items],
            )
            if items and cut + keep < len(held.owners) and held.owners[cut + keep] is owners[start]:
                items[0] = _continued(items[0], held.lengths[cut + keep])
            lists[name] = [cut, keep, items]
        if not self._fits(lists["turns"], new, size_of(meta)):
            return self.remove(state.conversation_id) if self.turns.owners else None
        held = {"turns": self.turns, "history": self.history, "images": self.images}
        same = all(
            cut == 0 and not items and keep == len(held[name].owners)
            for name, (cut, keep, items) in lists.items()
        )
        if same and meta == self.meta and not self.whole:
            return None
        put = {"op": "put", "id": state.conversation_id, "whole": self.whole, "lists": lists}
        # Of the small fields, those that changed (all of them for a copy made whole).
        known = {} if self.whole or self.meta is None else self.meta
        changed = {k: v for k, v in meta.items() if k not in known or known[k] != v}
        put["meta"] = {**changed, "saved_at": now}
        self.turns, self.history, self.images = new["turns"], new["history"], new["images"]
        self.meta, self.whole = meta, False
        entry = {"id": state.conversation_id, "title": meta["title"], "saved_at": now}
        entry["turns"] = len(self.turns.owners)
        self.index = [entry, *(e for e in self.index if e["id"] != entry["id"])]
        del self.index[MAX_CONVERSATIONS:]
        return put

    @staticmethod
    def _fits(turns: list[Any], new: dict[str, _Held], meta_size: int) -> bool:
        """Leave out the oldest turns while the conversation is larger than a browser keeps
        of one (`turns` is the change to the browser's turns, made in place); False if even
        its last turn does not fit."""
        held = new["turns"]
        total = meta_size + sum(sum(h.sizes) for h in new.values())
        while total > CONVERSATION_BYTES and held.owners:
            total -= held.sizes.pop(0)
            held.owners.pop(0)
            held.versions.pop(0)
            held.lengths.pop(0)
            if turns[1] > 0:
                turns[0] += 1
                turns[1] -= 1
            else:
                turns[2].pop(0)
        return bool(held.owners)


def _continued(turn: dict[str, Any], held: int) -> dict[str, Any]:
    """`turn`, of which the browser holds `held` events, as a change to its copy: the events
    it holds but the last (which may have grown, `joined`) stay, and the rest follow."""
    if held < 1 or "events" not in turn:
        return turn
    return {**turn, "events": turn["events"][held - 1 :], "events_from": held - 1}


# What the browser keeps of one owner (a turn, a remembered turn, an image).
_Item = Callable[[Any], dict[str, Any]]


def _version(record: TurnRecord | Pending) -> Any:
    if isinstance(record, Pending):
        return "pending"
    return (len(record.events), turn_status(record), len(record.refs), len(record.gone))


def _turn_item(record: TurnRecord | Pending) -> dict[str, Any]:
    return record.data() if isinstance(record, Pending) else turn_data(record)


def _memory(turn: Turn) -> dict[str, Any]:
    return turn.model_dump(mode="json")


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
    gone = sorted(i for i in mentioned - set(available) if re.fullmatch(_IMAGE_ID, i))
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


class StoredPrefs(BaseModel):
    """The settings a conversation comes back with; one that does not fit sets none."""

    source: ModelSource
    base_url: str = Field(max_length=2048)
    model: str = Field(max_length=256)
    temperature: float = Field(ge=0, le=2)
    max_steps: int = Field(ge=1, le=50)
    image_detail: ImageDetail
    language: Language
    style: Style
    tool_protocol: ToolProtocolName = "auto"  # not in the oldest saves


def valid_prefs(prefs: Any) -> dict[str, Any]:
    """Stored settings that read, whole, or none (`StoredPrefs`)."""
    try:
        return StoredPrefs.model_validate(prefs or {}).model_dump()
    except ValidationError:
        return {}


def prefs_of(conversation: dict[str, Any]) -> dict[str, Any]:
    return valid_prefs(conversation.get("prefs"))
