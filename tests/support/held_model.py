"""A scripted model whose turn runs exactly as long as a test needs: its reply streams up to
a point, then holds there until the test lets it go on, instead of taking a fixed time that
a loaded machine may outlast or a quiet one waste."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

from agent.models import ScriptedModel


class Gate:
    """Shut until `open()`; the page's server thread waits on it, the test opens it."""

    def __init__(self) -> None:
        self._open = threading.Event()

    def open(self) -> None:
        self._open.set()

    @property
    def is_open(self) -> bool:
        return self._open.is_set()

    async def passed(self, within: float = 60.0) -> None:
        """Wait until open, or `within` seconds at most (a test that failed never opens it).
        Polled, not awaited in a thread: a turn stopped while it waits ends at once."""
        for _ in range(int(within / 0.02)):
            if self._open.is_set():
                return
            await asyncio.sleep(0.02)


class HeldModel(ScriptedModel):
    """Streams `reply` up to and including `hold_at`, then waits at `gate` for the rest."""

    def __init__(self, reply: str, hold_at: str, gate: Gate, name: str = "held") -> None:
        super().__init__([reply], chunk_size=4, name=name)
        self.hold_after = reply.index(hold_at) + len(hold_at)
        self.gate = gate

    async def stream(self, request) -> AsyncIterator:
        sent = 0
        async for part in super().stream(request):
            if sent >= self.hold_after:
                await self.gate.passed()
            sent += len(part) if isinstance(part, str) else 0
            yield part


class HeldBefore:
    """Any model, whose call number `call` (from 1) waits at `gate` before it streams: the
    turn holds between two steps, with everything before it on the page."""

    def __init__(self, model, call: int, gate: Gate) -> None:
        self.model = model
        self.call = call
        self.gate = gate
        self.calls = 0

    def __getattr__(self, name: str):
        return getattr(self.model, name)

    async def stream(self, request) -> AsyncIterator:
        self.calls += 1
        if self.calls == self.call:
            await self.gate.passed()
        async for part in self.model.stream(request):
            yield part
