"""One conversation: its turns, its images and its pending task. Nothing here is shared.

A `Session` is the one writer of its own state. A turn never writes it: it works on a
`draft()` and the session `commit`s the draft once, when the turn's last event has been taken.
A turn stopped or cancelled before then commits its stopped record (`commit_stopped`: what was
asked, with its images) and nothing else, so there is nothing to put back; and Retry runs the
last turn again from the state before it (`reopen`), which either commit kept.

`save_session` and `load_session` keep a conversation in a JSON file, so a question the agent
asked can be answered by a later process (`python -m agent --session FILE --continue`). The
prepared images are copied into a folder beside the file (`s.json` -> `s.images/`) and come back
under the same ids, because the history and a pending task refer to them by id.
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from .dialogue import PendingTask
from .images.store import ImageRef, ImageStore


class Turn(BaseModel):
    user_text: str
    image_ids: list[str] = Field(default_factory=list)
    reply: str = ""
    outcome: Literal["answered", "asked", "ended", "error", "stopped"] = "answered"
    language: str = "en"
    # The run that made this turn (its `run_started` event's), so that a copy kept elsewhere
    # can tell which of its page turns this is; empty in copies from before it was kept.
    run_id: str = ""


class PendingApproval(BaseModel):
    """A call to a tool that acts on the outside world, stopped until the person decides
    (`agent.approval`): the call as the model made it, the task it finishes, and the turn's
    steps so far (`StepRecord`s and the native call as plain data), which the next turn resumes.
    """

    call_id: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought: str = ""
    thought_data: dict[str, Any] | None = None
    step: int = 1
    task: PendingTask
    call: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = Field(default_factory=list)


class Session(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: str = Field(default_factory=lambda: secrets.token_hex(6))
    images: ImageStore = Field(default_factory=ImageStore)
    history: list[Turn] = Field(default_factory=list)
    task: PendingTask | None = None
    approval: PendingApproval | None = None
    # Tools the person allowed to act without asking, for this conversation.
    allowed_tools: list[str] = Field(default_factory=list)
    # The last commit: the turn's run id and the state it replaced (what Retry starts from).
    _last_commit: tuple[str, _State] | None = PrivateAttr(default=None)

    def draft(self) -> Session:
        """A working copy for one turn, sharing the image store (images only ever join it,
        under new ids). The turn writes only here."""
        state = self._state()
        return Session(
            id=self.id,
            images=self.images,
            history=state.history,
            task=state.task,
            approval=state.approval,
            allowed_tools=state.allowed_tools,
        )

    def commit(self, draft: Session, run_id: str) -> None:
        """Make `draft`, the turn `run_id` ended with, this conversation's state."""
        self._last_commit = (run_id, self._state())
        self._set(_State.of(draft))

    def commit_stopped(self, turn: Turn, run_id: str, keep: int) -> None:
        """The turn `run_id` was stopped (or its consumer left) before it ended: only its
        record joins the history (the last `keep` turns are kept); the pending task and
        approval stay as they were."""
        before = self._state()
        self._last_commit = (run_id, before)
        after = self._state()
        after.history.append(turn.model_copy(update={"outcome": "stopped", "reply": ""}))
        del after.history[:-keep]
        self._set(after)

    def reopen(self, run_id: str) -> None:
        """Retry: the state from before turn `run_id`, if it was the last to commit; a turn
        that committed nothing (stopped, refused) left the state as it was before it."""
        if self._last_commit is not None and self._last_commit[0] == run_id:
            self._set(self._last_commit[1])
            self._last_commit = None

    def forget_task(self) -> None:
        """A new request (an example chosen) does not answer the question the agent asked."""
        self.task = None

    def restore(
        self,
        history: list[Turn],
        task: PendingTask | None,
        last_run_id: str = "",
        approval: PendingApproval | None = None,
        allowed_tools: Sequence[str] = (),
    ) -> None:
        """The agent's memory of a conversation kept elsewhere (the browser's copy): its
        turns, its pending task or call waiting for approval, the tools allowed for it.
        `last_run_id` names its last turn when that turn is the last of `history`: Retry then
        starts from before it."""
        state = _State(history=list(history), task=task, approval=approval)
        state.allowed_tools = list(dict.fromkeys(allowed_tools))
        self._set(state)
        self._last_commit = None
        if last_run_id and history:
            self._last_commit = (last_run_id, _State(history=list(history[:-1])))

    def reset(self) -> None:
        self._set(_State())

    def _state(self) -> _State:
        return _State.of(self)

    def _set(self, state: _State) -> None:
        self.history = state.history
        self.task = state.task
        self.approval = state.approval
        self.allowed_tools = state.allowed_tools


