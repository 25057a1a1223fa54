"""The ReAct loop. `Agent.run(text, images, session)` yields events as they happen.

One turn:
1. Intake (`intake.py`): a message over its bounds is refused whole; uploads become images, a
   refused one a notice.
2. A decision on a call waiting for approval is carried out first (`approval.py`); a reply to
   the agent's question fills the pending task (`dialogue.py`).
3. Each step speaks one tool protocol. ReAct text (`react.py`): build the request (the prompt
   style and `messages.py`), stream the model, forward text after `Answer:` as it arrives, and
   read the step (`parser.py`); an unreadable reply is sent back with a hint, a bounded number
   of times. Native tool calling (`native.py`): the tools go as the endpoint's `tools`
   parameter and each streamed call is one action; `auto` falls back to ReAct text when an
   endpoint refuses tools.
4. An answer ends the turn. An action (`acting.py`) is decided in code
   (`dialogue.decide_action`): a control action ends, asks or finds no tool; a tool's
   arguments are merged and checked (`dialogue.decide_arguments`): missing ones are asked of
   the user, invalid ones go back to the model, valid ones run (`tool_run.py`) and become the
   Observation. A tool that acts on the outside world first needs approval (`approval.py`):
   the turn ends with the call, and the next one resumes it with the person's decision.
5. Repeat from 3 until an answer, a question, an error, the step limit or the turn's time
   limit; then `run_finished` and the terminal event.

The turn runs as a task that emits events into a queue, and `run` yields them: every part of
the loop is a plain coroutine that returns the turn's terminal event, or None to go on.
Closing the iterator (or cancelling its consumer, or leaving its events untaken) cancels the
task, which closes the model stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from tools.base import Tool

from . import acting, native, waiting
from . import approval as _approval
from .calls import Ready
from .config import ApprovalPolicy, ImageDetail, Language, Settings, Style, ToolProtocolName
from .events import (
    ApprovalEvent,
    ErrorEvent,
    Event,
    ModelWaitEvent,
    RunStartedEvent,
)
from .images.intake import Upload
from .images.store import ImageStore
from .models.base import ChatModel, ModelError
from .session import Session
from .style import ReactStyle, make_style
from .tool_run import ToolCrashed
from .tracing import telemetry
from .turn import Terminal, ToolProtocol, TurnState
from .turn_handle import TurnHandle

log = logging.getLogger(__name__)

MAX_PARSE_RETRIES = 2
_DONE = object()
# Seconds an event may wait for a consumer before the turn counts as abandoned.
CONSUMER_GONE = 5.0


class Agent:
    """A multimodal ReAct agent over any `ChatModel` and a list of tools.

    `tracer` (an OpenTelemetry `Tracer` or `TracerProvider`) traces this agent's turns; without
    one they go where `telemetry.configure_tracing` or the OTEL_* settings say, if anywhere.
    `name` is the agent's name in those traces."""

    def __init__(
        self,
        model: ChatModel,
        tools: Sequence[Tool] | None = None,
        *,
        settings: Settings | None = None,
        language: Language | None = None,
        style: Style | None = None,
        max_steps: int | None = None,
        temperature: float | None = None,
        image_detail: ImageDetail | None = None,
        tool_timeout: float | None = None,
        max_parse_retries: int = MAX_PARSE_RETRIES,
        tool_protocol: ToolProtocolName | None = None,
        approval: ApprovalPolicy | None = None,
        tracer: Any = None,
        name: str = "multimodal-react-agent",
    ) -> None:
        self.settings = settings = settings or Settings()
        if tools is None:
            from tools import default_tools

            tools = default_tools(settings.tool_settings())
        self.model = model
        self.tools: list[Tool] = list(tools)
        self.tool_by_name = {tool.name: tool for tool in self.tools}
        self.language = language or settings.language
        self.style = make_style(style or settings.prompt_style, self.tools)
        self.max_steps = max_steps or settings.max_steps
        self.temperature = settings.temperature if temperature is None else temperature
        self.image_detail = image_detail or settings.image_detail
        self.tool_timeout = tool_timeout or settings.tool_timeout
        self.max_parse_retries = max_parse_retries
        # react | native | auto (the default): native where the model can call tools natively
        # (hosted endpoints), else the ReAct text (the offline model, scripted replies).
        protocol = tool_protocol or settings.tool_protocol or "auto"
        if protocol not in ("react", "native", "auto"):
            raise ValueError(f"unknown tool protocol {protocol!r}; use react, native or auto")
        self.tool_protocol: ToolProtocolName = protocol
        # ask | always | never: what happens before a tool that acts on the world runs.
        self.approval = _approval.check_policy(approval or settings.approval)
        self.tracer = telemetry.as_tracer(tracer)
        self.name = name

    def protocol_now(self) -> ToolProtocol:
        """The protocol a turn starts with (`native.protocol_for`)."""
        return native.protocol_for(self.model, self.tool_protocol)

    def header(self, language: str, task_state: str = "") -> str:
        """The ReAct system header for these tools."""
        return ReactStyle(self.tools).header(language, task_state)

    def run(
        self,
        text: str,
        images: Sequence[Upload] = (),
        session: Session | None = None,
        *,
        decision: _approval.ApprovalDecision | None = None,
        stop: asyncio.Event | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Run one turn: an async iterator of events whose last is `answer`, `ask_user`,
        `approval` or `error`. Closing it (or cancelling its consumer) stops the model stream
        and the tool; so does setting `stop`, at once, even while the consumer waits for the
        next event (the iterator then ends without a last event). `decision` decides the call
        waiting for approval (`agent.approval`); a message typed instead may decide it too
        ("yes", "no")."""
        return self._handle(text, images, session, decision, stop).events()

    def start(
        self,
        text: str,
        images: Sequence[Upload] = (),
        session: Session | None = None,
        *,
        decision: _approval.ApprovalDecision | None = None,
    ) -> TurnHandle:
        """One turn as a handle (`agent.turn_handle`): its `events()` are `run`'s, and its
        `cancel()` ends it at once."""
        return self._handle(text, images, session, decision)

    def _handle(
        self,
        text: str,
        images: Sequence[Upload],
        session: Session | None,
        decision: _approval.ApprovalDecision | None,
        stop: asyncio.Event | None = None,
    ) -> TurnHandle:
        session = session if session is not None else self.new_session()
        if decision is not None and not (text or "").strip():
            text = _approval.decision_text(decision, self.language)
        turn = _Turn(self, text or "", session)
        turn.decision = decision
        return TurnHandle(lambda stop: turn.run(images, stop), stop=stop)

    def new_session(self) -> Session:
        """A conversation whose image store follows this agent's settings."""
        return Session(images=ImageStore.for_settings(self.settings))


class _Turn(TurnState):
    """A turn while `Agent.run` iterates it."""

    decision: _approval.ApprovalDecision | None = None

    async def run(
        self, images: Sequence[Upload], stop: asyncio.Event | None = None
    ) -> AsyncGenerator[Event, None]:
        body = asyncio.ensure_future(self._body(images))
        watchdog = asyncio.ensure_future(self._watch_consumer(body, stop))
        queue = self.queue
        run_id = ""
        try:
            while True:
                self.waiting_since = None
                # Whatever the turn put since the last look is taken without a wait.
                event = queue.get_nowait() if queue else await self._next_or_silence()
                if event is _DONE:
                    break
                if isinstance(event, RunStartedEvent):
                    run_id = event.run_id
                self.waiting_since = time.monotonic()
                yield event
            # The consumer took the last event and came back: the turn has ended for it too,
            # and only now does the conversation change.
            if body.done() and not body.cancelled() and body.exception() is None:
                self.session.commit(self.draft, run_id)
                run_id = ""
        finally:
            watchdog.cancel()
            if not body.done():
                body.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await body
            if run_id:
                # Closed before its end (Stop, a client gone): the stopped record, no more.
                keep = self.agent.settings.max_history_turns
                self.session.commit_stopped(self.kept_turn(), run_id, keep)

    async def _next_or_silence(self) -> Any:
        """The turn's next event; while its model has sent nothing, a `model_wait` about
        every second instead. Those also reach a consumer that has gone: it does not take
        them, and `_watch_consumer` ends the turn, as it would while the model streamed."""
        while True:
            silent = self.silent
            if silent is None:
                return await self.queue.get()
            step, since = silent
            waited = time.monotonic() - since
            # On the next whole second of silence (Mailbox.get gives up nothing it was sent).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.05, math.floor(waited) + 1 - waited)):
                    return await self.queue.get()
            if self.silent is silent:
                return ModelWaitEvent(step=step, seconds=int(time.monotonic() - since))

    async def _watch_consumer(
        self, body: asyncio.Future[None], stop: asyncio.Event | None = None
    ) -> None:
        """Cancel the turn when nobody takes its events any more (a closed tab, a client that
        left): a server that stops reading a job's events does not always close its iterator.
        And when `stop` is set: a consumer waiting for a tool's result would only notice a
        stop of its own when the tool had finished."""
        while not body.done():
            if await _stopped_within(stop, min(1.0, CONSUMER_GONE / 2)):
                log.info("turn stopped")
                body.cancel()
                return
            since = self.waiting_since
            if since is not None and time.monotonic() - since > CONSUMER_GONE:
                log.info("turn cancelled: nobody has taken its events for %gs", CONSUMER_GONE)
                if stop is not None:
                    stop.set()  # its handle says cancelled, as a Stop's would
                body.cancel()
                return

    async def _body(self, images: Sequence[Upload]) -> None:
        try:
            final = await self.intake(images)
            if final is None:
                final = await self._bounded_loop()
                waiting.keep(self)
                if isinstance(final, ApprovalEvent):
                    _approval.keep_steps(self, final)
                self.remember(final)
            self.finish(final)
        finally:
            self.emit(_DONE)

    async def _bounded_loop(self) -> Terminal:
        limit = self.agent.settings.turn_timeout
        try:
            async with asyncio.timeout(limit):
                return await self._loop()
        except TimeoutError:
            return self.failed("deadline", limit_s=limit)

    async def _loop(self) -> Terminal:
        try:
            final = await _approval.resume(self, self.decision)
            if isinstance(final, Ready):
                final = await acting.run_ready(self, final)
            if final is not None:
                return final
            await waiting.resume(self)
            while True:
                if self.model_calls >= self.agent.max_steps:
                    steps = self.agent.max_steps
                    key = "step_limit_1" if steps == 1 else "step_limit"
                    return self.failed("step_limit", key, steps=steps)
                final = await self._step()
                if final is not None:
                    return final
        except ModelError as exc:
            return ErrorEvent(message=exc.sentence(self.language), kind=exc.kind)  # type: ignore[arg-type]
        except ToolCrashed as exc:
            return self.failed("internal", "tool_crashed", tool=exc.tool_name)
        except Exception:
            log.exception("agent turn failed")
            return self.failed("internal")

    # -- one step ---------------------------------------------------------------------------

    async def _step(self) -> Terminal | None:
        step_no = self.model_calls + 1
        try:
            return await self.protocol.step(self, step_no)
        except ModelError as exc:
            refused = exc.kind == "tools_unsupported" and self.protocol is native.NATIVE_CALLS
            if not refused or self.agent.tool_protocol != "auto":
                raise
            native.fall_back(self)
            return await self.protocol.step(self, self.model_calls + 1)


async def _stopped_within(stop: asyncio.Event | None, seconds: float) -> bool:
    """Wait `seconds`, or less if `stop` is set meanwhile; whether it is set."""
    if stop is None:
        await asyncio.sleep(seconds)
        return False
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stop.wait()
    return stop.is_set()
