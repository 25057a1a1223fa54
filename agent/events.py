"""The closed set of events a turn emits: the trace schema and the export format.

Every event has a literal `type`. A tool call and its result share `call_id`. A turn always ends
with exactly one terminal event (`answer`, `ask_user`, `approval` or `error`), and `run_finished`
with the turn's statistics comes right before it.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class _Event(BaseModel):
    at: float = Field(default_factory=time.time)


class ImageInfo(BaseModel):
    """The trace's view of an image (`tools.base.ImageRef`): its id, size and label."""

    id: str
    width: int
    height: int
    path: str = ""
    label: str = ""

    @classmethod
    def of(cls, ref: Any) -> ImageInfo:
        return cls(id=ref.id, width=ref.width, height=ref.height, path=ref.path, label=ref.label)


class RunStartedEvent(_Event):
    type: Literal["run_started"] = "run_started"
    run_id: str
    model: str
    offline: bool = False
    language: str = "en"
    style: str = "react"
    # How the model calls tools: the ReAct text protocol or the endpoint's own tool calling.
    protocol: str = "react"
    images: list[ImageInfo] = Field(default_factory=list)


class NoticeEvent(_Event):
    """Something the person should know that does not stop the turn (an image was refused)."""

    type: Literal["notice"] = "notice"
    message: str
    # "task_set_aside": the question the conversation was waiting on is dropped, which the
    # chat says under the turn's reply too, so a reload keeps it in view.
    kind: Literal["", "task_set_aside"] = ""


class ModelDeltaEvent(_Event):
    type: Literal["model_delta"] = "model_delta"
    step: int
    text: str


class ModelWaitEvent(_Event):
    """The model has sent nothing yet for step `step`, `seconds` after it was asked: said
    about once a second while it stays silent, so a watcher sees a slow model rather than a
    frozen turn. Passing, like a delta: the page does not keep it."""

    type: Literal["model_wait"] = "model_wait"
    step: int
    seconds: int


class ModelCallEvent(_Event):
    """One model call, when it has ended: how long it took and what the service said besides
    the text. Tokens are the service's count where it reports one, else an estimate from the
    text (`agent.tokens`) with `estimated` set; None for a call that failed before anything
    was said. `cached_tokens`: the input tokens the service had cached, where it says. `cost`:
    by the operator's price table (`agent.prices`), when the model is in it. `error` is the
    kind of failure that ended the call."""

    type: Literal["model_call"] = "model_call"
    step: int
    model: str
    duration: float
    temperature: float | None = None
    max_tokens: int | None = None
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    estimated: bool = False
    cost: float | None = None
    error: str | None = None


class ThoughtEvent(_Event):
    type: Literal["thought"] = "thought"
    step: int
    text: str


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    step: int
    call_id: str
    tool: str
    arguments: dict[str, Any]


class ToolProgressEvent(_Event):
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
    # What kind of failure, for machines: "timeout", or the exception's class name.
    error_type: str | None = None
    data: dict[str, Any] | None = None


class StepRetryEvent(_Event):
    """The model's reply could not be used; it is told why and tries again."""

    type: Literal["step_retry"] = "step_retry"
    step: int
    reason: str


class TaskStateEvent(_Event):
    type: Literal["task_state"] = "task_state"
    tool: str | None
    known: dict[str, Any] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    status: Literal["collecting", "calling", "done", "failed", "cleared", "ended"] = "collecting"


class AskUserEvent(_Event):
    type: Literal["ask_user"] = "ask_user"
    question: str
    tool: str | None = None
    missing: list[str] = Field(default_factory=list)


class ApprovalEvent(_Event):
    """The turn stops before a call to a tool that acts on the outside world, until the person
    approves it, edits its arguments or denies it (`agent.approval`). `problem` says why the
    last decision could not be used (edited arguments that do not fit); the call still waits."""

    type: Literal["approval"] = "approval"
    call_id: str
    tool: str
    arguments: dict[str, Any]
    question: str
    problem: str | None = None


