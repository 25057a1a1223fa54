"""What one browser session owns: its settings, its conversation, its turns, its files."""

from __future__ import annotations

import asyncio
import functools
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from agent.config import (
    ImageDetail,
    Language,
    ModelChoice,
    ModelSource,
    Settings,
    Style,
    ToolProtocolName,
    VisionMode,
    make_model,
)
from agent.events import Event
from agent.images.store import ImageRef, ImageStore
from agent.models.vision import VisionMemory
from agent.session import Session
from agent.turn_handle import TurnHandle

from ..conversations.export import write_conversation
from ..process_folders import claim
from .aside import SetAside, remove

if TYPE_CHECKING:
    from ..trace.view import TurnView


@dataclass
class Prefs:
    """One browser session's settings. The API key never leaves the server once typed."""

    source: ModelSource = "offline"
    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    temperature: float = 0.0
    max_steps: int = 8
    image_detail: ImageDetail = "auto"
    language: Language = "en"
    style: Style = "react"
    tool_protocol: ToolProtocolName = "auto"
    vision: VisionMode = "auto"  # images to the model (agent.models.vision)

    def model_key(self) -> tuple:
        """What the session's model is made from: another value is another model."""
        return (self.source, self.base_url, self.model, self.api_key, self.vision)

    def choice(self) -> ModelChoice:
        return ModelChoice(
            source=self.source,
            base_url=self.base_url,
            model=self.model,
            api_key=SecretStr(self.api_key),
            vision=self.vision,
        )


def default_prefs(env: Settings) -> Prefs:
    choice = env.default_choice()
    return Prefs(
        source=choice.source,
        base_url=choice.base_url,
        model=choice.model,
        temperature=env.temperature,
        max_steps=env.max_steps,
        image_detail=env.image_detail,
        language=env.language,
        style=env.prompt_style,
        tool_protocol=env.tool_protocol or "auto",
        vision=env.vision,
    )


def default_model(prefs: Prefs, env: Settings) -> Any:
    """The model the session's settings name; `ModelNotConfigured` if they name none."""
    return make_model(env, prefs.choice())


@functools.cache
def sessions_root() -> Path:
    """One folder for every session's prepared images, each session in its own folder with a
    random name; the page serves this folder and the example images, nothing else of the disk.
    """
    return _process_folder("agent-sessions-")


@functools.cache
def traces_root() -> Path:
    """One folder for every session's trace files; not served (a download is a copy)."""
    return _process_folder("agent-traces-")


def _process_folder(prefix: str) -> Path:
    # Sessions do not outlive the process, so neither do their files: removed when it ends,
    # or by the next start if it was killed (`ui.process_folders`).
    return claim(prefix)


@dataclass
class TurnRecord:
    text: str
    refs: list[ImageRef]
    view: TurnView
    events: list[Event] = field(default_factory=list)
    # Ids of images the turn came with that a restored conversation no longer has on disk.
    gone: list[str] = field(default_factory=list)
    decision: Any = None  # the ApprovalDecision this turn was run with, for a retry
    # What Stop, Retry, Clear and a departed client end the turn through.
    handle: PageTurn = field(default_factory=lambda: PageTurn(0, None))


class PageTurn(TurnHandle):
    """A page turn's handle (`agent.turn_handle`), with what tells whether a Stop was meant
    for it: `stops`, how many turns the conversation had ended when its message was sent (a
    Stop after that is meant for it, however early), and `pressed`, the browser's own count
    of Stop presses then (None from scripts: a press the browser made later ends the turn,
    even when it reached the server first)."""

    def __init__(self, stops: int, pressed: int | None) -> None:
        super().__init__()
        self.stops = stops
        self.pressed = pressed

    def overtaken(self, stops: int, pressed: int) -> bool:
        """Whether Stop (or Clear) came after this turn's message was sent, given the
        conversation's counts now."""
        if stops != self.stops:
            return True
        return self.pressed is not None and pressed > self.pressed


