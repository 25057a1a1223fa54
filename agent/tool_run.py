"""Running one tool call: where it runs, how long it may, and what its failure means.

- A quick synchronous tool (`Tool.quick`: calculator, unit conversion, clock) runs inline: its
  work is bounded and shorter than a hop to a thread. Async tools run on the loop. Everything
  else runs in the tools' own thread pool, never the default executor, so it cannot starve
  the agent's quick work.
- The timeout counts running time: a call waiting for a free thread is not yet on the clock.
  At the timeout the call's context is marked cancelled, which well-behaved tools check.
- A failure the model can fix (`ToolInputError`, invalid arguments, a timeout) becomes the
  Observation. A tool that needs the person's answer (`NeedsUserInput`) raises `ToolAsks`.
  Anything else is our bug: it is logged and raised as `ToolCrashed`, which ends the turn
  instead of blaming the model.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, ValidationError

from tools.base import NeedsUserInput, Tool, ToolContext, ToolInputError, ToolResult

from .events import ImageInfo, ToolResultEvent
from .offload import left_behind

log = logging.getLogger(__name__)

_TOOL_THREADS = ThreadPoolExecutor(max_workers=16, thread_name_prefix="agent-tool")


class ToolAsks(Exception):
    """The tool stopped to ask the person something (`NeedsUserInput`): the turn asks it."""

    def __init__(self, tool_name: str, question: str, result: ToolResultEvent) -> None:
        super().__init__(question)
        self.tool_name = tool_name
        self.question = question
        self.result = result  # the call as the trace shows it


class ToolCrashed(Exception):
    """A tool failed in a way that is not the model's doing (a bug, a broken install)."""

    def __init__(self, tool_name: str, error: BaseException, result: ToolResultEvent) -> None:
        super().__init__(f"{tool_name} failed: {type(error).__name__}")
        self.tool_name = tool_name
        self.error_type = type(error).__name__
        self.result = result  # the failed call as the trace shows it


def timeout_for(tool: Tool, default: float) -> float:
    """The tool's own timeout where it declares one, else the agent's."""
    return default if type(tool).timeout == Tool.timeout else tool.timeout


async def call_tool(tool: Tool, args: BaseModel, ctx: ToolContext, timeout: float) -> ToolResult:
    """Run the call and return its result; `TimeoutError` past `timeout` seconds of running."""
    if inspect.iscoroutinefunction(tool.run):
        async with asyncio.timeout(timeout):
            result = await tool.run(args, ctx)
    elif getattr(tool, "quick", False):
        result = tool.run(args, ctx)
        assert not inspect.isawaitable(result)  # `run` is no coroutine function
    else:
        result = await _in_thread(tool.run, args, ctx, timeout)
    return ToolResult(text=result) if isinstance(result, str) else result


async def _in_thread(run: Callable[..., Any], args: Any, ctx: ToolContext, timeout: float) -> Any:
    loop = asyncio.get_running_loop()
    started = asyncio.Event()

    def work() -> Any:
        loop.call_soon_threadsafe(started.set)
        return run(args, ctx)

    # In the caller's context, as `asyncio.to_thread` runs a function: a tool sees who the
    # turn is for (`tools.ocr.pool.READER`) and the turn's tracing span.
    future = left_behind(loop.run_in_executor(_TOOL_THREADS, contextvars.copy_context().run, work))
    waiting = asyncio.ensure_future(started.wait())
    await asyncio.wait({future, waiting}, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    async with asyncio.timeout(timeout):
        return await future


async def run_call(
    tool: Tool,
    args: BaseModel,
    ctx: ToolContext,
    *,
    timeout: float,
    step: int,
    call_id: str,
    image_info: Callable[[str], ImageInfo],
) -> ToolResultEvent:
    """The call's result as an event (ok or a failure the model reads); `ToolCrashed` else."""
    started = time.monotonic()
    try:
        result = await call_tool(tool, args, ctx, timeout)
    except TimeoutError:
        message = (
            f"{tool.name} did not finish within {timeout:g} seconds. Try a smaller request or "
            "another tool."
        )
        return _failed(tool, step, call_id, started, message, "timeout")
    except (ToolInputError, ValidationError) as exc:
        message = f"Error: {one_line(exc)}"
        return _failed(tool, step, call_id, started, message, type(exc).__name__)
    except NeedsUserInput as exc:
        asked = ToolResultEvent(
            step=step,
            call_id=call_id,
            tool=tool.name,
            ok=True,
            text=f"{tool.name} asks: {exc.question}",
            duration=time.monotonic() - started,
        )
        raise ToolAsks(tool.name, exc.question, asked) from exc
    except Exception as exc:
        log.exception("tool %s failed", tool.name)
        message = f"{tool.name} failed unexpectedly."
        failed = _failed(tool, step, call_id, started, message, type(exc).__name__)
        raise ToolCrashed(tool.name, exc, failed) from exc
    finally:
        ctx.cancelled = True  # a thread still running past its timeout sees this and stops
    return ToolResultEvent(
        step=step,
        call_id=call_id,
        tool=tool.name,
        ok=True,
        text=result.text,
        duration=time.monotonic() - started,
        images=[image_info(image.id) for image in result.images],
        data=result.data,
    )


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:500] or type(exc).__name__


def _failed(
    tool: Tool, step: int, call_id: str, started: float, message: str, error_type: str
) -> ToolResultEvent:
    return ToolResultEvent(
        step=step,
        call_id=call_id,
        tool=tool.name,
        ok=False,
        text=message,
        duration=time.monotonic() - started,
        error=message,
        error_type=error_type,
    )
