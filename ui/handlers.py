"""What the page's inputs and buttons call, apart from the page that wires them (app.py).

`PageHandlers` is a `TurnRunner` (`ui.turn_runner`, which runs the turns) with the page's own
handlers: send, the examples, Retry, Stop, Clear, the settings and the input's stop square.
Nothing here needs a launched page, so tests call the handlers directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

import gradio as gr

from agent.config import ModelNotConfigured

from .conversations.export import with_memory
from .labels import t
from .page.state import PageState, Prefs
from .page.values import page_values
from .turn_runner import STREAM_INTERVAL, TurnRunner, file_path, on_page

__all__ = ["HELD", "STREAM_INTERVAL", "UNCHANGED", "PageHandlers", "on_page"]


class Checked:
    """Marks a message `take_message` checked, so its turn does not check it again. An object
    no request can carry, kept only in the server's state (a copy of it still marks)."""


# What `take_message` hands on instead of a message while a turn runs: nothing is sent.
HELD = {"held": True}
# What a turn's handler yields when it runs nothing: the page keeps what it shows (a handler
# that yields nothing at all would empty the chat, the trace and the status line).
UNCHANGED = (gr.skip(), gr.skip(), gr.skip(), gr.skip())
# How long the "wait for the running turn" toast stays; held messages within it add no other.
WAIT_TOAST_SECONDS = 6.0


