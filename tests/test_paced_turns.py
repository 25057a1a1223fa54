"""A turn reaches the page in few updates: its events are shown at most every STREAM_INTERVAL,
yet a tool that runs long or a model that holds shows what came before it while it lasts.
Closing the page's turn or pressing Stop while the next event is on its way ends the turn as
before.

The page's handlers are called directly, with scripted models and a tool the test lets go."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import Field

import ui.turn_runner
from agent.config import Settings
from agent.models import ScriptedModel
from tests.conftest import Echo
from tests.support.held_model import Gate
from tools.base import StrictArgs, Tool, ToolResult
from ui.handlers import PageHandlers
from ui.page.values import page_values

pytestmark = pytest.mark.usefixtures("no_model_env")

ECHO = ['Thought: echo it.\nAction: echo\nAction Input: {"text": "hi"}', "Answer: It said hi."]
HOLD = ["Thought: hold on.\nAction: hold\nAction Input: {}", "Answer: Let go at last."]


class HoldArgs(StrictArgs):
    label: str = Field(default="x", description="Anything.")


class Hold(Tool):
    """Runs until the test lets it go, or its call is cancelled."""

    name = "hold"
    description = "Hold until let go."
    Args = HoldArgs

    def __init__(self) -> None:
        self.go = threading.Event()
        self.cancelled = threading.Event()
        self.finished = False

    def run(self, args, ctx):
        while not self.go.wait(0.01):
            if ctx.cancelled:
                self.cancelled.set()
                return ToolResult(text="cancelled")
        self.finished = True
        return ToolResult(text="let go")


class Pausing(ScriptedModel):
    """Streams its reply up to `hold_at` without a pause, then waits at `gate` for the rest:
    nothing after the text so far would show it."""

    def __init__(self, reply: str, hold_at: str, gate: Gate) -> None:
        super().__init__([reply], chunk_size=4, name="pausing")
        self.hold_after = reply.index(hold_at) + len(hold_at)
        self.gate = gate

    async def stream(self, request):
        sent = 0
        async for part in super().stream(request):
            yield part
            sent += len(part) if isinstance(part, str) else 0
            if sent >= self.hold_after:
                await self.gate.passed()


def page_with(replies: list[str], tools: list, model=None) -> PageHandlers:
    def factory(prefs):
        return model or ScriptedModel(list(replies), delay=0.0, name="fake")

    return PageHandlers(factory, Settings(), tools)


def titles(update: tuple) -> list[str]:
    return [m["metadata"]["title"] for m in update[1]]


def shows_tool(update: tuple) -> bool:
    return "Tool: hold" in titles(update)


async def until(stream, shown, within: float = 30.0) -> tuple:
    """The first update of `stream` for which `shown(update)` holds."""
    async with asyncio.timeout(within):
        async for update in stream:
            if shown(update):
                return update
    raise AssertionError("the turn ended without showing it")


async def test_a_fast_turn_with_a_tool_step_reaches_the_page_in_few_updates(monkeypatch):
    # An interval no scripted turn outlasts, however loaded the machine: every event but
    # the last word falls within it.
    monkeypatch.setattr(ui.turn_runner, "STREAM_INTERVAL", 60.0)
    page = page_with(ECHO, [Echo()])
    updates = [u async for u in page.chat({"text": "echo hi", "files": []}, None)]
    state = updates[-1][2]
    events = state.turns[-1].events
    assert len(events) >= 8 and "tool_call" in {e.type for e in events}
    assert len(updates) <= 4
    chat, _, _, status = updates[-1]
    assert chat[-1] == {"role": "assistant", "content": "It said hi."}
    assert "Tool: echo" in titles(updates[-1]) and "model call" in status
    state.close()


async def test_a_tool_that_runs_long_shows_its_call_while_it_runs():
    tool = Hold()
    page = page_with(HOLD, [tool])
    stream = page.chat({"text": "hold on", "files": []}, None)
    try:
        update = await until(stream, shows_tool)
        assert not tool.go.is_set()  # shown before the tool could finish
        assert update[3].startswith("Working…")
        tool.go.set()
        last = await until(stream, lambda u: "Let go at last." in str(u[0]))
        assert last[0][-1]["content"] == "Let go at last."
    finally:
        tool.go.set()
        await stream.aclose()
    assert tool.finished
    last[2].close()


async def test_a_model_that_pauses_shows_its_text_so_far():
    gate = Gate()
    reply = "Thought: I will think about this for a good while.\nAnswer: Done thinking."
    model = Pausing(reply, "good while", gate)
    page = page_with([], [], model=model)
    stream = page.chat({"text": "think", "files": []}, None)
    try:
        await until(stream, lambda u: "good while" in str(u[1]))
        assert not gate.is_open
        gate.open()
        last = await until(stream, lambda u: "Done thinking." in str(u[0]))
    finally:
        gate.open()
        await stream.aclose()
    last[2].close()


@pytest.mark.parametrize("how", ["closed", "cancelled"])
async def test_a_turn_ended_while_its_tool_runs_cancels_the_tool_and_keeps_it_stopped(how):
    # Gradio closes the page's turn (a client's cancel, Clear) or cancels the task that
    # iterates it (a client gone) while the tool's result is still on its way.
    tool = Hold()
    page = page_with(HOLD, [tool])
    stream = page.chat({"text": "hold on", "files": []}, None)
    try:
        state = (await until(stream, shows_tool))[2]
        if how == "cancelled":
            waiting = asyncio.ensure_future(anext(stream))
            await asyncio.sleep(0)  # it now waits for the tool's result
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
        await stream.aclose()  # no "aclose(): asynchronous generator is already running"
        assert await asyncio.to_thread(tool.cancelled.wait, 30)
    finally:
        tool.go.set()
    assert not tool.finished
    chat, _, _, status = page_values(state)
    assert chat[-1] == {"role": "assistant", "content": "Stopped before it finished."}
    assert status.startswith("Stopped")
    assert [t.outcome for t in state.session.history] == ["stopped"]
    state.close()


async def test_stop_while_the_tool_runs_ends_the_turn():
    tool = Hold()
    page = page_with(HOLD, [tool])
    stream = page.chat({"text": "hold on", "files": []}, None)
    try:
        state = (await until(stream, shows_tool))[2]
        await page.stop(state)
        async with asyncio.timeout(10):
            rest = [u async for u in stream]
        assert await asyncio.to_thread(tool.cancelled.wait, 30)
    finally:
        tool.go.set()
    assert rest and rest[-1][3].startswith("Stopped")
    assert rest[-1][0][-1]["content"] == "Stopped before it finished."
    assert not tool.finished and "Let go at last." not in str(rest)
    assert [t.outcome for t in state.session.history] == ["stopped"]
    state.close()
