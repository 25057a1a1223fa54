"""Agent events -> what the page shows: the chat, the trace panel and the status line.

Pure data, no gradio: a trace message is a chat-message dict (`role`, `content`, `metadata` with
`title`, `id`, `parent_id`, `status`, `duration`, `log`), the format a messages chatbot renders
as foldable, nestable steps. `TurnView.apply(event)` is the one place an event becomes a change
on the page; `render(events)` replays a whole turn. `ui.page.values` makes the page's values.

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
from agent.react.grammar import decision_start, without_label
from agent.tokens import Tokens

from .labels import (
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
from .typed_text import as_typed

# A streaming Thought shows at most this much (the step's Thought event then gives it whole);
# past it, more text of the step changes nothing shown and costs nothing.
PREVIEW_CHARS = 4_000
# How far back from new text a label may begin: new text is searched from there on.
_CUT_REACH = 64


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _block(value: Any) -> str:
    return f"```json\n{_json(value)}\n```"


def streaming_thought(raw: str) -> str:
    """The Thought part of a step's text while it streams: no label, nothing from Action on."""
    cut = decision_start(raw)
    return without_label(raw[:cut], "thought")


class _ThoughtPreview:
    """`streaming_thought` of one step's text as it grows, reading each piece once: the search
    for the Action label goes on from just before the new piece, and the text stops growing
    once the label is found or the preview is full."""

    def __init__(self) -> None:
        self.raw = ""
        self.final: str | None = None  # the preview, once nothing can change it

    def feed(self, text: str) -> str:
        """The preview with `text` added."""
        if self.final is not None:
            return self.final
        start = max(0, len(self.raw) - _CUT_REACH)
        self.raw += text[: PREVIEW_CHARS + _CUT_REACH - len(self.raw)]
        cut = decision_start(self.raw, start)
        if cut is not None:
            self.final = without_label(self.raw[:cut], "thought")
        elif len(self.raw) >= PREVIEW_CHARS:
            self.final = without_label(self.raw[:PREVIEW_CHARS], "thought") + "…"
        else:
            return without_label(self.raw, "thought")
        self.raw = ""
        return self.final


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
        self.messages: list[dict[str, Any]] = []
        self._answer: list[str] = []  # pieces, joined when read: deltas add without copying
        self.final: AnswerEvent | AskUserEvent | ApprovalEvent | ErrorEvent | None = None
        self.model = ""
        self.offline = False
        self.stats: RunFinishedEvent | None = None
        self.stopped = False
        # Seconds the model has been silent, while it is (`model_wait`), for the status line.
        self.silent_for: int | None = None
        self.notices: list[str] = []
        self.images: list[Any] = []
        # The images the turn's tools made, for the answer bubble (the chat shows them).
        self.made: list[Any] = []
        self.tool_calls = 0
        self.tokens = Tokens()  # the model calls' tokens so far
        self._by_id: dict[str, dict[str, Any]] = {}
        self._previews: dict[int, _ThoughtPreview] = {}
        # Thought messages still pending, so closing them does not walk the whole trace.
        self._open_thoughts: list[dict[str, Any]] = []
        # Each call's content before its result, so a result replaces rather than piles up.
        self._call_heads: dict[str, str] = {}
        self._seq = 0
        title = self.words["turn"].format(n=number)
        if question:
            title = self.words["named"].format(title, as_typed(_snippet(question)))
        self._add(self.turn_id, title, "", status="pending")

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
                turn = self._by_id[self.turn_id]
                turn["content"] = "\n\n".join(lines)
                turn["metadata"]["log"] = self.model_name
            case NoticeEvent():
                self.notices.append(event.message)
                self._add(self._next("notice"), w["notice"], event.message, status="done")
            case ModelDeltaEvent():
                preview = self._previews.setdefault(event.step, _ThoughtPreview())
                thought = preview.feed(event.text)
                key = f"thought-{event.step}"
                if key in self._by_id:
                    self._by_id[key]["content"] = thought or w["thinking"]
                elif thought:
                    self._add(key, f"{w['thought']} {event.step}", thought, status="pending")
            case ModelCallEvent():
                # The model's time and tokens show beside its Thought, as a tool's time beside
                # the tool.
                call = Tokens.of([event])
                self.tokens.add(call)
                message = self._by_id.get(f"thought-{event.step}")
                if message is not None:
                    message["metadata"]["log"] = joined(
                        self._took(event.duration),
                        call_tokens_text(call, self.language),
                        cost_text(call, self.language),
                    )
            case ThoughtEvent():
                key = f"thought-{event.step}"
                if key not in self._by_id:
                    self._add(key, f"{w['thought']} {event.step}", "")
                message = self._by_id[key]
                message["content"] = event.text
                message["metadata"]["status"] = "done"
            case ToolCallEvent():
                self.tool_calls += 1
                self._close_thoughts()
                content = f"**{w['arguments']}**\n{_block(event.arguments)}"
                title = w["named"].format(w["tool"], event.tool)
                self._add(
                    f"call-{event.call_id}", title, content, status="pending", log=w["running"]
                )
            case ToolProgressEvent():
                message = self._by_id.get(f"call-{event.call_id}")
                if message is not None:
                    message["metadata"]["log"] = event.message
            case ToolResultEvent():
                self._tool_result(event)
            case StepRetryEvent():
                title = w["retry"] + w["aside"].format(f"{w['thought']} {event.step}")
                self._add(self._next("retry"), title, event.reason, status="done")
            case TaskStateEvent():
                self._task_state(event)
            case AskUserEvent():
                self.final = event
                self.answer = event.question
                self._add(self._next("ask"), w["asked"], event.question, status="done")
            case ApprovalEvent():
                self.final = event
                self.answer = event.question
                body = f"{event.problem}\n\n" if event.problem else ""
                content = f"{body}**{w['arguments']}**\n{_block(event.arguments)}"
                title = w["named"].format(w["approval"], event.tool)
                self._add(self._next("approval"), title, content, status="done")
            case ApprovalDecisionEvent():
                title = w["named"].format(w["decision"][event.decision], event.tool)
                lines = [f"**{w['arguments']}**\n{_block(event.arguments)}"]
                if event.always:
                    lines.insert(0, w["always"])
                if event.by == "policy":
                    lines.insert(0, w["by_policy"])
                self._add(self._next("decision"), title, "\n\n".join(lines), status="done")
            case AnswerDeltaEvent():
                self._answer.append(event.text)
            case AnswerEvent():
                self.final = event
                self.answer = event.text
            case ErrorEvent():
                self.final = event
                self.answer = event.message
                self._add(self._next("error"), w["error"], event.message, status="done")
            case RunFinishedEvent():
                self.stats = event
                self._close_thoughts()
                turn = self._by_id[self.turn_id]
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
        for message in self.messages:
            meta = message["metadata"]
            if meta.get("status") == "pending":
                meta["status"] = "done"
                if meta.get("id") != self.turn_id:
                    meta["log"] = w["stopped"]
        turn = self._by_id[self.turn_id]
        turn["metadata"]["log"] = w["stopped"]
        self._add(self._next("stopped"), w["stopped"], w["stopped_text"], status="done")
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
        if key not in self._by_id:
            self._add(key, w["named"].format(w["tool"], event.tool), "")
        message = self._by_id[key]
        # A second result for the same call (only a damaged or hostile trace has one) replaces
        # the first.
        head = self._call_heads.setdefault(key, str(message["content"]))
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
        if key not in self._by_id and event.status in ("calling", "done"):
            # A tool called with everything it needs is shown by its own step; the task panel
            # is for a dialogue: something was missing, in this turn or an earlier one.
            return
        known = ", ".join(f"{k} = {v}" for k, v in event.known.items()) or w["nothing"]
        missing = ", ".join(event.missing) or w["nothing"]
        known_line = w["field"].format(w["known"], known)
        content = f"{known_line}\n\n{w['field'].format(w['missing'], missing)}"
        title = w["named"].format(w["task"], event.tool or "—")
        status_word = w["status"].get(event.status, event.status)
        if key in self._by_id:
            message = self._by_id[key]
            message["content"] = content
            message["metadata"].update(title=title, log=status_word)
        else:
            self._add(key, title, content, status="done", log=status_word)

    def _close_thoughts(self) -> None:
        for message in self._open_thoughts:
            meta = message["metadata"]
            if meta.get("status") == "pending":
                meta["status"] = "done"
        self._open_thoughts.clear()

    def _next(self, kind: str) -> str:
        self._seq += 1
        return f"{kind}-{self._seq}"

    def _add(
        self,
        key: str,
        title: str,
        content: Any,
        *,
        status: str | None = "done",
        log: str | None = None,
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {"title": title, "id": key}
        if key != self.turn_id:
            meta.update(id=f"{self.turn_id}/{key}", parent_id=self.turn_id)
        if status:
            meta["status"] = status
        if log:
            meta["log"] = log
        message = {"role": "assistant", "content": content, "metadata": meta}
        self.messages.append(message)
        self._by_id[key] = message
        self._call_heads.pop(key, None)  # a call made again under its id starts afresh
        if key.startswith("thought-") and status == "pending":
            self._open_thoughts.append(message)
        return message


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
