"""The state of one turn, shared by the loop (`runner.py`) and the actions (`acting.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

from tools.base import Tool

from . import dialogue, prompts
from .error_words import say
from .events import (
    AnswerEvent,
    ApprovalEvent,
    AskUserEvent,
    ErrorEvent,
    ImageInfo,
    ModelCallEvent,
    NoticeEvent,
    RunFinishedEvent,
    RunStartedEvent,
)
from .images.intake import RefusedImage, Upload, message_problem, sort_images, turn_language
from .images.store import ImageRef
from .mailbox import Mailbox
from .messages import StepRecord, action_text, made_note
from .models.base import ModelError, ModelRequest
from .offload import Overdue, run_quick
from .prices import priced
from .react.parser import Step
from .session import Session, Turn
from .style import TurnContext
from .tokens import call_counts
from .tracing import telemetry

log = logging.getLogger(__name__)

Terminal = AnswerEvent | AskUserEvent | ApprovalEvent | ErrorEvent


def image_info(ref: ImageRef) -> ImageInfo:
    return ImageInfo.of(ref)


class ToolProtocol(Protocol):
    """How a turn's model calls tools: the ReAct text (`agent.react.step.ReactText`) or the
    endpoint's own tool calls (`agent.native.NativeCalls`). The loop calls `step` once per
    model call; `step_messages` renders the turn's steps so far for the next request."""

    name: str

    async def step(self, turn: TurnState, step_no: int) -> Terminal | None: ...

    @staticmethod
    def step_messages(
        steps: Sequence[StepRecord], store: Any, detail: Any
    ) -> list[dict[str, Any]]: ...


