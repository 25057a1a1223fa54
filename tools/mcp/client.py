"""One MCP server's client session, served for the app's life by a task on the hub's loop
(`tools.mcp.hub`), since the SDK's transports must be entered and left by the same task.

A call whose session was found dead before the request went out starts the session again once
and is made; a connection lost during a call is not made again (the server may have acted), but
the next call starts the session again.

Elicitation (a server asking the person mid-call): the first time, the call is ended (`cancel`
to the server) and `NeedsUserInput` carries the server's question to the agent, which asks the
person and then makes the same call again with their replies; each elicitation of that retried
call is answered, in order, with the next reply (`accept`, the reply fitted to the requested
schema by `tools.mcp.answers`; `decline` when it does not fit). A server's request that cannot
be told apart from another call running on the same server at that moment is declined.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tools.base import NeedsUserInput, ToolInputError
from tools.mcp.answers import fit_reply
from tools.mcp.config import ServerSpec

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
        # `wait` leaves the task's own outcome alone and lets a cancelling of ours through.
        done, _ = await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)

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
async def _http(client_of: Any, make_http: Any, spec: ServerSpec) -> AsyncIterator[Any]:
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
