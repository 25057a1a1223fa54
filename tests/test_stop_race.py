"""Stop always ends the turn, whatever the moment: before the turn has started (its message
just taken from the input), while the model streams, during a tool call, and when the page's
cancel of the running event comes late or not at all. The status says stopped, the answer never
shows, and the conversation remembers nothing of the stopped turn.

The page's handlers are called directly, in the order the page calls them, with a scripted
model that streams slowly and a tool that takes a while."""

from __future__ import annotations

import asyncio
import time

import gradio as gr
import pytest
from pydantic import Field

from agent.config import Settings
from agent.models import ScriptedModel
from tools.base import StrictArgs, Tool, ToolResult
from ui.handlers import UNCHANGED, PageHandlers
from ui.page.values import page_values

ANSWER = "FINISHED-ANSWER"


class WaitArgs(StrictArgs):
    label: str = Field(default="x", description="Anything.")


class SlowWait(Tool):
    name = "slow_wait"
    description = "Wait a moment, then say done."
    Args = WaitArgs

    def __init__(self, seconds: float = 0.6) -> None:
        self.seconds = seconds
        self.finished = 0

    def run(self, args, ctx):
        ends = time.monotonic() + self.seconds
        while time.monotonic() < ends:
            if ctx.cancelled:
                return ToolResult(text="cancelled")
            time.sleep(0.01)
        self.finished += 1
        return ToolResult(text="waited")


REPLIES = [
    "Thought: I will wait a moment first.\nAction: slow_wait\nAction Input: {}",
    f"Thought: The wait is over.\nAnswer: {ANSWER}, said slowly.",
]


def page_with(tool: SlowWait, delay: float = 0.02) -> tuple[PageHandlers, list[ScriptedModel]]:
    made: list[ScriptedModel] = []

    def factory(prefs):
        made.append(ScriptedModel(list(REPLIES), delay=delay, chunk_size=4, name="fake"))
        return made[-1]

    return PageHandlers(factory, Settings(), [tool]), made


def said_stopped(state, language: str = "en") -> None:
    """The status and the reply say stopped; a half-streamed answer may stay, cut off."""
    chat, trace, _, status = page_values(state)
    stopped = {
        "en": ("Stopped", "Stopped before it finished."),
        "zh": ("已停止", "在完成前被停止。"),
    }
    assert status.startswith(stopped[language][0])
    assert chat[-1]["content"].endswith(stopped[language][1])
    assert ANSWER not in str(chat) and ANSWER not in str(trace)  # never the whole answer
    only_stopped(state)


def only_stopped(state) -> None:
    """The conversation keeps, of a stopped turn, its stopped record (no reply) at most."""
    assert all(t.outcome == "stopped" and not t.reply for t in state.session.history)


async def run_until(stream, moment) -> list[tuple]:
    """Iterate the page's turn until `moment(state)` holds; the updates so far."""
    updates = [await anext(stream)]
    while not moment(updates[-1][2]):
        updates.append(await anext(stream))
    return updates


async def drain(stream, limit: float = 5.0) -> list[tuple]:
    """What the turn still yields when nobody cancels it: it must end on its own, quickly."""
    async with asyncio.timeout(limit):
        return [update async for update in stream]


def streaming(state) -> bool:
    return bool(state.turns) and any(e.type == "model_delta" for e in state.turns[-1].events)


def in_tool(state) -> bool:
    return bool(state.turns) and any(e.type == "tool_call" for e in state.turns[-1].events)


def answering(state) -> bool:
    return bool(state.turns) and any(e.type == "answer_delta" for e in state.turns[-1].events)


@pytest.mark.parametrize("moment", [streaming, in_tool], ids=["streaming", "in_tool"])
async def test_stop_ends_the_turn_even_when_the_cancel_never_comes(moment):
    tool = SlowWait()
    page, _ = page_with(tool)
    state = page.new_state()
    stream = page.send({"text": "wait for me", "files": []}, state)
    await run_until(stream, moment)
    await page.stop(state)  # the page's cancel of the running event is lost or late
    started = time.monotonic()
    await drain(stream)
    assert time.monotonic() - started < 1.0
    said_stopped(state)
    assert tool.finished == 0
    state.close()


async def test_stop_while_the_answer_streams_never_shows_the_answer_as_done():
    page, _ = page_with(SlowWait(0.05), delay=0.05)
    state = page.new_state()
    stream = page.send({"text": "wait for me", "files": []}, state)
    await run_until(stream, answering)
    await page.stop(state)
    await drain(stream)
    said_stopped(state)
    assert state.turns[-1].view.final is None
    state.close()


@pytest.mark.parametrize(("language", "text"), [("en", "wait for me"), ("zh", "等我一下")])
async def test_stop_pressed_between_taking_the_message_and_sending_it(language, text):
    page, made = page_with(SlowWait())
    state = page.new_state()
    state.prefs.language = language
    _, taken = page.take_message({"text": text, "files": []}, state)
    await page.stop(state)  # before the turn's own event has started
    updates = await drain(page.send(taken, state))
    assert updates and sum(m.calls for m in made) == 0  # no model was asked anything
    said_stopped(state, language)
    assert page_values(state)[0][0]["content"] == [text]  # the words are still shown
    # The next message runs as usual.
    _, taken = page.take_message({"text": "and now?", "files": []}, state)
    await drain(page.send(taken, state))
    assert ANSWER in page_values(state)[0][-1]["content"]
    assert len(state.session.history) == 1
    state.close()