class TurnState:
    """One turn's words, images, finished steps and counters, and where its events go."""

    def __init__(self, agent: Any, text: str, session: Session) -> None:
        self.agent = agent
        self.text = text.strip()
        # The conversation, and the copy of it this turn works on (`Session.draft`): the
        # conversation changes only when the turn commits it.
        self.session = session
        self.draft = session.draft()
        self.speak(session.task)  # as a reply to the pending task, until its tool has read it
        # The pending task, set aside while this turn does something else (`agent.waiting`).
        self.waiting: dialogue.PendingTask | None = None
        self.waiting_from: dialogue.PendingTask | None = None  # the draft's task it copies
        self.refs: list[ImageRef] = []
        # Uploads of this turn that were refused: the reply has to say so.
        self.refused: list[RefusedImage] = []
        self.steps: list[StepRecord] = []
        self.model_calls = 0
        self.tool_calls = 0
        self.parse_retries = 0
        self.repeats = 0
        self.seen_actions: dict[str, str] = {}
        # Arguments of each tool's task finished this turn.
        self.completed: dict[str, dict[str, Any]] = {}
        self.started = time.monotonic()
        self.queue = Mailbox()
        self.emit = self.queue.put
        self.run_id = secrets.token_hex(6)
        # The tool protocol this turn speaks (`agent.native.protocol_for`).
        self.protocol: ToolProtocol = agent.protocol_now()
        # Tracing watches every event on its way to the queue; off, nothing stands between.
        self.tracer = telemetry.turn_tracer(agent, session)
        if self.tracer is not None:
            self.emit = self.tracer.watch(self.emit)
        # When the consumer last got an event and has not asked for the next (None: it asked).
        self.waiting_since: float | None = None
        # The step whose model call has sent nothing yet, and since when (`model_stream`).
        self.silent: tuple[int, float] | None = None

    def speak(self, task: dialogue.PendingTask | None) -> None:
        """The turn's language, for a message that answers `task` (None: one that answers none)."""
        history, default = self.session.history, self.agent.language
        previous = history[-1].language if history else None
        asked = (task.language or previous or default) if task is not None else None
        self.language = turn_language(self.text[:2000], default, previous, asked)

    def request(self, messages: list[dict[str, Any]] | None = None, purpose: str = "step") -> Any:
        agent = self.agent
        if messages is None:
            note = self.notes()
            context = TurnContext(
                self.draft,
                self.text + note,
                self.refs,
                self.steps,
                self.transcript(),
                self.language,
                agent.image_detail,
                note,
            )
            built: list[dict[str, Any]] = agent.style.messages(context)
        else:
            built = messages
        request = ModelRequest(
            messages=built,
            temperature=agent.temperature,
            purpose=purpose,  # type: ignore[arg-type]
            tools=agent.tools,
            language=self.language,
        )
        # A hosted model's retries show in the trace while they wait.
        request.on_retry = lambda sentence: self.emit(NoticeEvent(message=sentence))
        return request

    @contextlib.asynccontextmanager
    async def model_stream(self, request: ModelRequest, step: int) -> AsyncIterator[Any]:
        """The model's reply to `request` in pieces; when the call ends, however it ends, a
        `model_call` event says how long it took and what the service reported."""
        request.want_usage = True  # every call's tokens are counted, traced or not
        if self.tracer is not None:
            self.tracer.request(step, request)
        started = time.monotonic()
        error: str | None = None
        reply: list[Any] = []  # what was streamed, for an estimate where nothing is counted
        self.silent = (step, started)
        try:
            async with contextlib.aclosing(self.agent.model.stream(request)) as chunks:
                yield self._heard(chunks, reply)
        except ModelError as exc:
            error = exc.kind
            raise
        except asyncio.CancelledError:
            error = "cancelled"
            raise
        except Exception as exc:
            error = type(exc).__name__
            raise
        finally:
            self.silent = None
            report = request.report
            # The limit the call was sent with: the request's own, else the model's.
            limit = request.max_tokens
            if limit is None:
                limit = getattr(self.agent.model, "max_tokens", None)
            name = self.agent.model.name
            counts = call_counts(report, request, reply, heard=error is None or bool(reply))
            counts = priced(counts, self.agent.settings.price_table(), name)
            self.emit(
                ModelCallEvent(
                    step=step,
                    model=name,
                    duration=time.monotonic() - started,
                    temperature=request.temperature,
                    max_tokens=limit,
                    finish_reason=report.finish_reason,
                    **counts,
                    error=error,
                )
            )

    async def _heard(self, chunks: AsyncIterator[Any], reply: list[Any]) -> AsyncIterator[Any]:
        """`chunks`, noting that the model is silent no more once the first arrives, and
        keeping each in `reply`."""
        async for chunk in chunks:
            self.silent = None
            reply.append(chunk)
            yield chunk

    def failed(self, kind: Any, key: str | None = None, **facts: Any) -> ErrorEvent:
        """The turn's end in error `kind`, said in the turn's language (`agent.error_words`'
        sentence `key`, the kind's own by default)."""
        return ErrorEvent(kind=kind, message=say(key or kind, self.language, **facts))

    def refused_note(self) -> str:
        """A line under the person's words saying which uploads never reached the model, so
        that any model can tell them instead of asking for an image they did send."""
        if not self.refused:
            return ""
        reasons = " ".join(r.sentence(self.language) for r in self.refused)
        return "\n" + prompts.phrase(self.language, "refused_note", reasons=reasons)

    def notes(self) -> str:
        """The lines under the person's words: refused uploads, images no message shows."""
        shown = [*(r.id for r in self.refs), *(i for s in self.steps for i in s.image_ids)]
        return self.refused_note() + made_note(self.draft, shown)

    def transcript(self) -> str:
        task = self.draft.task
        done = task.transcript if task else []
        current = [f"{s.text}\nObservation: {s.observation}" for s in self.steps]
        return "\n".join([*done, *current])

    def record(
        self,
        text: str,
        observation: str,
        image_ids: Sequence[str] = (),
        *,
        kind: str = "tool",
        ok: bool = True,
        tool: str = "",
        call: Any = None,
    ) -> None:
        self.steps.append(
            StepRecord(
                text=text,
                observation=observation,
                image_ids=list(image_ids),
                kind=kind,  # type: ignore[arg-type]
                ok=ok,
                tool=tool,
                call=call,
            )
        )

    def replay(
        self, step: Step, tool: str | None = None, arguments: dict[str, Any] | None = None
    ) -> str:
        return action_text(
            step.thought,
            tool or step.tool or "",
            step.tool_input if arguments is None else arguments,
            step.thought_data,
        )

    def known_names(self) -> list[str]:
        return [*self.agent.tool_by_name, *prompts.CONTROL_ACTIONS]

    async def check(self, tool: Tool, params: dict[str, Any]) -> dialogue.Check:
        """Validate off the event loop, with a deadline, where a validator of the tool's own may
        parse (units through pint). Plain type checks are bounded by pydantic's core, and a
        quick tool declares its whole work small and bounded (its hostile inputs are tested to
        stay so): those are checked inline, where a thread hop would cost more than the check."""
        if getattr(tool, "quick", False) or not dialogue.custom_validators(tool.Args):
            return dialogue.check(tool, params)
        try:
            return await run_quick(dialogue.check, tool, params, what=f"{tool.name} arguments")
        except Overdue as exc:
            log.warning("checking arguments of %s: %s", tool.name, exc)
            return dialogue.Check(
                invalid={"input": "these values took too long to check; use simpler ones"}
            )

    async def intake(self, images: Sequence[Upload]) -> Terminal | None:
        agent = self.agent
        problem = message_problem(
            self.text,
            len(images),
            max_chars=agent.settings.max_message_chars,
            max_images=agent.settings.max_images_per_message,
            language=self.language,
        )
        if problem is None:
            self.refs, self.refused = await sort_images(self.draft.images, images)
            told = {id(i) for i in images if isinstance(i, RefusedImage)}
            for refused in self.refused:
                # One refused by the caller was already shown there.
                if id(refused) not in told:
                    self.emit(NoticeEvent(message=refused.sentence(self.language)))
        self.emit(
            RunStartedEvent(
                run_id=self.run_id,
                model=agent.model.name,
                offline=getattr(agent.model, "offline", False),
                language=self.language,
                style=agent.style.name,
                protocol=self.protocol.name,
                images=[image_info(r) for r in self.refs],
            )
        )
        if problem is None and (self.text or self.refs):
            return None
        # Refused as a whole: the conversation and its task stay as they were.
        return ErrorEvent(
            message=problem or "Type a question or attach an image first.", kind="input"
        )

    def finish(self, final: Terminal) -> None:
        """`run_finished` with the statistics, then the terminal event, always last."""
        self.emit(
            RunFinishedEvent(
                status=_outcome(final),
                model=self.agent.model.name,
                model_calls=self.model_calls,
                steps=self.tool_calls,
                duration=time.monotonic() - self.started,
                protocol=self.protocol.name,
            )
        )
        self.emit(final)

    def remember(self, final: Terminal) -> None:
        outcome = _outcome(final)
        reply = getattr(final, "text", None) or getattr(final, "question", None) or ""
        turn = self.kept_turn(reply if outcome != "error" else "", outcome)
        history = self.draft.history
        history.append(turn)
        del history[: -self.agent.settings.max_history_turns]

    def kept_turn(self, reply: str = "", outcome: Any = "stopped") -> Turn:
        """What the conversation keeps of this turn."""
        image_ids = [r.id for r in self.refs]
        return Turn(
            run_id=self.run_id,
            language=self.language,
            user_text=self.text,
            image_ids=image_ids,
            reply=reply,
            outcome=outcome,
        )


def _outcome(final: Terminal) -> Any:
    match final:
        case AnswerEvent(ended=True):
            return "ended"
        case AnswerEvent():
            return "answered"
        case AskUserEvent() | ApprovalEvent():
            return "asked"
        case _:
            return "error"
