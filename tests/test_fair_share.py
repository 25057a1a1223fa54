"""One client cannot take everything: the MCP endpoints' line (`ui.lanes`) lets a client run
at most its share and keep at most a few calls waiting, first come first served; and the OCR
workers (`tools.ocr.pool`) are shared so that a client with a burst of readings holds one
worker, and the next client's reading starts at once on another."""

from __future__ import annotations

import asyncio
import os
import threading

import numpy as np
import pytest
from pydantic import Field

from agent import Agent
from agent.models import ScriptedModel
from tests.conftest import collect
from tools.base import StrictArgs, Tool, ToolResult
from tools.ocr.pool import READER, EngineSpec, OcrPool, WorkersBusy
from ui.lanes import Lanes, LineFull

PIXELS = np.zeros((40, 80, 3), np.uint8)


# -- the line ------------------------------------------------------------------------------------


class Call:
    """A call in the line that holds its place until `done` is set."""

    def __init__(self, lanes: Lanes, client: str) -> None:
        self.started = asyncio.Event()
        self.done = asyncio.Event()
        self.task = asyncio.ensure_future(self._run(lanes, client))

    async def _run(self, lanes: Lanes, client: str) -> None:
        async with lanes.lane(client):
            self.started.set()
            await self.done.wait()

    async def finish(self) -> None:
        self.done.set()
        await self.task


async def settled() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_client_runs_its_share_and_the_first_in_line_goes_next():
    lanes = Lanes(limit=2, per_client=1, waiting=3, waiting_per_client=1)
    first = Call(lanes, "a")
    await first.started.wait()
    second_of_a = Call(lanes, "a")  # its share is in use: it waits
    of_b = Call(lanes, "b")  # room for another client: it runs
    await of_b.started.wait()
    await settled()
    assert not second_of_a.started.is_set()
    with pytest.raises(LineFull):  # a's one waiting place is taken
        async with lanes.lane("a"):
            pass
    of_c = Call(lanes, "c")  # both places in use: it waits, after a's second call
    await settled()
    await first.finish()
    await second_of_a.started.wait()
    assert not of_c.started.is_set()
    await of_b.finish()
    await of_c.started.wait()
    await second_of_a.finish()
    await of_c.finish()
    assert lanes.running == 0


async def test_a_full_line_turns_calls_away_and_a_call_that_leaves_frees_its_place():
    lanes = Lanes(limit=1, per_client=1, waiting=1)
    running = Call(lanes, "a")
    await running.started.wait()
    waiting = Call(lanes, "b")
    await settled()
    with pytest.raises(LineFull):
        async with lanes.lane("c"):
            pass
    waiting.task.cancel()  # the client went away while it waited
    await asyncio.gather(waiting.task, return_exceptions=True)
    after = Call(lanes, "c")
    await settled()
    await running.finish()
    await after.started.wait()
    await after.finish()
    assert lanes.running == 0


# -- the OCR workers -----------------------------------------------------------------------------


@pytest.fixture
def sleepy():
    """Two workers whose engine takes a second per image."""
    pool = OcrPool(EngineSpec(factory="tests.support.fake_ocr:Sleeper"), size=2)
    pool.warm_up()
    yield pool
    pool.shutdown()


class Reading(threading.Thread):
    """A reading for `reader` in a thread of its own, telling its stages as they come."""

    def __init__(self, pool: OcrPool, reader: str) -> None:
        super().__init__()
        self.pool, self.reader = pool, reader
        self.stages: list[str] = []
        self.said = {stage: threading.Event() for stage in ("waiting", "reading")}
        self.error: Exception | None = None
        self.start()

    def run(self) -> None:
        READER.set(self.reader)
        try:
            self.pool.read(PIXELS, note=self.note)
        except Exception as error:
            self.error = error

    def note(self, stage: str) -> None:
        self.stages.append(stage)
        self.said[stage].set()


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one worker has nothing to share")
def test_a_burst_from_one_reader_leaves_a_worker_for_the_next(sleepy):
    first = Reading(sleepy, "203.0.113.1")
    assert first.said["reading"].wait(10)
    second = Reading(sleepy, "203.0.113.1")
    third = Reading(sleepy, "203.0.113.1")
    assert second.said["waiting"].wait(10) and third.said["waiting"].wait(10)
    # A fourth reading of the same client finds its waiting places taken: refused at once.
    token = READER.set("203.0.113.1")
    try:
        with pytest.raises(WorkersBusy):
            sleepy.read(PIXELS)
    finally:
        READER.reset(token)
    # Another client's reading starts on the free worker without waiting.
    other = Reading(sleepy, "198.51.100.2")
    other.join(30)
    assert other.error is None and other.stages == ["reading"]
    for reading in (first, second, third):
        reading.join(30)
        assert reading.error is None
    assert second.stages == third.stages == ["waiting", "reading"]


class WhoArgs(StrictArgs):
    text: str = Field(description="Anything.")


class Who(Tool):
    """Says who its thread reads for, as the OCR pool would see it."""

    name = "who"
    description = "Say who the reading is for."
    Args = WhoArgs

    def run(self, args, ctx):
        return ToolResult(text=f"for {READER.get()}")


async def test_a_tool_thread_reads_for_the_client_of_its_turn():
    READER.set("203.0.113.7")
    action = 'Thought: ask.\nAction: who\nAction Input: {"text": "x"}'
    events = await collect(Agent(ScriptedModel([action, "Answer: done"]), [Who()]), "who?")
    result = next(e for e in events if e.type == "tool_result")
    assert result.text == "for 203.0.113.7"
