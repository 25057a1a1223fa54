"""One page turn for a session's state: check it, record it, run the agent, and stream the
page's values as the agent's events arrive.

`TurnRunner` holds what every session shares (settings, tools, how a model is made). The page's
buttons (`ui.handlers`), the script endpoints (`ui.script_api`) and the MCP endpoints
(`ui.mcp_endpoints`) all start their turns here, so a turn reads the same whoever started it.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import replace
from typing import Any

import gradio as gr

from agent.approval import effective_policy
from agent.config import ModelNotConfigured, Settings
from agent.events import Event, ModelWaitEvent, NoticeEvent
from agent.images.intake import message_problem, sort_images
from agent.images.store import ImageRef
from agent.runner import Agent
from tools.ocr.pool import READER

from .access import Access
from .labels import t
from .pacing import Pace
from .page.state import PageState, PageTurn, Prefs, TurnRecord, default_model, default_prefs
from .page.values import page_values
from .sweeper import LIVE
from .trace.view import TurnView

STREAM_INTERVAL = 0.05
# How long a notice of the agent's stays on screen as a toast (it stays in the trace).
NOTICE_SECONDS = 10.0


class TurnRunner:
    """Runs a session's turns. `model_factory(prefs)` picks the model for a turn (tests inject
    scripted ones); by default the session's settings do, through `agent.config`. Each method
    takes one session's `PageState`, None before that session's first event."""

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
        # The state made for each session, while Gradio holds it (`new_state`).
        self._made: weakref.WeakValueDictionary[str, PageState] = weakref.WeakValueDictionary()

    def new_state(self, request: Any = None) -> PageState:
        """A session's state. With the session's `request`, the same one each time until
        Gradio keeps one: the page's load and a message sent before the load finished both
        make the state, and must make the same, or Stop and the turn would hold different
        conversations."""
        key = getattr(request, "session_hash", None)
        state = self._made.get(key) if key else None
        if state is None:
            state = PageState(replace(self.prefs0), self.env)
            if key:
                self._made[key] = state
        LIVE.touch(state)
        return state

    def use(self, state: PageState | None, tell: bool = True, request: Any = None) -> PageState:
        """The session's state, made on first use and marked as used now. A conversation the
        idle sweep closed says so once (`tell`; a warning needs a queued event)."""
        if state is None:
            return self.new_state(request)
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
    ) -> AsyncGenerator[tuple, None]:
        """One turn. `stops` is how many times Stop had been pressed when the message was
        sent (the page counts from when it took the message): a press after that ends it.
        `how` may hold `approval`, a policy for the turn (`/ask`), `decision`, an
        `ApprovalDecision` on the call waiting for approval (`ui.approval_panel`), and
        `pressed`, the browser's own count of Stop presses when the message was sent, and
        `checked`, true when the caller has just run `_check` on this message."""
        stops = state.stops if stops is None else stops
        if not how.get("checked"):  # checked once: when it was taken, or here
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
    ) -> AsyncGenerator[tuple, None]:
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
        # Counted here, before anything of the turn runs, and refused if a limit was reached
        # since `_check` (another conversation of the same client started one meanwhile).
        client = self.access.client()
        problem = self.access.admit(state, client=client)
        if problem:
            raise gr.Error(problem, print_exception=False)
        READER.set(client)  # the OCR workers are shared fairly between clients
        for sentence in refused:
            gr.Warning(sentence)
        record = TurnRecord(
            text=text,
            refs=good,
            view=TurnView(state.next_number(), prefs.language, text),
            decision=how.get("decision"),
            handle=PageTurn(stops, how.get("pressed")),
        )
        for sentence in refused:
            notice = NoticeEvent(message=sentence)
            record.events.append(notice)
            record.view.apply(notice)
        state.turns.append(record)
        del state.turns[: -self.env.max_history_turns]
        try:
            if state.stopped_since(record):
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

    def agent_for(
        self, prefs: Prefs, model: Any, approval: str | None = None, attended: bool = True
    ) -> Agent:
        """The agent a session's settings ask for; the page, the scenario runs and the MCP
        endpoints share it. `approval` is the policy the caller asks for (`/ask`, a scenario),
        never more than the operator's; `attended` False where nobody can be asked
        (`agent.approval.effective_policy`)."""
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
            approval=effective_policy(self.env.approval, approval, attended),
        )

    async def _run_agent(
        self,
        state: PageState,
        record: TurnRecord,
        agent: Agent,
        images: list[Any],
        decided: Any = None,  # an ApprovalDecision
    ) -> AsyncGenerator[tuple, None]:
        session = state.session

        def run_with(stop: asyncio.Event) -> AsyncGenerator[Event, None]:
            return agent.run(record.text, images, session, decision=decided, stop=stop)

        # Events come faster than anyone reads, and each update costs the browser a re-render:
        # the page shows them at most every STREAM_INTERVAL, the next update carrying what
        # waited, and what waits is shown once the interval is over even while a tool runs or
        # the model is silent. The turn's last word is shown at once.
        pace: Pace[Event] = Pace(STREAM_INTERVAL)
        run = record.handle.events(run_with)
        async with contextlib.aclosing(run), contextlib.aclosing(pace.events(run)) as events:
            async for event in events:
                if state.stopped_since(record):
                    # Stopped: whatever the turn did since is not shown, and leaving the loop
                    # closes the run, which cancels the model call or the tool, even when the
                    # cancel of the page's event comes late or never.
                    break
                if event is None:  # what was held back is due, the next event still to come
                    yield page_values(state)
                    continue
                if isinstance(event, ModelWaitEvent):
                    # Shown in the status line while it lasts, and kept nowhere.
                    record.view.apply(event)
                    if pace.due():
                        yield page_values(state)
                    continue
                event = self.access.screen(event, state.prefs)
                if isinstance(event, NoticeEvent) and not event.kind and not _said(record, event):
                    # Said where the person looks, too: the trace may be folded away (a task set
                    # aside is said in the chat, under the reply).
                    gr.Info(event.message, duration=NOTICE_SECONDS)
                record.events.append(event)
                record.view.apply(event)
                if record.view.done:
                    state.write_trace(record)
                if pace.due(urgent=record.view.done):
                    yield page_values(state)
        if state.stopped_since(record):
            # The turn's last word says stopped: an update of the turn still on its way to the
            # browser when Stop answered would otherwise land after it and say "Working…".
            state.stop_turn(record)
            yield page_values(state)
        elif pace.held:
            yield page_values(state)  # the run ended with events not yet shown


def _said(record: TurnRecord, notice: NoticeEvent) -> bool:
    return any(isinstance(e, NoticeEvent) and e.message == notice.message for e in record.events)


def file_path(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("path") or item.get("name") or "")
    return str(item)


async def on_page(
    updates: AsyncGenerator[tuple, None], state: PageState
) -> AsyncGenerator[tuple, None]:
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
