"""The conversations a browser keeps, as it keeps them, and reading back what it sends.

The browser keeps them in its own storage, from the page's script (`assets/history.js`, wired
by `ui.conversations.panel`), one key a conversation, so a save writes only the conversation
that changed and a reload reads only the one it shows:

    localStorage    <prefix>index      {"format": "multimodal-react-agent/history", "version": 2,
                                         "conversations": [{"id", "title", "saved_at", "turns"}],
                                         newest first, at most MAX_CONVERSATIONS,
                                         "prefs": the page's latest settings}
                    <prefix>c/<id>     one conversation (below)
    sessionStorage  <prefix>current    the id of this tab's own conversation
                    <prefix>pending    the message the tab has sent and the server has not yet
                                       said it took: {"id", "text", "files"}

A conversation is {"id", "title", "saved_at", "turns" (the turns of the page's download,
`ui.conversations.export.conversation_data`, each run of streamed pieces kept as one event; a
turn whose images are not yet prepared has "uploads", the paths of the files the page
uploaded), "history" and "task" (the agent's memory, `agent.session`), "images" (each image's
`ImageRef` with `path` the file's name alone), "folder" (the name of the session folder the
files are in) and "prefs" (the settings, never the API key)}. The files themselves stay on
the server (`ui.conversations.restore`); the server sends changes, never the whole
(`ui.conversations.kept`).

Whatever the browser sends back is untrusted: its size is checked before it is parsed, and its
nesting and containers before it is validated (`agent.json_bounds`; the request that carries it
is capped too, `ui.body_limit`); a conversation that does not read is set aside, with one
notice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WrapValidator

from agent.config import ImageDetail, Language, ModelSource, Style, ToolProtocolName, VisionMode
from agent.dialogue import PendingTask
from agent.events import TRACE_ADAPTER
from agent.json_bounds import check_text, check_value
from agent.messages import StepRecord
from agent.session import PendingApproval, Turn
from tools.base import ImageRef

FORMAT = "multimodal-react-agent/history"
VERSION = 2
MAX_CONVERSATIONS = 10
# What the page sends up at once (a conversation, the list, a message not yet taken), in
# UTF-8 bytes; `ui.body_limit` lets a request this large through.
MAX_BYTES = 1_500_000
# Lists and objects in what the page sends up: a long conversation holds a few thousand.
MAX_CONTAINERS = 100_000
TITLE_CHARS = 60
_ID = re.compile(r"[0-9a-f]{1,32}")
IMAGE_ID = r"^img_\d{1,9}$"


ImageId = Annotated[str, Field(pattern=IMAGE_ID)]
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


ToolName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")]


def _pending_or_none(value: Any, handler: Any) -> PendingApproval | None:
    """A call waiting for approval whose steps read; anything else is no call waiting (the
    conversation itself still reads)."""
    try:
        pending = handler(value)
        if pending is not None:
            for step in pending.steps:
                StepRecord.model_validate(step)
        return pending
    except ValidationError:
        return None


class StoredConversation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: ConversationId
    title: str = ""
    saved_at: float = 0.0
    turns: list[StoredTurn]
    history: list[Turn] = Field(default_factory=list)
    task: PendingTask | None = None
    approval: Annotated[PendingApproval | None, WrapValidator(_pending_or_none)] = None
    allowed_tools: list[ToolName] = Field(default_factory=list, max_length=100)
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
    # The browser's time zone, by name and by its offset from UTC now in minutes east
    # (`ui.conversations.listed`); anything sent reads, what is no zone is ignored there.
    zone: Any = None
    offset: Any = None


@dataclass
class Loaded:
    """What a page load brought, checked: the list (newest first), the page's settings, the
    tab's conversation (None if it has none, or it did not read), a message not yet taken,
    whether anything was set aside, the ids of conversations to forget, and the browser's
    time zone as it sent it (not checked: `ui.conversations.listed.browser_zone` does)."""

    index: list[dict[str, Any]] = field(default_factory=list)
    prefs: dict[str, Any] = field(default_factory=dict)
    current_id: str | None = None
    current: dict[str, Any] | None = None
    pending: PendingMessage | None = None
    problem: bool = False
    unreadable: list[str] = field(default_factory=list)
    zone: Any = None
    offset: Any = None


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
    loaded.zone, loaded.offset = payload.zone, payload.offset
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
    vision: VisionMode = "auto"  # nor in older ones


def valid_prefs(prefs: Any) -> dict[str, Any]:
    """Stored settings that read, whole, or none (`StoredPrefs`)."""
    try:
        return StoredPrefs.model_validate(prefs or {}).model_dump()
    except ValidationError:
        return {}


def prefs_of(conversation: dict[str, Any]) -> dict[str, Any]:
    return valid_prefs(conversation.get("prefs"))
