"""Running one tool call: quick tools inline, slow ones on their own threads, timeouts on
running time, failures sorted into the model's and ours."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from agent import tool_run
from agent.events import ImageInfo
from tests.conftest import Boom, Echo, EchoArgs, Refuse, Slow, SlowArgs
from tools.base import Tool, ToolContext, ToolResult


def ctx(store) -> ToolContext:
    return ToolContext(store)


async def run(tool, args, store, timeout=5.0):
    return await tool_run.run_call(
        tool,
        args,
        ctx(store),
        timeout=timeout,
        step=1,
        call_id="c1",
        image_info=lambda image_id: ImageInfo(id=image_id, width=1, height=1),
    )


class Where(Tool):
    name = "where"
    description = "Says which thread it ran on."
    Args = EchoArgs

    def run(self, args, ctx):
        return ToolResult(text=threading.current_thread().name)


class QuickWhere(Where):
    name = "quick_where"
    quick = True


async def test_a_quick_tool_runs_on_the_loop_and_others_on_the_tools_threads(store):
    quick = await run(QuickWhere(), EchoArgs(text="x"), store)
    slow = await run(Where(), EchoArgs(text="x"), store)
    assert quick.text == threading.current_thread().name
    assert slow.text.startswith("agent-tool")


async def test_a_result_becomes_an_ok_event(store):
    event = await run(Echo(), EchoArgs(text="hi"), store)
    assert event.ok and event.text == "echo: hi" and event.call_id == "c1"


async def test_a_timeout_is_an_observation_and_the_call_is_told_to_stop(store):
    context = ctx(store)
    started = time.monotonic()
    event = await tool_run.run_call(
        Slow(), SlowArgs(seconds=5), context, timeout=0.2, step=1, call_id="c", image_info=None
    )
    assert time.monotonic() - started < 1.0
    assert not event.ok and "did not finish within 0.2 seconds" in event.text
    assert context.cancelled


async def test_waiting_for_a_thread_is_not_counted_against_the_timeout(store, monkeypatch):
    # One tool thread, held by a slow call: the next call waits, then runs in full.
    monkeypatch.setattr(tool_run, "_TOOL_THREADS", tool_run.ThreadPoolExecutor(max_workers=1))
    # It waits about 2 s for the thread, longer than its own 1.5 s, and runs 0.2 s of them.
    first = asyncio.ensure_future(run(Slow(), SlowArgs(seconds=2.0), store, timeout=5.0))
    await asyncio.sleep(0.05)
    second = await run(Slow(), SlowArgs(seconds=0.2), store, timeout=1.5)
    assert second.ok, second.text
    assert (await first).ok


async def test_an_input_error_is_the_models_to_fix(store):
    event = await run(Refuse(), EchoArgs(text="a"), store)
    assert not event.ok and event.text.startswith("Error: cannot use 'a'")


async def test_any_other_failure_is_ours_and_ends_the_turn(store):
    with pytest.raises(tool_run.ToolCrashed) as caught:
        await run(Boom(), EchoArgs(text="a"), store)
    assert caught.value.tool_name == "boom" and caught.value.error_type == "RuntimeError"
    assert not caught.value.result.ok and "kaput" not in caught.value.result.text


def test_a_tools_own_timeout_wins_over_the_agents():
    assert tool_run.timeout_for(Slow(), 30.0) == 0.3
    assert tool_run.timeout_for(Echo(), 30.0) == 30.0


class StopsLate(Tool):
    """Raises once its call was given up (as the OCR pool's `Stopped` does after Stop)."""

    name = "stops_late"
    description = "Runs until told to stop, then raises."
    Args = EchoArgs

    def run(self, args, ctx):
        while not ctx.cancelled:
            time.sleep(0.01)
        raise RuntimeError("stopped")


async def test_a_call_given_up_leaves_no_unheard_error_in_the_log(store, caplog, monkeypatch):
    import gc
    from concurrent.futures import ThreadPoolExecutor

    gc.collect()  # what other tests left behind is not this test's to judge
    # Every tool thread is busy, so the call is given up (Stop) before its thread starts.
    busy = threading.Event()
    threads = ThreadPoolExecutor(max_workers=1)
    threads.submit(busy.wait, 5)
    monkeypatch.setattr(tool_run, "_TOOL_THREADS", threads)
    context = ctx(store)
    call = asyncio.ensure_future(
        tool_run.call_tool(StopsLate(), EchoArgs(text="x"), context, timeout=5.0)
    )
    await asyncio.sleep(0.05)
    call.cancel()
    context.cancelled = True
    with pytest.raises(asyncio.CancelledError):
        await call
    busy.set()  # the thread starts late, sees the call given up, and raises
    threads.shutdown(wait=True)
    await asyncio.sleep(0.05)
    del call
    gc.collect()
    await asyncio.sleep(0)
    assert "RuntimeError('stopped')" not in caplog.text
