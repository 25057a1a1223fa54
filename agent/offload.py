"""CPU work that must not run on the event loop, with a deadline.

Checking a tool's arguments (pint parses units), reading arguments out of a sentence and the
offline model's reply are usually instant, but a hostile input can make any of them slow. On the
event loop that would stall every session of the server; in a worker thread it stalls one turn,
which the deadline then ends with a sentence.

These run in their own small pool, so they never queue behind tools that hold the default
executor's threads for seconds (OCR).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

QUICK_DEADLINE = 5.0
_QUICK = ThreadPoolExecutor(max_workers=4, thread_name_prefix="agent-quick")


def left_behind(future: asyncio.Future) -> asyncio.Future:
    """Mark a thread's future as heard even if nobody awaits it any more (its turn was stopped
    or ran out of time): an error it ends with afterwards is nobody's to handle, and asyncio
    would log it as "Future exception was never retrieved"."""

    def heard(done: asyncio.Future) -> None:
        if not done.cancelled() and done.exception() is not None:
            log.debug("work left behind ended with %r", done.exception())

    future.add_done_callback(heard)
    return future


class Overdue(TimeoutError):
    """Quick work that was not done by its deadline."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what} did not finish within {seconds:g} s")
        self.what = what
        self.seconds = seconds


async def run_quick(
    fn: Callable[..., T], *args: Any, deadline: float | None = None, what: str = ""
) -> T:
    """`fn(*args)` in a worker thread; `Overdue` past `deadline` seconds.

    A thread cannot be stopped from outside: past the deadline the turn goes on without the
    result, and the work itself must be bounded (the unit parser and the calculator are).
    """
    deadline = QUICK_DEADLINE if deadline is None else deadline
    loop = asyncio.get_running_loop()
    future = left_behind(loop.run_in_executor(_QUICK, functools.partial(fn, *args)))
    try:
        async with asyncio.timeout(deadline):
            return await future
    except TimeoutError as exc:
        raise Overdue(what or getattr(fn, "__qualname__", "work"), deadline) from exc
