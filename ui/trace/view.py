"""Agent events -> what the page shows: the chat, the trace panel and the status line.

Pure data, no gradio. `TurnView.apply(event)` is the one place an event becomes a change on the
page (the trace's messages are `ui.trace.steps`'); `render(events)` replays a whole turn.
`ui.page.values` makes the page's values.

Applying an event costs what it holds, plus at most a Thought preview's worth, never the trace
before it: a stored or uploaded turn of 200,000 events replays in time proportional to its size
(re-reading the whole trace at each event once took 37 s for 20,000).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, assert_never

from agent.events import (
    AnswerDeltaEvent,
    AnswerEvent,
    ApprovalDecisionEvent,
    ApprovalEvent,
    AskUserEvent,
    ErrorEvent,
    Event,
    ModelCallEvent,
    ModelDeltaEvent,
    ModelWaitEvent,
    NoticeEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepRetryEvent,
    TaskStateEvent,
    ThoughtEvent,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
)
from agent.tokens import Tokens

from ..labels import (
    call_tokens_text,
    calls_text,
    cost_text,
    duration_text,
    joined,
    model_name,
    protocol_text,
    stats_text,
    words,
)
from ..typed_text import as_typed
from .steps import TraceSteps
from .thought import ThoughtPreview


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _block(value: Any) -> str:
    return f"```json\n{_json(value)}\n```"


class TurnView:
    """The trace messages and the answer of one turn, updated event by event.

    `messages` nest under one turn message (`id` `turn-<n>`), which stays open while the turn
    runs and folds when it finishes; each step folds when it is done, so the latest is in view.
    """

    def __init__(self, number: int = 1, language: str = "en", question: str = "") -> None:
        self.number = number
        self.language = language
        self.words = words(language)
        self.turn_id = f"turn-{number}"
        self.steps = TraceSteps(self.turn_id)
        self.messages = self.steps.messages
        self._answer: list[str] = []  # pieces, joined when read: deltas add without copying
        self.final: AnswerEvent | AskUserEvent | ApprovalEvent | ErrorEvent | None = None
        self.model = ""
        self.offline = False
        self.stats: RunFinishedEvent | None = None
        self.stopped = False
        # Seconds the model has been silent, while it is (`model_wait`), for the status line.
        self.silent_for: int | None = None
        self.notices: list[str] = []
        # Notices the chat shows under the reply (`NoticeEvent.kind`), not only the trace.
        self.asides: list[str] = []
        self.images: list[Any] = []
        # The images the turn's tools made, for the answer bubble (the chat shows them).
        self.made: list[Any] = []
        self.tool_calls = 0
        self.tokens = Tokens()  # the model calls' tokens so far
        self._previews: dict[int, ThoughtPreview] = {}
        title = self.words["turn"].format(n=number)
        if question:
            title = self.words["named"].format(title, as_typed(_snippet(question)))
        self.steps.add(self.turn_id, title, "", status="pending")

    # -- the mapping ------------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Change the view for one event. The match names every event class, so a new one
        fails here (and in the type checker) until it is given a place on the page."""
        if self.stopped:
            return  # what a stopped turn still did on its way out is not shown as done
        w = self.words
        self.silent_for = None  # any event but a wait says the model is heard from
        match event:
            case ModelWaitEvent():
                self.silent_for = event.seconds
            case RunStartedEvent():
                self.model, self.offline = event.model, event.offline
                self.images = list(event.images)
                lines = [w["field"].format(w["model"], self.model_name)]
                if event.images:
                    shown = ", ".join(f"{i.id} {i.width}×{i.height}" for i in event.images)
                    lines.append(w["field"].format(w["images"], shown))
                turn = self.steps.by_id[self.turn_id]
                turn["content"] = "\n\n".join(lines)
                turn["metadata"]["log"] = self.model_name
            case NoticeEvent():
                self.notices.append(event.message)
                if event.kind == "task_set_aside":
                    self.asides.append(event.message)
                self.steps.add_new("notice", w["notice"], event.message)
            case ModelDeltaEvent():
                preview = self._previews.setdefault(event.step, ThoughtPreview())
                thought = preview.feed(event.text)
                key = f"thought-{event.step}"
                if key in self.steps.by_id:
                    self.steps.by_id[key]["content"] = thought or w["thinking"]
                elif thought:
                    self.steps.add(key, f"{w['thought']} {event.step}", thought, status="pending")
            case ModelCallEvent():
                # The model's time and tokens show beside its Thought, as a tool's time beside
                # the tool.
                call = Tokens.of([event])
                self.tokens.add(call)
                message = self.steps.by_id.get(f"thought-{event.step}")
                if message is not None:
                    message["metadata"]["log"] = joined(
                        self._took(event.duration),
                        call_tokens_text(call, self.language),
                        cost_text(call, self.language),
                    )
            case ThoughtEvent():
                key = f"thought-{event.step}"
                if key not in self.steps.by_id:
                    self.steps.add(key, f"{w['thought']} {event.step}", "")
                message = self.steps.by_id[key]
                message["content"] = event.text
                message["metadata"]["status"] = "done"
            case ToolCallEvent():
                self.tool_calls += 1
                self.steps.close_thoughts()
                content = f"**{w['arguments']}**\n{_block(event.arguments)}"
                title = w["named"].format(w["tool"], event.tool)
                self.steps.add(
                    f"call-{event.call_id}", title, content, status="pending", log=w["running"]
                )
            case ToolProgressEvent():
                message = self.steps.by_id.get(f"call-{event.call_id}")
                if message is not None:
                    message["metadata"]["log"] = event.message
            case ToolResultEvent():
                self._tool_result(event)
            case StepRetryEvent():
                title = w["retry"] + w["aside"].format(f"{w['thought']} {event.step}")
                self.steps.add_new("retry", title, event.reason)
            case TaskStateEvent():
                self._task_state(event)
            case AskUserEvent():
                self.final = event
                self.answer = event.question
                self.steps.add_new("ask", w["asked"], event.question)
            case ApprovalEvent():
                self.final = event
                self.answer = event.question
                body = f"{event.problem}\n\n" if event.problem else ""
                content = f"{body}**{w['arguments']}**\n{_block(event.arguments)}"
                title = w["named"].format(w["approval"], event.tool)
                self.steps.add_new("approval", title, content)
            case ApprovalDecisionEvent():
                title = w["named"].format(w["decision"][event.decision], event.tool)
                lines = [f"**{w['arguments']}**\n{_block(event.arguments)}"]
                if event.always:
                    lines.insert(0, w["always"])
                if event.by == "policy":
                    lines.insert(0, w["by_policy"])
                self.steps.add_new("decision", title, "\n\n".join(lines))
            case AnswerDeltaEvent():
                self._answer.append(event.text)
            case AnswerEvent():
                self.final = event
                self.answer = event.text
            case ErrorEvent():
                self.final = event
                self.answer = event.message
                self.steps.add_new("error", w["error"], event.message)
            case RunFinishedEvent():
                self.stats = event
                self.steps.close_thoughts()
                turn = self.steps.by_id[self.turn_id]
                calls = calls_text(event.model_calls, self.language)
                # Short, so a turn's title row stays within two lines on a phone: the model's
                # name is in the turn's body and in the status line.
                turn["metadata"].update(
                    status="done", log=joined(calls, self._took(event.duration))
                )
            case _:
                assert_never(event)

    def stop(self) -> None:
        """Mark what was still running as stopped (the person pressed Stop, or the turn was
        cancelled some other way); a finished or already stopped turn stays as it is."""
        if self.done:
            return
        self.stopped = True
        w = self.words
        self.steps.stop(w["stopped"])
        self.steps.add_new("stopped", w["stopped"], w["stopped_text"])
        # A half-streamed answer says where it was cut, so it is not read as the whole.
        self.answer = f"{self.answer}…\n\n{w['stopped_text']}" if self.answer else w["stopped_text"]

    @property
    def answer(self) -> str:
        if len(self._answer) > 1:
            self._answer = ["".join(self._answer)]
        return self._answer[0] if self._answer else ""

    @answer.setter
    def answer(self, text: str) -> None:
        self._answer = [text]

    @property
    def done(self) -> bool:
        return self.final is not None or self.stopped

    @property
    def stats_line(self) -> str:
        """`model · protocol · N tool calls · N model calls · N tokens · S s` once the turn has
        finished, else ''."""
        if self.stats is None:
            return ""
        s = self.stats
        tools = calls_text(self.tool_calls, self.language, "tool_calls") if self.tool_calls else ""
        cost = stats_text(s.model_calls, s.duration, self.language, self.tokens)
        # A turn that ended in error says so first: its figures alone read like a success.
        failed = self.words["error"] if isinstance(self.final, ErrorEvent) else ""
        model = self.name_of(s.model)
        return joined(failed, model, protocol_text(s.protocol, self.language), tools, cost)

    @property
    def model_name(self) -> str:
        return self.name_of(self.model)

    def name_of(self, model: str) -> str:
        return model_name(model, self.offline, self.language)

    # -- helpers ----------------------------------------------------------------------------------

    def _tool_result(self, event: ToolResultEvent) -> None:
        w = self.words
        key = f"call-{event.call_id}"
        if key not in self.steps.by_id:
            self.steps.add(key, w["named"].format(w["tool"], event.tool), "")
        message = self.steps.by_id[key]
        # A second result for the same call (only a damaged or hostile trace has one) replaces
        # the first.
        head = self.steps.call_heads.setdefault(key, str(message["content"]))
        failed = w["aside"].format(w["failed"])
        label = w["result"] if event.ok else w["result"] + failed
        text = event.text if event.ok else (event.error or event.text)
        body = f"{head}\n\n**{label}**\n\n{text}".strip()
        paths = [i.path for i in event.images if i.path]
        message["content"] = [body, *({"path": p} for p in paths)] if paths else body
        took = self._took(event.duration)
        message["metadata"].update(
            title=w["named"].format(w["tool"], event.tool) + ("" if event.ok else failed),
            status="done",
            log=took if event.ok else joined(w["failed"], took),
        )
        self.images.extend(event.images)
        self.made.extend(i for i in event.images if i.path)

    def _took(self, seconds: float) -> str:
        # Gradio writes a step's `duration` its own way ("10.0ms", "0.2s"); the page writes
        # every duration one way, in the step's log.
        return duration_text(seconds, self.language)

    def _task_state(self, event: TaskStateEvent) -> None:
        w = self.words
        key = "task"
        if key not in self.steps.by_id and event.status in ("calling", "done", "failed"):
            # A tool called with everything it needs is shown by its own step; the task panel
            # is for a dialogue: something was missing, in this turn or an earlier one.
            return
        known = ", ".join(f"{k} = {_value(v)}" for k, v in event.known.items()) or w["nothing"]
        missing = ", ".join(event.missing) or w["nothing"]
        known_line = w["field"].format(w["known"], known)
        content = f"{known_line}\n\n{w['field'].format(w['missing'], missing)}"
        title = w["named"].format(w["task"], event.tool or "—")
        status_word = w["status"].get(event.status, event.status)
        if key in self.steps.by_id:
            message = self.steps.by_id[key]
            message["content"] = content
            message["metadata"].update(title=title, log=status_word)
        else:
            self.steps.add(key, title, content, status="done", log=status_word)


def _value(value: Any) -> Any:
    """A known value as shown: 5.0 as 5, as the browser's copy of the trace (JSON read by
    JavaScript) gives it back after a reload."""
    whole = isinstance(value, float) and value.is_integer() and abs(value) < 1e15
    return int(value) if whole else value


def _snippet(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(
    events: Iterable[Event], number: int = 1, language: str = "en", question: str = ""
) -> TurnView:
    """Replay a whole turn; returns the finished `TurnView`."""
    view = TurnView(number, language, question)
    for event in events:
        view.apply(event)
    return view
