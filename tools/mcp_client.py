"""Sessions with the MCP servers of an `mcp.json`: one per server for the app's life.

The sessions live on an event loop of their own, in one background thread, whichever loop calls
the tools (the page's server, the command line's `asyncio.run`, a test's): the SDK's transports
must be entered and left by the same task, a stdio server must outlive any one request's loop,
and a server that hangs then holds up nothing but its own calls. A call from another loop is
handed over and awaited there; cancelling it (the tool timeout) cancels the request.

Servers are started when the tools are first listed (the prompt needs their tools); a server
that fails to start, hangs past `START_TIMEOUT` or dies and cannot be restarted once is logged
and becomes one notice sentence (`Hub.notices`); the rest of the app goes on without it.

Elicitation (a server asking the person mid-call): the first time, the call is ended
(`cancel` to the server) and `NeedsUserInput` carries the server's question to the agent, which
asks the person and then makes the same call again with their replies; each elicitation of that
retried call is answered, in order, with the next reply (`accept`, the reply fitted to the
requested schema by `mcp_answers`; `decline` when it does not fit). A server's request that
cannot be told apart from another call running on the same server at that moment is declined.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.base import NeedsUserInput, ToolInputError
from tools.mcp_answers import fit_reply
from tools.mcp_config import ConfigError, ServerSpec, load_config

log = logging.getLogger(__name__)

START_TIMEOUT = 20.0
CLOSE_TIMEOUT = 5.0


class McpToolError(ToolInputError):
    """An MCP tool or its server could not do the call; one sentence the model reads."""


@dataclass
class _Call:
    """One call in flight: the person's replies to hand out, and a question the server asked."""

    replies: list[str]
    used: int = 0
    question: str | None = None
    schema: dict[str, Any] = field(default_factory=dict)


def one_line(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = " ".join(str(error).split())[:300]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Connection:
    """One server's session, served by a task on the hub's loop from start to close."""

    def __init__(self, name: str, spec: ServerSpec) -> None:
        self.name = name
        self.spec = spec
        self.session: Any = None
        self.tools: list[Any] = []
        self.failed = False
        self.stale = False  # the connection was lost; started again before the next call
        self._task: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._calls: list[_Call] = []

    async def start(self) -> None:
        """Connect and list the tools; raises whatever stopped that, or `TimeoutError`."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._closing = asyncio.Event()
        self._task = asyncio.create_task(self._serve(ready), name=f"mcp-{self.name}")
        try:
            async with asyncio.timeout(START_TIMEOUT):
                await asyncio.shield(ready)
        except BaseException:
            if not ready.done():
                ready.cancel()
            await self.close()
            raise

    async def _serve(self, ready: asyncio.Future[None]) -> None:
        from mcp import ClientSession

        try:
            async with (
                self._transport() as (read, write, *_),
                ClientSession(read, write, elicitation_callback=self._elicit) as session,
            ):
                await session.initialize()
                self.tools = await _all_tools(session)
                self.session = session
                if not ready.done():
                    ready.set_result(None)
                await self._closing.wait()
        except BaseException as error:  # the transports raise exception groups
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError())
            elif not self._closing.is_set():
                log.warning("MCP server %s: session ended: %s", self.name, one_line(error))
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            self.session = None

    def _transport(self) -> Any:
        spec = self.spec
        if spec.transport == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            params = StdioServerParameters(
                command=spec.command or "", args=spec.args, env=spec.env, cwd=spec.cwd
            )
            return stdio_client(params)
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        return _http(streamable_http_client, create_mcp_http_client, spec)

    async def close(self) -> None:
        self._closing.set()
        task, self._task = self._task, None
        if task is None or task.done():
            return
        if self.session is None:  # still starting, or stuck: nothing to close politely
            task.cancel()
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await asyncio.shield(task)
        except (TimeoutError, Exception):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        replies: Sequence[str],
        progress: Callable[[str], None],
    ) -> Any:
        """The server's `CallToolResult`. A session found dead before the request went out is
        started again once and the call made; a connection lost during the call is not retried,
        since the server may have acted, but the next call starts the session again."""
        for attempt in (1, 2):
            if self.session is None or self.stale:
                await self._restart()
            try:
                return await self._call(tool, arguments, replies, progress)
            except NeedsUserInput:
                raise
            except Exception as error:
                lost = _connection_lost(error)
                self.stale = self.stale or lost
                if lost:
                    log.warning("MCP server %s: connection lost (%s)", self.name, one_line(error))
                if attempt == 1 and _not_sent(error):
                    continue
                if lost:
                    raise McpToolError(
                        f"The {self.name} server closed the connection during {tool}; it will "
                        "be started again for the next call."
                    ) from error
                raise McpToolError(
                    f"The {self.name} server could not run {tool}: {one_line(error)}."
                ) from error
        raise AssertionError("unreachable")

    async def _restart(self) -> None:
        if self.failed:
            raise McpToolError(f"The {self.name} server is not available; use another tool.")
        await self.close()
        try:
            await self.start()
            self.stale = False
        except Exception as error:
            self.failed = True
            raise McpToolError(
                f"The {self.name} server stopped and could not be started again "
                f"({one_line(error)}); use another tool."
            ) from error

    async def _call(
        self,
        tool: str,
        arguments: dict[str, Any],
        replies: Sequence[str],
        progress: Callable[[str], None],
    ) -> Any:
        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress(message or (f"{done:g}/{total:g}" if total else f"{done:g}"))

        call = _Call(replies=list(replies))
        self._calls.append(call)
        try:
            result = await self.session.call_tool(tool, arguments, progress_callback=on_progress)
        finally:
            self._calls.remove(call)
        if call.question is not None:
            raise NeedsUserInput(call.question, tool_name=tool, schema=call.schema)
        return result

    async def _elicit(self, context: Any, params: Any) -> Any:
        from mcp import types

        schema = getattr(params, "requestedSchema", None)
        if len(self._calls) != 1 or not isinstance(schema, dict):
            log.info("MCP server %s: elicitation declined (not one form call)", self.name)
            return types.ElicitResult(action="decline")
        call = self._calls[0]
        if call.used < len(call.replies):
            reply = call.replies[call.used]
            call.used += 1
            content = fit_reply(reply, schema)
            if content is None:
                return types.ElicitResult(action="decline")
            return types.ElicitResult(action="accept", content=content)
        call.question, call.schema = params.message, schema
        return types.ElicitResult(action="cancel")


@contextlib.asynccontextmanager
async def _http(client_of: Any, make_http: Any, spec: ServerSpec) -> Any:
    async with (
        make_http(headers=spec.headers or None) as http,
        client_of(spec.url or "", http_client=http) as streams,
    ):
        yield streams


async def _all_tools(session: Any) -> list[Any]:
    tools, cursor = [], None
    while True:
        page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools


def _not_sent(error: BaseException) -> bool:
    """Whether the request failed before it reached the server (a closed pipe, no server)."""
    import anyio
    import httpx

    unsent = (anyio.ClosedResourceError, anyio.BrokenResourceError, httpx.ConnectError)
    return isinstance(error, unsent)


def _connection_lost(error: BaseException) -> bool:
    import anyio
    import httpx
    from mcp import McpError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(error, McpError):
        return error.error.code == CONNECTION_CLOSED
    lost = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)
    return isinstance(error, (*lost, httpx.TransportError, OSError))


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