class PageState:
    """Everything one browser session owns. Made fresh per session; nothing is shared."""

    def __init__(self, prefs: Prefs, env: Settings) -> None:
        self.prefs = prefs
        self.env = env
        self.turns: list[TurnRecord] = []
        self.trace_file: str | None = None
        # The conversation's name in the browser's saved conversations (ui.conversations).
        self.conversation_id = uuid.uuid4().hex[:12]
        # What the server knows of the conversations the browser keeps
        # (`ui.conversations.kept.Kept`).
        self.saved: Any = None
        # Image folders of this page's earlier conversations: opened again, they show their
        # images. They go when the page's state closes.
        self._kept: list[str] = []
        self.aside: SetAside | None = None
        self._session: Session | None = None
        self._dir: str | None = None
        self._images_dir: str | None = None
        self._model: tuple[tuple, Any] | None = None
        # Which models took images and which take text only, for every model this session
        # makes: a model switched away from and back to is not tried again.
        self.vision_memory = VisionMemory()
        # For the idle sweep (ui.sweeper): when a handler last used this, and turns running.
        self.last_used = time.monotonic()
        self.running = 0
        # Times a turn was ended (Stop, Clear, New conversation); a turn sent before the
        # latest ends as stopped. `pressed`: the highest count of Stop presses a browser sent.
        self.stops = 0
        self.pressed = 0
        # Set when the sweep closed this conversation, until the person is told.
        self.expired = False
        # The call the approval panel shows, so a decision that did not fit keeps the edit.
        self.approval_shown: str | None = None
        # What is wrong with the settings, by field: a sentence's key and its facts; and the
        # fields whose sentence the page shows (ui.handlers.PageHandlers.settings_notice).
        self.setting_problems: dict[str, tuple[str, dict[str, Any]]] = {}
        self.problems_shown: set[str] = set()
        # Set while the Scenarios tab runs a batch: Stop sets it (ui.scenarios_tab).
        self.scenario_stop: asyncio.Event | None = None
        # When the page last said each way of "wait for the running turn": once on screen is
        # enough.
        self.wait_told_at: dict[str, float] = {}
        # Messages taken from the input, counted as the browser saves them
        # (ui.conversations.handlers): a page load that comes after one restores nothing over it.
        self.messages_taken = 0
        # For the turn limits (ui.access); Clear does not reset them.
        self.turns_started = 0
        self.turn_starts: list[float] = []

    def model(self, make: Callable[[Prefs], Any]) -> Any:
        """This session's hosted model, made again only when its settings change: building
        an HTTP client per turn costs real time. The key stays with the session."""
        p = self.prefs
        key = p.model_key()
        if self._model is None or self._model[0] != key:
            self._model = (key, make(p))
            if hasattr(self._model[1], "vision_memory"):
                self._model[1].vision_memory = self.vision_memory
        return self._model[1]

    def vision_state(self) -> str:
        """How images go to this session's model now, for the status line: "on", "off",
        "text" (found to take text only), "sees" (found to take them) or "" (not known)."""
        p = self.prefs
        if p.vision in ("on", "off"):
            return p.vision
        key = p.model_key()
        # Another model chosen since the last turn: nothing is known of it until it is made.
        model = self._model[1] if self._model is not None and self._model[0] == key else None
        state = getattr(model, "vision_state", None)
        return str(state()) if callable(state) else ""

    @property
    def session(self) -> Session:
        # Made on first use: a Session holds a lock, which gr.State could not copy.
        if self._session is None:
            # Under the one folder the page may serve, so the trace can show tool images.
            self._images_dir = tempfile.mkdtemp(prefix="session-", dir=sessions_root())
            store = ImageStore.for_settings(self.env, root=self._images_dir)
            self._session = Session(images=store)
        return self._session

    @property
    def folder(self) -> Path:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="page-", dir=traces_root())
        return Path(self._dir)

    def folders(self) -> list[Path]:
        """The folders this session has on disk now."""
        aside = self.aside.folders if self.aside is not None else ()
        found = [Path(d) for d in (self._images_dir, self._dir, *aside) if d is not None]
        return found + [Path(d) for d in self._kept]

    def reset(self) -> None:
        """Clear: the conversation and its files go; earlier conversations' images stay."""
        self._end_conversation(keep_images=False)

    def start_over(self) -> None:
        """A new conversation: the current one's images stay on disk for its saved copy."""
        self._end_conversation(keep_images=True)

    def set_aside(self) -> None:
        """Clear, undoably: the conversation leaves the page, its files stay until `take_back`
        or `drop_aside`."""
        self.drop_aside()
        parts = (self.conversation_id, self.turns, self.trace_file, self._session)
        self.aside = SetAside(*parts, (self._images_dir, self._dir), time.monotonic())
        self._session, self._images_dir, self._dir = None, None, None
        self.turns, self.trace_file, self.conversation_id = [], None, uuid.uuid4().hex[:12]

    def take_back(self) -> None:
        """The conversation set aside is the page's again; what the page had since goes."""
        aside, self.aside = self.aside, None
        if aside is not None:
            remove(self._images_dir, self._dir)
            self.conversation_id, self.turns = aside.conversation_id, aside.turns
            self.trace_file, self._session = aside.trace_file, aside.session
            self._images_dir, self._dir = aside.folders

    def drop_aside(self) -> None:
        aside, self.aside = self.aside, None
        if aside is not None:
            aside.drop()

    def _end_conversation(self, keep_images: bool) -> None:
        self.drop_aside()
        if keep_images and self._images_dir is not None:
            self._kept.append(self._images_dir)
            self._images_dir = None
        self._close_files()
        self.turns = []
        self.trace_file = None
        self.conversation_id = uuid.uuid4().hex[:12]

    def expire(self) -> None:
        """Close an idle conversation: its files go, and it starts over when used again."""
        self.close()
        self.turns = []
        self.trace_file = None
        self.conversation_id = uuid.uuid4().hex[:12]  # the saved copy stays as it was
        self.expired = True

    def close(self) -> None:
        self.drop_aside()
        self._close_files()
        for folder in self._kept:
            shutil.rmtree(folder, ignore_errors=True)
        self._kept = []

    def _close_files(self) -> None:
        self._model = None
        if self._images_dir is not None:
            shutil.rmtree(self._images_dir, ignore_errors=True)
            self._images_dir = None
        self._session = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def stopped_since(self, record: TurnRecord) -> bool:
        """Whether Stop (or Clear) came after `record`'s message was sent."""
        return record.handle.overtaken(self.stops, self.pressed)

    def stop_turn(self, record: TurnRecord) -> None:
        """Mark the turn stopped, unless it finished first. Called by Stop and again when the
        turn's run ends. The conversation needs nothing put back: a turn commits its changes
        only once its last event has been taken (`agent.session`)."""
        if record.view.final is not None:
            return
        record.handle.cancel()
        if not record.view.stopped:
            record.view.stop()
            self.write_trace(record)

    def next_number(self) -> int:
        """The next turn's number: after the last one's, which is more than the turns the page
        has once the oldest have gone (`max_history_turns`, or the browser's room)."""
        return self.turns[-1].view.number + 1 if self.turns else 1

    @staticmethod
    def run_id(record: TurnRecord) -> str:
        return next((e.run_id for e in record.events if e.type == "run_started"), "")

    def write_trace(self, record: TurnRecord) -> str:
        """The download after `record` ended: the whole conversation as a zip (the format is
        `ui.conversations.export`'s); the one before it goes."""
        run_id = next((e.run_id for e in record.events if e.type == "run_started"), "turn")
        path = self.folder / f"conversation-{len(self.turns)}-{run_id}.zip"
        write_conversation(self.turns, path, self._session)
        if self.trace_file and self.trace_file != str(path):
            Path(self.trace_file).unlink(missing_ok=True)
        self.trace_file = str(path)
        return self.trace_file
