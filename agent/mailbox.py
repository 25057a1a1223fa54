"""The events of a running turn on their way from the turn's task to whoever iterates it.

An `asyncio.Queue` costs a coroutine and a future per event, and a turn emits one event per
streamed chunk. The turn's task never waits to put, so a deque and one wake-up future are enough:
the reader drains everything put since it last looked, and sleeps only when nothing is left.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any


class Mailbox:
    """An unbounded single-reader queue: `put` never blocks, `get` waits when it is empty."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def get(self) -> Any:
        while not self._items:
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft()

    def get_nowait(self) -> Any:
        """The next item; `IndexError` when there is none."""
        return self._items.popleft()

    def __len__(self) -> int:
        return len(self._items)
