"""What the page's inputs and buttons call, apart from the page that wires them (app.py).

`PageHandlers` holds what every session shares (settings, tools, how a model is made); each
handler takes one session's `PageState`, None before that session's first event, and returns or
streams page values. Nothing here needs a launched page, so tests call the handlers directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from typing import Any

import gradio as gr

from agent.config import ModelNotConfigured, Settings
from agent.events import AnswerDeltaEvent, ModelDeltaEvent, NoticeEvent, ToolProgressEvent
from agent.images import ImageRef
from agent.intake import message_problem, sort_images
from agent.runner import Agent

from .access import Access
from .labels import t
from .page_state import PageState, Prefs, TurnRecord, default_model, default_prefs
from .page_values import page_values
from .sweeper import LIVE
from .trace_view import TurnView

STREAM_INTERVAL = 0.05
# What `take_message` hands on instead of a message while a turn runs: nothing is sent.
HELD = {"held": True}
# Events that come in streams: shown at most every STREAM_INTERVAL.
_DELTAS = (ModelDeltaEvent, AnswerDeltaEvent, ToolProgressEvent)


class PageHandlers:
    """The page's handlers. `model_factory(prefs)` picks the model for a turn (tests inject
    scripted ones); by default the session's settings do, through `agent.config`."""

    def __init__(
        self,
        model_factory: Callable[[Prefs], Any] | None = None,
        env: Settings | None = None,
        tools: list[Any] | None = None,
    ) -> None:
        self.env = env or Settings()
        if tools is None:
            from tools import default_tools

            tools = default_tools(self.env.tool_settings())
        self.tools = tools
        self.prefs0 = default_prefs(self.env)
        self.injected = model_factory is not None
        self.make_model = model_factory or (lambda prefs: default_model(prefs, self.env))
        self.access = Access(self.env)

    def new_state(self) -> PageState:
        state = PageState(replace(self.prefs0), self.env)
        LIVE.touch(state)
        return state

    def use(self, state: PageState | None, tell: bool = True) -> PageState:
        """The session's state, made on first use and marked as used now. A conversation the
        idle sweep closed says so once (`tell`; a warning needs a queued event)."""
        if state is None:
            return self.new_state()
        LIVE.touch(state)
        if state.expired and tell:
            state.expired = False
            minutes = f"{self.env.session_idle_minutes:g}"
            gr.Warning(t("session_expired", state.prefs.language).format(minutes=minutes))
        return state

    def model_for(self, state: PageState) -> Any:
        # Injected factories (tests) give a fresh model per turn; ours is kept per session.
        return self.make_model(state.prefs) if self.injected else state.model(self.make_model)

    def refusal(self, message: dict | None, language: str) -> str | None:
        """Why a message is refused as a whole before it is taken from the input, or None."""
        message = message or {}
        return message_problem(
            str(message.get("text") or ""),
            len(message.get("files") or []),
            max_chars=self.env.max_message_chars,
            max_images=self.env.max_images_per_message,
            language=language,
        )

    async def run_turn(
        self,
        state: PageState,
        text: str,
        files: Sequence[str | ImageRef],
        stops: int | None = None,
        **how: Any,
    ) -> AsyncIterator[tuple]:
        """One turn. `stops` is how many times Stop had been pressed when the message was
        sent (the page counts from when it took the message): a press after that ends it.
        `how` may hold `approval`, a policy for the turn (`/ask`), and `decision`, an
        `ApprovalDecision` on the call waiting for approval (`ui.approval_panel`)."""
        stops = state.stops if stops is None else stops
        await self._check(state, text, files)
        state.running += 1
        turn = self._start_turn(state, text, files, stops, how)
        try:
            async with contextlib.aclosing(turn) as updates:
                async for update in updates:
                    yield update
        finally:
            state.running -= 1
            LIVE.touch(state)

    async def _check(self, state: PageState, text: str, files: Sequence[Any]) -> None:
        """Refuse a turn that may not start, in one sentence, before anything changes."""
        prefs = state.prefs
        problem = self.refusal({"text": text, "files": files}, prefs.language)
        problem = problem or self.access.turn_problem(state)
        if not problem and prefs.source != "offline":
            # A custom base URL's host is looked up: off the event loop.
            problem = await asyncio.to_thread(self.access.model_problem, prefs)
        if problem:
            raise gr.Error(problem, print_exception=False)

    async def _start_turn(
        self,
        state: PageState,
        text: str,
        files: Sequence[str | ImageRef],
        stops: int,
        how: dict[str, Any],
    ) -> AsyncIterator[tuple]:
        prefs = state.prefs
        # Uploads the agent can use (prepared off the event loop), and one sentence for each
        # it cannot; uploads keep their file name for that.
        good, refused_images = await sort_images(state.session.images, files)
        refused = [r.sentence(prefs.language) for r in refused_images]
        if not text.strip() and not good:
            # Nothing to send: the one message says why, once.
            if refused:
                raise gr.Error(" ".join(refused), print_exception=False)
            raise gr.Error(t("empty_input", prefs.language), print_exception=False)
        for sentence in refused:
            gr.Warning(sentence)
        self.access.count_turn(state)
        session = state.session
        record = TurnRecord(
            text=text,
            refs=good,
            view=TurnView(len(state.turns) + 1, prefs.language, text),
            task_before=session.task.model_copy(deep=True) if session.task else None,
            approval_before=session.approval.model_copy(deep=True) if session.approval else None,
            history_len=len(session.history),
            decision=how.get("decision"),
            history_last=session.history[-1] if session.history else None,
            stops=stops,
        )
        for sentence in refused:
            notice = NoticeEvent(message=sentence)
            record.events.append(notice)
            record.view.apply(notice)
        state.turns.append(record)
        del state.turns[: -self.env.max_history_turns]
        try:
            if state.stops != stops:
                # Stop was pressed before the turn got here (while its message was taken, or
                # its images prepared): it ends before it starts.
                state.stop_turn(record)
                yield page_values(state)
                return
            yield page_values(state)
            try:
                model = self.model_for(state)
            except ModelNotConfigured:
                gr.Warning(t("model_not_configured", prefs.language))
                state.turns.remove(record)
                yield page_values(state)
                return
            agent = self.agent_for(prefs, model, how.get("approval"))
            # The refused ones go along so that the reply can say what became of them.
            uploads = [*good, *refused_images]
            run_agent = self._run_agent(state, record, agent, uploads, how.get("decision"))
            async with contextlib.aclosing(run_agent) as run:
                async for update in run:
                    yield update
        finally:
            # A turn cancelled from outside (Stop, a client's cancel, a client gone) shows as
            # stopped when the conversation goes on, never as still thinking.
            if any(r is record for r in state.turns):
                state.stop_turn(record)

    def agent_for(self, prefs: Prefs, model: Any, approval: str | None = None) -> Agent:
        """The agent a session's settings ask for; the page and the MCP endpoints share it.
        `approval` overrides the approval policy of the settings."""
        return Agent(
            model,
            self.tools,
            settings=self.env,
            language=prefs.language,
            style=prefs.style,
            max_steps=int(prefs.max_steps),
            temperature=float(prefs.temperature),
            image_detail=prefs.image_detail,
            tool_protocol=prefs.tool_protocol,
            approval=approval or self.env.approval,
        )

    async def _run_agent(
        self,
        state: PageState,
        record: TurnRecord,
        agent: Agent,
        images: list[Any],
        decided: Any = None,  # an ApprovalDecision
    ) -> AsyncIterator[tuple]:
        shown = 0.0
        run = agent.run(record.text, images, state.session, decision=decided, stop=record.stop)
        async with contextlib.aclosing(run) as events:
            async for event in events:
                if state.stops != record.stops:
                    # Stopped: whatever the turn did since is not shown, and leaving the loop
                    # closes the run, which cancels the model call or the tool, even when the
                    # cancel of the page's event comes late or never.
                    break
                event = self.access.screen(event, state.prefs)
                record.events.append(event)
                record.view.apply(event)
                now = time.monotonic()
                # Text deltas arrive faster than anyone reads; showing them at most every
                # STREAM_INTERVAL keeps the page fluid and the server free for other sessions.
                # Every other event is shown at once, and the next update carries what waited.
                if isinstance(event, _DELTAS) and now - shown < STREAM_INTERVAL:
                    continue
                if record.view.done:
                    state.write_trace(record)
                shown = now
                yield page_values(state)

    async def chat(
        self, message: dict | None, state: PageState | None, approval: str | None = None
    ) -> AsyncIterator[tuple]:
        state = self.use(state)
        message = message or {}
        text = str(message.get("text") or "")
        files = [_file_path(f) for f in message.get("files") or []]
        stops = message.get("stops")
        stops = stops if isinstance(stops, int) else None
        turn = self.run_turn(state, text, files, stops, approval=approval)
        # Each relay closes what it relays, so a cancel reaches the turn at once.
        async with contextlib.aclosing(turn) as updates:
            async for update in updates:
                yield update

    async def send(self, message: dict | None, state: PageState | None) -> AsyncIterator[tuple]:
        """The page's own send: a message `take_message` held back sends nothing."""
        if message == HELD:
            return
        state = self.use(state)
        async for update in _on_page(self.chat(message, state), state):
            yield update

    async def run_example(
        self, message: dict | None, state: PageState | None
    ) -> AsyncIterator[tuple]:
        if message == HELD:  # held back by `take_message`: a turn is running
            return
        # An example is a new request, not the answer to a question the agent left open.
        state = self.use(state)
        state.session.task = None
        async for update in _on_page(self.chat(message, state), state):
            yield update

    async def retry(self, state: PageState | None) -> AsyncIterator[tuple]:
        state = self.use(state)
        if not state.turns:
            yield page_values(state)
            return
        try:
            await self._check(state, state.turns[-1].text, state.turns[-1].refs)
        except gr.Error as exc:
            gr.Warning(exc.message)
            yield page_values(state)
            return
        last = state.turns.pop()
        session = state.session
        session.task = last.task_before
        session.approval = last.approval_before
        del session.history[last.history_len :]
        turn = self.run_turn(state, last.text, last.refs, decision=last.decision)
        async for update in _on_page(turn, state):
            yield update

    async def stop(self, state: PageState | None) -> tuple:
        """Stop the running turn, or the one whose message is on its way. Async, so that it
        runs on the event loop between the turn's steps, never beside them in a thread."""
        state = self.use(state, tell=False)
        self.halt(state)
        return (*page_values(state), self.download_update(state))

    @staticmethod
    def halt(state: PageState) -> None:
        """End the running turn through its state: it stops at its next event, and its agent
        run at once. Clear and New conversation use this too, never `cancels=`, which leaves
        error badges on the outputs of the turn it cancels."""
        state.stops += 1
        if state.turns:
            state.stop_turn(state.turns[-1])

    def clear(self, state: PageState | None) -> tuple:
        """Forget the conversation (and stop its turn). Not queued, as Stop is not: a queued
        event that cancels a running turn leaves error badges on the turn's outputs. A notice
        that the conversation expired waits for the next queued event."""
        state = self.use(state, tell=False)
        self.halt(state)
        state.reset()
        empty = self.stop_square(False, value=None)
        return (*page_values(state), empty, self.download_update(state))

    def set_pref(self, name: str) -> Callable[[Any, PageState | None], tuple]:
        """The handler for one setting; a cleared field goes back to the default."""

        def handler(value: Any, state: PageState | None) -> tuple:
            state = self.use(state, tell=False)
            problem = self.access.setting_problem(value, state.prefs.language)
            if problem:
                raise gr.Error(problem, print_exception=False)
            if value is None:
                value = getattr(self.prefs0, name)
            elif name == "base_url":
                value = self.access.base_url_from_page(str(value))
            setattr(state.prefs, name, value)
            return state, self.banner_update(state.prefs)

        return handler

    def take_message(self, message: dict | None, state: PageState | None) -> tuple:
        """Move the typed message out of the input, so the input empties at once while the
        turn runs from the copy; if the turn cannot start, the words stay to send again.
        While a turn runs nothing is sent: the words stay, and the person is told why."""
        prefs = state.prefs if state else self.prefs0
        if state is not None and state.running:
            return gr.skip(), HELD  # `send` and `run_example` send nothing; `tell_held` says why
        if (
            self.refusal(message, prefs.language)
            or self.access.turn_problem(state)
            or self.access.model_problem(prefs)
        ):
            return gr.skip(), message  # the turn says why; the words stay in the input
        try:
            if state is not None and not self.injected:
                state.model(self.make_model)
            else:
                self.make_model(state.prefs if state else self.prefs0)
        except ModelNotConfigured:
            return gr.skip(), message
        # The input empties, and its stop square shows while the turn runs. The message
        # carries the count of Stop presses so far: one pressed before its turn starts ends it.
        stops = state.stops if state is not None else 0
        return self.stop_square(True, value=None), {**(message or {}), "stops": stops}

    def take(self, message: dict | None, state: PageState | None) -> tuple:
        """`take_message`, and the conversation's state, made here for its first message: a
        Stop pressed before the turn's first update then reaches the same conversation."""
        state = state if state is not None else self.new_state()
        return (*self.take_message(message, state), state)

    def tell_held(self, message: dict | None, state: PageState | None) -> None:
        """Say why a message was held back (a toast needs a queued event, which the taking
        is not)."""
        if message == HELD:
            gr.Info(t("wait_turn", state.prefs.language if state else self.prefs0.language))

    @staticmethod
    def stop_square(shown: bool, **update: Any) -> Any:
        """The input's stop square: shown while a turn runs, hidden otherwise."""
        return gr.MultimodalTextbox(stop_btn=shown, **update)

    def turn_ended(self, state: PageState | None) -> tuple:
        """After a turn: its trace to download, and no stop square unless another turn of the
        session still runs (a message held back while it ran ends at once)."""
        return self.download_update(state), self.stop_square(bool(state and state.running))

    def stopped(self, state: PageState | None) -> tuple:
        """After Stop: the stopped turn's trace to download, and no stop square."""
        return self.download_update(state), self.stop_square(False)

    @staticmethod
    def banner_update(prefs: Prefs) -> Any:
        return gr.Markdown(visible=prefs.source == "offline")

    @staticmethod
    def download_update(state: PageState | None) -> Any:
        trace_file = state.trace_file if state else None
        return gr.DownloadButton(value=trace_file, interactive=trace_file is not None)


def _file_path(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("path") or item.get("name") or "")
    return str(item)


async def _on_page(updates: AsyncIterator[tuple], state: PageState) -> AsyncIterator[tuple]:
    """The page's own turns: a refusal is a warning, and the conversation stays on screen (a
    raised error would cover the chat and the trace with error badges). `/chat` keeps raising,
    so a script reads the sentence as an error."""
    try:
        async with contextlib.aclosing(updates) as items:
            async for update in items:
                yield update
    except gr.Error as exc:
        gr.Warning(exc.message)
        yield page_values(state)