class ApprovalDecisionEvent(_Event):
    """What became of a call that needed approval: the person's decision (`by` "user"), or the
    run's approval policy's (`by` "policy"). `cancel`: a new message was sent instead."""

    type: Literal["approval_decision"] = "approval_decision"
    call_id: str
    tool: str
    decision: Literal["approve", "edit", "deny", "cancel"]
    arguments: dict[str, Any] = Field(default_factory=dict)
    always: bool = False
    by: Literal["user", "policy"] = "user"


class AnswerDeltaEvent(_Event):
    type: Literal["answer_delta"] = "answer_delta"
    text: str


class AnswerEvent(_Event):
    type: Literal["answer"] = "answer"
    text: str
    ended: bool = False


# Why a turn ended in an error: the agent's own limits, then the model service's failures.
ErrorKind = Literal[
    "error",
    "input",
    "internal",
    "step_limit",
    "parse",
    "repeat",
    "stopped",
    "deadline",
    "limit",
    "model",
    "timeout",
    "auth",
    "rate_limit",
    "server",
    "bad_request",
    "bad_response",
    "connection",
    "cut_off",
    "empty",
    "http",
    "not_found",
    "tools_unsupported",
]


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    message: str
    kind: ErrorKind = "error"


class RunFinishedEvent(_Event):
    type: Literal["run_finished"] = "run_finished"
    status: Literal["answered", "asked", "ended", "error"]
    model: str
    model_calls: int
    steps: int
    duration: float
    protocol: str = "react"  # the one that ran (auto may fall back mid-turn)


Event = Annotated[
    RunStartedEvent
    | NoticeEvent
    | ModelDeltaEvent
    | ModelWaitEvent
    | ModelCallEvent
    | ThoughtEvent
    | ToolCallEvent
    | ToolProgressEvent
    | ToolResultEvent
    | StepRetryEvent
    | TaskStateEvent
    | AskUserEvent
    | ApprovalEvent
    | ApprovalDecisionEvent
    | AnswerDeltaEvent
    | AnswerEvent
    | ErrorEvent
    | RunFinishedEvent,
    Field(discriminator="type"),
]

TERMINAL_TYPES = ("answer", "ask_user", "approval", "error")

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
TRACE_ADAPTER: TypeAdapter[list[Event]] = TypeAdapter(list[Event])


def export_trace(events: list[Any]) -> bytes:
    """The JSON a person downloads from the page; `load_trace` reads it back.

    Images appear by id, size and label only: where the server keeps them is nobody's business
    once the file leaves it, and an export is made to be shared.
    """
    # A model's silence is said while it lasts; afterwards the model call's time tells it.
    kept = [e for e in events if getattr(e, "type", None) != "model_wait"]
    data = TRACE_ADAPTER.dump_python(kept, mode="json")
    for event in data:
        for image in event.get("images") or ():
            image.pop("path", None)
        if event.get("data"):
            _drop_image_paths(event["data"])  # a tool's result data may hold its image refs
    return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")


def _drop_image_paths(value: Any) -> None:
    """Remove the server path of every image ref (a dict with an `id` and a `path`) inside."""
    if isinstance(value, dict):
        if "id" in value and "path" in value:
            value.pop("path")
        for item in value.values():
            _drop_image_paths(item)
    elif isinstance(value, list):
        for item in value:
            _drop_image_paths(item)


def load_trace(data: bytes | str) -> list[Any]:
    """Events from an export, including older ones that still carry image paths."""
    return TRACE_ADAPTER.validate_json(data)


# The names these classes had before they all ended in `Event`; older imports keep working.
RunStarted = RunStartedEvent
Notice = NoticeEvent
ModelDelta = ModelDeltaEvent
Thought = ThoughtEvent
ToolCall = ToolCallEvent
ToolProgress = ToolProgressEvent
StepRetry = StepRetryEvent
TaskState = TaskStateEvent
AskUser = AskUserEvent
AnswerDelta = AnswerDeltaEvent
Answer = AnswerEvent
RunFinished = RunFinishedEvent
