"""A line for calls that share a few places: at most `limit` run at once, a client at most
`per_client` of them, and a bounded number wait, first come first served. The MCP endpoints
go through one (`ui.mcp_endpoints`), so that a burst of calls from one client neither runs
all at once nor keeps everyone else waiting behind it.

Gradio's own queue cannot do this for MCP: its MCP server sends queued tools back to the
app through a client of its own on this machine, and the caller's address is lost on the way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator


class LineFull(Exception):
    """Too many calls are waiting already (all of them, or this client's); try later."""


class Lanes:
    def __init__(
        self, limit: int, per_client: int, waiting: int, waiting_per_client: int = 2
    ) -> None:
        self.limit = max(1, limit)
        self.per_client = max(1, per_client)
        self.waiting = max(0, waiting)
        self.waiting_per_client = max(0, waiting_per_client)
        self.running = 0
        self._by_client: Counter[str | None] = Counter()
        self._line: list[tuple[str | None, asyncio.Future[None]]] = []

    @contextlib.asynccontextmanager
    async def lane(self, client: str | None) -> AsyncIterator[None]:
        """A place for one call of `client`, waiting for it in line if need be; `LineFull`
        at once when the line is full."""
        if self._fits(client):
            self._take(client)
        else:
            await self._wait(client)
        try:
            yield
        finally:
            self._release(client)

    def _fits(self, client: str | None) -> bool:
        return self.running < self.limit and self._by_client[client] < self.per_client

    def _take(self, client: str | None) -> None:
        self.running += 1
        self._by_client[client] += 1

    async def _wait(self, client: str | None) -> None:
        mine = sum(1 for waiter, _ in self._line if waiter == client)
        if len(self._line) >= self.waiting or mine >= self.waiting_per_client:
            raise LineFull()
        entry = (client, asyncio.get_running_loop().create_future())
        self._line.append(entry)
        try:
            await entry[1]
        except asyncio.CancelledError:
            if entry[1].done() and not entry[1].cancelled():
                self._release(client)  # handed a place as it was cancelled: pass it on
            elif entry in self._line:  # a release may have dropped it already
                self._line.remove(entry)
            raise

    def _release(self, client: str | None) -> None:
        self.running -= 1
        self._by_client[client] -= 1
        if self._by_client[client] <= 0:
            del self._by_client[client]
        # The first in line whose client has room takes the place now, before anyone new.
        for entry in list(self._line):
            waiter, future = entry
            if not self._fits(waiter):
                continue
            self._line.remove(entry)
            if not future.done():
                self._take(waiter)
                future.set_result(None)
