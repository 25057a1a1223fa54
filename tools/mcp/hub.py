"""The MCP servers of one `mcp.json`, on an event loop of their own in one background thread.

The sessions live there whichever loop calls the tools (the page's server, the command line's
`asyncio.run`, a test's): a stdio server must outlive any one request's loop, and a server that
hangs then holds up nothing but its own calls. A call from another loop is handed over and
awaited there; cancelling it (the tool timeout) cancels the request.

Servers are started when the tools are first listed (the prompt needs their tools); a server
that fails to start, hangs past `START_TIMEOUT` or dies and cannot be started again is logged
and becomes one notice sentence (`Hub.notices`); the rest of the app goes on without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tools.mcp.client import CLOSE_TIMEOUT, START_TIMEOUT, Connection, McpToolError, one_line
from tools.mcp.config import ConfigError, load_config

log = logging.getLogger(__name__)


class Hub:
    """The servers of one `mcp.json`, their loop thread, and what went wrong with them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.connections: dict[str, Connection] = {}
        self._notices: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> dict[str, Connection]:
        """Start every server (once); the ones that answered, by name."""
        with self._lock:
            if not self._started:
                self._started = True
                self._start_all()
        return {n: c for n, c in self.connections.items() if not c.failed}

    def _start_all(self) -> None:
        try:
            specs = load_config(self.path)
        except ConfigError as error:
            self.notice(f"The MCP servers file could not be used: {error}")
            return
        if not specs:
            return
        self.connections = {name: Connection(name, spec) for name, spec in specs.items()}
        loop = self._loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="mcp-sessions", daemon=True).start()

        async def start_all() -> list[Any]:
            starts = [c.start() for c in self.connections.values()]
            return await asyncio.gather(*starts, return_exceptions=True)

        started = asyncio.run_coroutine_threadsafe(start_all(), loop)
        outcomes = started.result(START_TIMEOUT + 2 * CLOSE_TIMEOUT)
        for (name, connection), outcome in zip(self.connections.items(), outcomes, strict=True):
            if isinstance(outcome, BaseException):
                connection.failed = True
                why = "it did not answer in time" if isinstance(outcome, TimeoutError) else None
                self.notice(
                    f"The MCP server '{name}' could not be started "
                    f"({why or one_line(outcome)}), so its tools are not available."
                )

    def notice(self, sentence: str) -> None:
        if sentence not in self._notices:
            log.warning("%s", sentence)
            self._notices.append(sentence)

    def notices(self) -> list[str]:
        return list(self._notices)

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        replies: Sequence[str] = (),
        progress: Callable[[str], None] = lambda message: None,
    ) -> Any:
        """Call a tool from any event loop; runs on the hub's."""
        connection, loop = self.connections.get(server), self._loop
        if connection is None or loop is None:
            raise McpToolError(f"The {server} server is not available; use another tool.")
        future = asyncio.run_coroutine_threadsafe(
            connection.call(tool, arguments, replies, progress), loop
        )
        try:
            return await asyncio.wrap_future(future)
        except McpToolError as error:
            if connection.failed:
                self.notice(str(error))
            raise

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None or not loop.is_running():
            return

        async def close_all() -> None:
            await asyncio.gather(*(c.close() for c in self.connections.values()))

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close_all(), loop).result(CLOSE_TIMEOUT * 2)
        loop.call_soon_threadsafe(loop.stop)