@pytest.mark.parametrize("earlier", [0, 1], ids=["first message", "after a turn"])
async def test_stop_answered_before_the_turn_began_never_hides_the_stopped_turn(earlier):
    # Stop's answer and the turn's reach the browser each its own way (Stop's by itself, the
    # turn's through the queue), so Stop's may land last: it must not draw the page as it
    # was before the message, wiping out the turn that ended as stopped.
    page, _ = page_with(SlowWait(0.01), delay=0.0)
    state = page.new_state()
    for _ in range(earlier):
        _, taken = page.take_message({"text": "first", "files": []}, state)
        await drain(page.send(taken, state))
    _, taken = page.take_message({"text": "wait for me", "files": []}, state)
    stopped = await page.stop(state)
    updates = await drain(page.send(taken, state))
    shown = list(updates[-1])
    for i, value in enumerate(stopped[:4]):  # chat, trace, state, status: Stop's last
        if value != gr.skip():
            shown[i] = value
    chat, _, _, status = shown
    assert chat[-2]["content"] == ["wait for me"]
    assert chat[-1]["content"] == "Stopped before it finished."
    assert status.startswith("Stopped")
    state.close()


async def test_a_turn_that_finished_before_stop_stays_finished():
    page, _ = page_with(SlowWait(0.01), delay=0.0)
    state = page.new_state()
    _, taken = page.take_message({"text": "wait for me", "files": []}, state)
    await drain(page.send(taken, state))
    await page.stop(state)
    chat, _, _, status = page_values(state)
    assert ANSWER in chat[-1]["content"] and "model call" in status
    assert len(state.session.history) == 1
    state.close()


async def test_a_turn_stopped_once_its_answer_is_made_leaves_nothing_to_put_back():
    # The agent commits a turn to the conversation only when its last event has been taken:
    # while the answer streams, and when Stop ends it there, it keeps only the stopped record.
    page, _ = page_with(SlowWait(0.01), delay=0.0)
    state = page.new_state()
    stream = page.send({"text": "wait for me", "files": []}, state)
    await run_until(stream, lambda s: answering(s) or s.turns[-1].view.final is not None)
    assert state.session.history == []
    if state.turns[-1].view.final is None:
        await page.stop(state)
        await drain(stream)
        assert page_values(state)[3].startswith("Stopped")  # the answer may have streamed
        only_stopped(state)
    else:
        await drain(stream)
        assert len(state.session.history) == 1
    state.close()


async def test_the_first_message_can_be_stopped_before_its_turn_has_shown_anything():
    # The page takes the first message with no conversation yet; taking it makes one, so that
    # Stop and the turn share it from the start.
    page, made = page_with(SlowWait())
    box, taken, state = await page.take({"text": "wait for me", "files": []}, None)
    assert box.value == {"text": "", "files": []} and taken["text"] == "wait for me"
    stopped = await page.stop(state)
    assert stopped[2] is state  # Stop does not put a new conversation in its place
    await drain(page.send(taken, state))
    assert sum(m.calls for m in made) == 0
    said_stopped(state)
    state.close()


@pytest.mark.parametrize(("language", "text"), [("en", "wait for me"), ("zh", "等我一下")])
async def test_stop_pressed_between_retry_and_its_turn_ends_the_retried_turn(language, text):
    page, made = page_with(SlowWait(0.01), delay=0.0)
    state = page.new_state()
    state.prefs.language = language
    _, taken = page.take_message({"text": text, "files": []}, state)
    await drain(page.send(taken, state))
    calls = sum(m.calls for m in made)
    box, stops = await page.take_retry(state)  # Retry pressed: not queued
    assert box.stop_btn is True
    await page.stop(state)  # before the retried turn's own event has started
    await drain(page.retry(state, stops))
    assert sum(m.calls for m in made) == calls  # the retried turn asked no model
    said_stopped(state, language)
    assert len(state.turns) == 1
    assert page.turn_ended(state)[1].stop_btn is False
    # Retry again, unhindered: the turn runs.
    _, stops = await page.take_retry(state)
    await drain(page.retry(state, stops))
    assert ANSWER in page_values(state)[0][-1]["content"]
    state.close()


async def test_retry_while_a_turn_runs_leaves_that_turn_alone():
    page, _ = page_with(SlowWait())
    state = page.new_state()
    stream = page.send({"text": "wait for me", "files": []}, state)
    await run_until(stream, in_tool)
    _, stops = await page.take_retry(state)
    assert stops == {"held": True}
    updates = [u async for u in page.retry(state, stops)]
    assert updates == [UNCHANGED]  # nothing ran, and the page keeps what it shows
    await drain(stream)
    assert ANSWER in page_values(state)[0][-1]["content"]
    assert len(state.turns) == 1
    state.close()
