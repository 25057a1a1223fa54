"""A started turn as one object: `events()` takes what it does as it happens, `cancel()` ends it.

`Agent.start` returns one. Whoever ends a turn (a Stop button, Retry, Clear, a new conversation,
a client that left, a deadline of the caller's) calls `cancel()`: the model stream and the tool
are closed at once, even while nobody is taking events, and the conversation keeps only the
turn's stopped record (`agent.session.Session.commit_stopped`). Nothing is put back, because
nothing was written.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable

from .events import Event


class TurnHandle:
    """One turn, started or about to be. `run(stop)` makes its events; it is called once, by
    `events()`, so that a handle cancelled before that ends before anything runs."""

    def __init__(
        self,
        run: Callable[[asyncio.Event], AsyncGenerator[Event, None]] | None = None,
        stop: asyncio.Event | None = None,
    ) -> None:
        self._run = run
        # A caller's own event may stand for the handle's (`Agent.run(..., stop=)`).
        self._stop = stop if stop is not None else asyncio.Event()
        self._taken = False

    def events(
        self, run: Callable[[asyncio.Event], AsyncGenerator[Event, None]] | None = None
    ) -> AsyncGenerator[Event, None]:
        """The turn's events, once. `run` starts a handle that was made before its turn."""
        run = run or self._run
        if run is None or self._taken:
            raise RuntimeError("a turn's events are taken once, from a handle with a run")
        self._taken = True
        if self.cancelled:
            return _nothing()  # ended before it started: nothing runs, nothing is kept
        return run(self._stop)

    def cancel(self) -> None:
        """End the turn at once, from anywhere; again is harmless."""
        self._stop.set()

    @property
    def cancelled(self) -> bool:
        return self._stop.is_set()


async def _nothing() -> AsyncGenerator[Event, None]:
    return
    yield