class PageHandlers(TurnRunner):
    """The page's handlers (see the module's docstring)."""

    async def chat(
        self, message: dict | None, state: PageState | None, approval: str | None = None
    ) -> AsyncGenerator[tuple, None]:
        state = self.use(state)
        message = message or {}
        text = str(message.get("text") or "")
        files = [file_path(f) for f in message.get("files") or []]
        stops = _count(message.get("stops"))
        pressed = _count(message.get("pressed"))
        checked = isinstance(message.get("checked"), Checked)
        how = {"approval": approval, "pressed": pressed, "checked": checked}
        turn = self.run_turn(state, text, files, stops, **how)
        # Each relay closes what it relays, so a cancel reaches the turn at once.
        async with contextlib.aclosing(turn) as updates:
            async for update in updates:
                yield update

    async def send(
        self, message: dict | None, state: PageState | None
    ) -> AsyncGenerator[tuple, None]:
        """The page's own send: a message `take_message` held back sends nothing."""
        if message == HELD:
            yield UNCHANGED
            return
        state = self.use(state)
        async with contextlib.aclosing(on_page(self.chat(message, state), state)) as updates:
            async for update in updates:
                yield update

    async def run_example(
        self, message: dict | None, state: PageState | None
    ) -> AsyncGenerator[tuple, None]:
        if message == HELD:  # held back by `take_message`: a turn is running
            yield UNCHANGED
            return
        # An example is a new request, not the answer to a question the agent left open.
        state = self.use(state)
        state.session.forget_task()
        async with contextlib.aclosing(on_page(self.chat(message, state), state)) as updates:
            async for update in updates:
                yield update

    async def take_retry(self, state: PageState | None, pressed: Any = None) -> tuple:
        """Retry's first step, not queued, as taking a message is: the stop square shows, and
        the count of Stop presses so far goes with the retried turn, so that a Stop pressed
        before its turn starts ends it. Async, as Stop is: both run on the event loop in the
        order they were pressed (a function that is not async goes to a thread first, and a
        Stop pressed right after could overtake it)."""
        if state is not None and state.running:
            return gr.skip(), HELD  # the running turn goes on; `retry` says why nothing ran
        stops = state.stops if state is not None else 0
        return self.stop_square(True), {"stops": stops, "pressed": _count(pressed)}

    async def retry(
        self, state: PageState | None, taken: dict | None = None
    ) -> AsyncGenerator[tuple, None]:
        """The last turn again, from where the conversation stood before it. `taken` holds
        the counts of Stop presses `take_retry` took when Retry was pressed."""
        state = self.use(state)
        if taken == HELD:  # a turn runs; `tell_held_retry` said so at once
            yield UNCHANGED
            return
        if not state.turns:
            gr.Info(t("retry_nothing", state.prefs.language))
            yield page_values(state)
            return
        try:
            await self._check(state, state.turns[-1].text, state.turns[-1].refs)
        except gr.Error as exc:
            gr.Warning(exc.message)
            yield page_values(state)
            return
        last = state.turns.pop()
        state.session.reopen(state.run_id(last))
        taken = taken or {}
        turn = self.run_turn(
            state,
            last.text,
            last.refs,
            _count(taken.get("stops")),
            decision=last.decision,
            pressed=_count(taken.get("pressed")),
            checked=True,
        )
        async with contextlib.aclosing(on_page(turn, state)) as updates:
            async for update in updates:
                yield update

    async def stop(
        self, state: PageState | None, pressed: Any = None, request: gr.Request | None = None
    ) -> tuple:
        """Stop the running turn, or the one whose message is on its way. Async, so that it
        runs on the event loop between the turn's steps, never beside them in a thread.
        `pressed` is the browser's count of Stop presses, this one included: a turn whose
        message the browser sent before it ends, whichever request reached the server first
        (`PageState.stopped_since`)."""
        state = self.use(state, tell=False, request=request)
        count = _count(pressed)
        if count is not None:
            state.pressed = max(state.pressed, count)
        if not self.halt(state):
            # No turn was running: the page is left to the turn on its way, if any, which
            # ends as it starts and says stopped. Drawn now, the page would lack that turn's
            # message, and the browser may get this answer after the turn's own.
            return (gr.skip(), gr.skip(), state, gr.skip(), gr.skip())
        return (*page_values(state), self.download_update(state))

    @staticmethod
    def halt(state: PageState) -> bool:
        """End the running turn through its state: it stops at its next event, and its agent
        run at once; whether a turn was running. Clear and New conversation use this too,
        never `cancels=`, which leaves error badges on the outputs of the turn it cancels."""
        state.stops += 1
        if not state.turns:
            return False
        view = state.turns[-1].view
        running = view.final is None and not view.stopped
        state.stop_turn(state.turns[-1])
        return running

    def clear(self, state: PageState | None, undoable: bool = False) -> tuple:
        """Forget the conversation (and stop its turn); `undoable`, keep it a moment first
        (`PageState.set_aside`). Not queued, as Stop is not: a queued event that cancels a
        running turn leaves error badges on the turn's outputs. A notice that the conversation
        expired waits for the next queued event. What the input holds, not yet sent, stays:
        it is not the conversation."""
        state = self.use(state, tell=False)
        self.halt(state)
        if undoable and state.turns:
            state.set_aside()
        elif not undoable or state.aside is None:
            state.reset()
        # Else the page is empty since a Clear, whose undo stays: nothing more to forget.
        return (*page_values(state), self.stop_square(False), self.download_update(state))

    def set_pref(self, name: str) -> Callable[[Any, PageState | None], tuple]:
        """The handler for one setting; a cleared field goes back to the default. A base
        URL that is no URL is kept, so that the turn says so instead of going elsewhere;
        what is wrong with a field shows beside the fields (`settings_notice`)."""

        def handler(value: Any, state: PageState | None) -> tuple:
            state = self.use(state, tell=False)
            refused = self.access.refused_setting(value)
            state.setting_problems.pop(name, None)
            if refused:
                state.setting_problems[name] = refused
                return state, self.banner_update(state.prefs)
            if value is None:
                value = getattr(self.prefs0, name)
            elif name == "base_url":
                value = self.access.base_url_from_page(str(value))
                if self.access.base_url_invalid(value):
                    state.setting_problems[name] = ("base_url_invalid", {})
            setattr(state.prefs, name, value)
            return state, self.banner_update(state.prefs)

        return handler

    def settings_notice(self, again: bool = False) -> Callable[[PageState | None], Any]:
        """The sentence under the settings for what is wrong with them, in the page's
        language, said when the person leaves a field. `again` (after any change of a
        setting, or of the language) says only what was said already, so a field being typed
        in shows no new problem ("h" on the way to "https://…" is no mistake), and one that
        is mended goes at once."""

        def handler(state: PageState | None) -> Any:
            if state is None:
                return gr.skip()
            problems, before = state.setting_problems, state.problems_shown
            shown = [n for n in problems if n in before or not again]
            state.problems_shown = set(shown)
            language = state.prefs.language
            said = [t(problems[n][0], language).format(**problems[n][1]) for n in shown]
            return gr.Markdown(" ".join(said), visible=bool(said))

        return handler

    def take_message(
        self,
        message: dict | None,
        state: PageState | None,
        stops: int | None = None,
        pressed: int | None = None,
    ) -> tuple:
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
        # `pressed`, the browser's own count (`take`), goes along when the browser sent one.
        if stops is None:
            stops = state.stops if state is not None else 0
        taken = {**(message or {}), "stops": stops, "checked": Checked()}
        if state is not None:
            # The number its turn will have among the session's turns (`ui.access`); its
            # presence says the message was taken, and is saved with its words at once
            # (`ui.conversations.handlers.History.taking`).
            taken["turn"] = state.turns_started + 1
        if pressed is not None:
            taken["pressed"] = pressed
        return self.stop_square(True, value=None), taken

    async def take(
        self,
        message: dict | None,
        state: PageState | None,
        pressed: Any = None,
        request: gr.Request | None = None,
    ) -> tuple:
        """`take_message`, and the conversation's state, made here for its first message: a
        Stop pressed before the turn's first update then reaches the same conversation. The
        count of Stop presses is read first, on the event loop where Stop runs, so a Stop
        pressed right after sending counts even when it arrives while the checks run (in a
        thread: a custom base URL's host is looked up)."""
        state = state if state is not None else self.new_state(request)
        stops = state.stops
        box, taken = await asyncio.to_thread(
            self.take_message, message, state, stops, _count(pressed)
        )
        return box, taken, state

    def tell_held_retry(self, taken: dict | None, state: PageState | None) -> None:
        """`tell_held` for Retry pressed while a turn runs, from an event of its own: the
        retry's own event waits in the queue behind the running turn."""
        self.tell_held(taken, state, "wait_retry")

    def tell_held_example(self, message: dict | None, state: PageState | None) -> None:
        """`tell_held` for an example clicked while a turn runs: it is not kept anywhere."""
        self.tell_held(message, state, "wait_example")

    def tell_held(
        self, message: dict | None, state: PageState | None, key: str = "wait_turn"
    ) -> None:
        """Say why a message was held back (a toast needs a queued event, which the taking
        is not)."""
        if message != HELD:
            return
        now = time.monotonic()
        if state is not None:
            told = state.wait_told_at.get(key)
            if told is not None and now - told < WAIT_TOAST_SECONDS:
                return  # the same toast is still on screen
            state.wait_told_at[key] = now
        language = state.prefs.language if state else self.prefs0.language
        gr.Info(t(key, language), duration=WAIT_TOAST_SECONDS)

    @staticmethod
    def starts_turn(taken: Any) -> bool:
        """Whether a message `take_message` took starts a turn (neither held back nor refused):
        it carries the number its turn will have."""
        return isinstance(taken, dict) and "turn" in taken

    @staticmethod
    def stop_square(shown: bool, **update: Any) -> Any:
        """The input's stop square: shown while a turn runs, hidden otherwise."""
        return gr.MultimodalTextbox(stop_btn=shown, **update)

    def turn_ended(self, state: PageState | None) -> tuple:
        """After a turn: its trace to download, now with the agent's memory of the turn, and
        no stop square unless another turn of the session still runs (a message held back
        while it ran ends at once)."""
        if state is not None:
            with_memory(state)
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


def _count(value: Any) -> int | None:
    """A count of presses as the browser or a message sent it; None when there is none."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)
