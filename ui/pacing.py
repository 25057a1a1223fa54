"""Showing a stream of events at a pace the browser can follow.

Each update of the page costs the browser a re-render and a layout; a turn's events often come
a dozen within a few milliseconds. `Pace` shows them at most once every `interval`: the next
showing carries what waited, and what waits is shown once the interval is over even when the
next event is slow to come (a tool that runs for seconds, a model gone silent).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_END = object()


class Pace(Generic[T]):
    """Paces the showing of one stream. Iterate `events(source)`: each event as it arrives,
    and None when what was held back is due while the next event has not come; after each
    event, `due()` says whether to show now. A pace starts as if it had just shown."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self.shown_at = clock()
        self.held = False

    def due(self, urgent: bool = False) -> bool:
        """Whether to show now: `urgent` (a turn's last word), or an interval has passed since
        the last showing. If not, it is held back, for the next showing or a timed one."""
        now = self.clock()
        if urgent or now - self.shown_at >= self.interval:
            self.shown_at = now
            self.held = False
            return True
        self.held = True
        return False

    async def events(self, source: AsyncGenerator[T, None]) -> AsyncGenerator[T | None, None]:
        """`source`'s events, with None where the held-back ones are due; `source` is closed
        when this ends, however it ends.

        The next event is awaited in a task of its own, so that a timeout does not cancel the
        source's step. Every step (and the closing) runs in one context, copied from the
        caller's: what the source sets in a context variable stays set from one step to the
        next, as when it is iterated directly, and a reset in its `finally` finds its token."""
        context = contextvars.copy_context()
        step: asyncio.Task[Any] | None = None
        try:
            while True:
                if step is None:
                    step = asyncio.create_task(_next(source), context=context)
                wait = None
                if self.held:
                    wait = max(0.0, self.shown_at + self.interval - self.clock())
                done, _ = await asyncio.wait({step}, timeout=wait)
                if not done:
                    self.due(urgent=True)
                    yield None
                    continue
                event, step = step.result(), None
                if event is _END:
                    return
                yield event
        finally:
            if step is not None:
                # Closed while the next event was on its way (Stop, a client gone): the step
                # ends first, since a generator cannot be closed in the middle of a step.
                step.cancel()
                await asyncio.wait({step})
                if not step.cancelled():
                    step.exception()  # taken, so that it is not logged as never retrieved
            await asyncio.create_task(_close(source), context=context)


async def _next(source: AsyncGenerator[Any, None]) -> Any:
    try:
        return await anext(source)
    except StopAsyncIteration:
        return _END


async def _close(source: AsyncGenerator[Any, None]) -> None:
    await source.aclose()
