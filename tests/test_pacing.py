"""`ui.pacing.Pace` on streams the tests drive: a burst is held back, what waits is shown when
the next event is slow, and closing while the next event is on its way ends the source cleanly.

The clock is frozen where a test needs events to fall within one interval whatever the
machine's load; the timed showing itself waits on the event loop's real time."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars

import pytest

from ui.pacing import Pace

FROZEN = 100.0


def frozen() -> float:
    return FROZEN


async def burst(n: int):
    for i in range(n):
        yield i


async def test_a_burst_is_held_back_and_only_the_last_word_is_shown_at_once():
    pace: Pace[int] = Pace(0.05, clock=frozen)
    seen, shown = [], 0
    async with contextlib.aclosing(pace.events(burst(10))) as events:
        async for item in events:
            assert item is not None  # nothing waits for a timed showing: all came at once
            seen.append(item)
            shown += pace.due(urgent=item == 9)
    assert seen == list(range(10)) and shown == 1 and not pace.held


async def test_a_burst_ending_without_a_last_word_leaves_it_held_for_the_caller():
    pace: Pace[int] = Pace(0.05, clock=frozen)
    async with contextlib.aclosing(pace.events(burst(3))) as events:
        assert [item async for item in events if not pace.due()] == [0, 1, 2]
    assert pace.held


async def test_an_event_after_the_interval_is_shown_at_once():
    now = [FROZEN]
    pace: Pace[int] = Pace(0.05, clock=lambda: now[0])
    async with contextlib.aclosing(pace.events(burst(3))) as events:
        shown = []
        async for _ in events:
            now[0] += 0.03
            shown.append(pace.due())
    assert shown == [False, True, False]


async def test_what_waits_is_shown_while_the_next_event_is_slow_to_come():
    go_on = asyncio.Event()

    async def slow():
        yield "tool_call"
        await go_on.wait()  # a tool that runs until the test lets it finish
        yield "tool_result"

    pace: Pace[str] = Pace(0.01, clock=frozen)
    async with contextlib.aclosing(pace.events(slow())) as events:
        assert await anext(events) == "tool_call"
        assert not pace.due()
        assert await anext(events) is None  # shown while the tool still runs
        assert not go_on.is_set() and not pace.held
        go_on.set()
        assert await anext(events) == "tool_result"
        # Nothing held: the next wait has no timeout, and the stream simply ends.
        assert [item async for item in events] == []


async def test_nothing_held_means_no_timed_showing():
    go_on = asyncio.Event()

    async def slow():
        yield 1
        await go_on.wait()
        yield 2

    pace: Pace[int] = Pace(0.0)
    async with contextlib.aclosing(pace.events(slow())) as events:
        assert await anext(events) == 1 and pace.due()
        nxt = asyncio.ensure_future(anext(events))
        done, _ = await asyncio.wait({nxt}, timeout=0.05)
        assert not done  # waits for the event itself, however long
        go_on.set()
        assert await nxt == 2


class Pending:
    """A source whose second event never comes; records how it ended."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.ended: str | None = None

    async def events(self):
        try:
            yield "tool_call"
            self.waiting.set()
            await asyncio.Event().wait()
            yield "never"
        except asyncio.CancelledError:
            self.ended = "cancelled"
            raise
        except GeneratorExit:
            self.ended = "closed"
            raise


async def test_closing_while_the_next_event_is_on_its_way_cancels_it_and_closes_the_source():
    pending = Pending()
    source = pending.events()
    pace: Pace[str] = Pace(0.01, clock=frozen)
    events = pace.events(source)
    assert await anext(events) == "tool_call" and not pace.due()
    assert await anext(events) is None
    assert pending.waiting.is_set()
    await events.aclose()  # no "asynchronous generator is already running"
    assert pending.ended == "cancelled"
    with pytest.raises(StopAsyncIteration):  # the source has ended
        await anext(source)


async def test_a_cancelled_wait_for_the_next_event_cancels_the_source_too():
    # Gradio ends an event by cancelling the task that iterates it.
    pending = Pending()
    pace: Pace[str] = Pace(10.0, clock=frozen)
    events = pace.events(pending.events())
    assert await anext(events) == "tool_call" and pace.due(urgent=True)
    waiting = asyncio.ensure_future(anext(events))
    await pending.waiting.wait()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await events.aclose()
    assert pending.ended == "cancelled"


async def test_closing_between_events_closes_the_source_at_its_yield():
    pending = Pending()
    events = Pace(0.01).events(pending.events())
    assert await anext(events) == "tool_call"
    await events.aclose()
    assert pending.ended == "closed"


async def test_an_error_of_the_source_reaches_the_caller():
    async def failing():
        yield 1
        raise ValueError("broken")

    async with contextlib.aclosing(Pace(0.05).events(failing())) as events:
        assert await anext(events) == 1
        with pytest.raises(ValueError, match="broken"):
            await anext(events)


WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


async def test_the_source_keeps_one_context_from_step_to_step_and_to_its_close():
    WHO.set("caller")
    seen = []

    async def source():
        seen.append(WHO.get())  # the caller's, copied
        token = WHO.set("source")
        try:
            yield 1
            seen.append(WHO.get())  # still its own, in the next step's task
            yield 2
        finally:
            WHO.reset(token)  # the token belongs to this context: no ValueError

    pace: Pace[int] = Pace(0.05)
    events = pace.events(source())
    assert await anext(events) == 1
    assert await anext(events) == 2
    await events.aclose()
    assert seen == ["caller", "source"]
    assert WHO.get() == "caller"  # what the source set never leaks to the caller