class _State(BaseModel):
    """What a turn may change, as copies that share nothing with the state they came from."""

    history: list[Turn] = Field(default_factory=list)
    task: PendingTask | None = None
    approval: PendingApproval | None = None
    allowed_tools: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, session: Session) -> _State:
        # Turns are never changed in place, only added: the list is copied, not each turn.
        return cls.model_construct(
            history=list(session.history),
            task=session.task.model_copy(deep=True) if session.task else None,
            approval=session.approval.model_copy(deep=True) if session.approval else None,
            allowed_tools=list(session.allowed_tools),
        )


# How a remembered turn names the images it came with whose files are gone (a conversation
# restored after the server lost them): in English, as the other notes to the model are.
GONE_NOTE = "[Images no longer available: {ids}]"


def without_images(turn: Turn, gone: set[str]) -> Turn:
    """`turn` without the images in `gone`, with a note naming them, so the model knows they
    existed and cannot be looked at again."""
    lost = [i for i in turn.image_ids if i in gone]
    if not lost:
        return turn
    note = GONE_NOTE.format(ids=", ".join(lost))
    text = turn.user_text if note in turn.user_text else f"{turn.user_text}\n{note}"
    kept = [i for i in turn.image_ids if i not in gone]
    return turn.model_copy(update={"user_text": text, "image_ids": kept})


class SavedSession(BaseModel):
    """The file format. An image's `path` is its file name inside the images folder."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    id: str
    history: list[Turn] = Field(default_factory=list)
    task: PendingTask | None = None
    approval: PendingApproval | None = None
    allowed_tools: list[str] = Field(default_factory=list)
    images: list[ImageRef] = Field(default_factory=list)


def images_folder(path: str | Path) -> Path:
    return Path(path).with_suffix(".images")


def save_session(session: Session, path: str | Path) -> None:
    """Write the conversation to `path` and its images beside it; raises OSError."""
    path = Path(path)
    folder = images_folder(path)
    saved = []
    for ref in session.images.refs():
        source = Path(ref.path)
        target = folder / f"{ref.id}{source.suffix}"
        folder.mkdir(parents=True, exist_ok=True)
        if not (target.exists() and target.samefile(source)):
            shutil.copyfile(source, target)
        saved.append(ref.model_copy(update={"path": target.name}))
    document = SavedSession(
        id=session.id,
        history=session.history,
        task=session.task,
        approval=session.approval,
        allowed_tools=session.allowed_tools,
        images=saved,
    )
    # Written whole and then renamed, so an interrupted save leaves the previous file intact.
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(document.model_dump_json(indent=2), encoding="utf-8")
    partial.replace(path)


def load_session(path: str | Path, store: ImageStore | None = None) -> Session:
    """The conversation saved at `path`, its images copied into `store` (a fresh one unless
    given). Raises OSError when a file cannot be read, ValueError when it is not a session."""
    path = Path(path)
    document = SavedSession.model_validate_json(path.read_bytes())
    store = store if store is not None else ImageStore()
    folder = images_folder(path)
    refs = []
    for ref in document.images:
        # Only a name inside the folder is taken: a saved path never points elsewhere.
        source = folder / Path(ref.path).name
        target = store.root / source.name
        shutil.copyfile(source, target)
        refs.append(ref.model_copy(update={"path": str(target)}))
    store.restore(refs)
    return Session(
        id=document.id,
        images=store,
        history=document.history,
        task=document.task,
        approval=document.approval,
        allowed_tools=document.allowed_tools,
    )
