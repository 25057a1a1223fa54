"""The closed set of events a turn emits: the trace schema and the export format.

Every event has a literal `type`. A tool call and its result share `call_id`. A turn always ends
with exactly one terminal event (`answer`, `ask_user` or `error`), and `run_finished` with the
turn's statistics comes right before it.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class _Event(BaseModel):
    at: float = Field(default_factory=time.time)


class ImageInfo(BaseModel):
    id: str
    width: int
    height: int
    path: str = ""
    label: str = ""


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    run_id: str
    model: str
    offline: bool = False
    language: str = "en"
    style: str = "react"
    images: list[ImageInfo] = Field(default_factory=list)


class Notice(_Event):
    """Something the person should know that does not stop the turn (an image was refused)."""

    type: Literal["notice"] = "notice"
    message: str


class ModelDelta(_Event):
    type: Literal["model_delta"] = "model_delta"
    step: int
    text: str


class Thought(_Event):
    type: Literal["thought"] = "thought"
    step: int
    text: str


class ToolCall(_Event):
    type: Literal["tool_call"] = "tool_call"
    step: int
    call_id: str
    tool: str
    arguments: dict[str, Any]


class ToolProgress(_Event):
    type: Literal["tool_progress"] = "tool_progress"
    call_id: str
    message: str


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    step: int
    call_id: str
    tool: str
    ok: bool
    text: str
    duration: float
    images: list[ImageInfo] = Field(default_factory=list)
    error: str | None = None
    data: dict[str, Any] | None = None


class StepRetry(_Event):
    """The model's reply could not be used; it is told why and tries again."""

    type: Literal["step_retry"] = "step_retry"
    step: int
    reason: str


class TaskState(_Event):
    type: Literal["task_state"] = "task_state"
    tool: str | None
    known: dict[str, Any] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    status: Literal["collecting", "calling", "done", "cleared", "ended"] = "collecting"


class AskUser(_Event):
    type: Literal["ask_user"] = "ask_user"
    question: str
    tool: str | None = None
    missing: list[str] = Field(default_factory=list)


class AnswerDelta(_Event):
    type: Literal["answer_delta"] = "answer_delta"
    text: str


class Answer(_Event):
    type: Literal["answer"] = "answer"
    text: str
    ended: bool = False


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    message: str
    kind: str = "error"


class RunFinished(_Event):
    type: Literal["run_finished"] = "run_finished"
    status: Literal["answered", "asked", "ended", "error"]
    model: str
    model_calls: int
    steps: int
    duration: float


Event = Annotated[
    RunStarted
    | Notice
    | ModelDelta
    | Thought
    | ToolCall
    | ToolProgress
    | ToolResultEvent
    | StepRetry
    | TaskState
    | AskUser
    | AnswerDelta
    | Answer
    | ErrorEvent
    | RunFinished,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
TRACE_ADAPTER: TypeAdapter[list[Event]] = TypeAdapter(list[Event])


def export_trace(events: list[Any]) -> bytes:
    """The JSON a person downloads from the page; `load_trace` reads it back."""
    return TRACE_ADAPTER.dump_json(events, indent=2)


def load_trace(data: bytes | str) -> list[Any]:
    return TRACE_ADAPTER.validate_json(data)
