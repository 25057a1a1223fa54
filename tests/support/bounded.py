"""Run calls in a child process with a time and a memory budget, so that a call which would hang
or eat the machine's memory fails its test instead of taking the test run down with it.

A thread cannot do this: one C-level operation such as `3 ** 7625597484987` or
`format(1, ">1999999999")` holds the GIL until it is done, so `Thread.join(timeout)` in the test
never gets to return.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]
# As under pytest: the project, and tests/ for `conftest`.
_PYTHONPATH = os.pathsep.join([str(ROOT), str(ROOT / "tests")])
# Importing the target (pint's registry, numpy) can take a while on a busy machine.
STARTUP_SECONDS = 120.0

_CHILD = r"""
import importlib, json, resource, sys, time, traceback

def resolve(target):
    module, _, path = target.partition(":")
    value = importlib.import_module(module)
    for part in path.split("."):
        called = part.endswith("()")
        value = getattr(value, part.removesuffix("()"))
        if called:
            value = value()
    return value

job = json.loads(sys.stdin.readline())
function = resolve(job["target"])
for setup in job["setup"]:
    resolve(setup)()
with open("/proc/self/status") as status:
    used = next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmSize:"))
budget = used + job["memory_mb"] * 2**20
resource.setrlimit(resource.RLIMIT_AS, (budget, budget))
print(json.dumps({"ready": True}), flush=True)
for args in job["calls"]:
    started = time.monotonic()
    outcome = {}
    try:
        outcome["result"] = repr(function(*args))[:2000]
    except BaseException as error:
        outcome["error"] = [c.__name__ for c in type(error).__mro__]
        outcome["message"] = str(error)[:2000]
    outcome["seconds"] = time.monotonic() - started
    print(json.dumps(outcome), flush=True)
"""


class Outcome(BaseModel):
    """How one call ended: a result, an exception, or not at all within the budget."""

    args: list[Any]
    finished: bool = True
    seconds: float = 0.0
    result: str | None = None
    error: list[str] = []  # the exception's class and its bases, most specific first
    message: str = ""

    def raised(self, name: str) -> bool:
        return name in self.error


def run_bounded(
    target: str,
    calls: Sequence[Sequence[Any]],
    *,
    setup: Sequence[str] = (),
    seconds: float = 2.0,
    memory_mb: int = 512,
) -> list[Outcome]:
    """Call `target` ("module:attr", where "Class().method" makes an instance first) once per
    argument list in `calls`, each with `seconds` of time and `memory_mb` more memory than the
    process held after importing it and calling each `setup` ("module:function"). A call that
    runs over is reported unfinished, the child is killed, and the rest run in a fresh one."""
    outcomes: list[Outcome] = []
    remaining = [list(args) for args in calls]
    while remaining:
        done = _run_child(target, remaining, setup, seconds, memory_mb)
        outcomes.extend(done)
        remaining = remaining[len(done) :]
        if remaining:
            outcomes.append(Outcome(args=remaining[0], finished=False, seconds=seconds))
            remaining = remaining[1:]
    return outcomes


def _run_child(
    target: str, calls: list[list[Any]], setup: Sequence[str], seconds: float, memory_mb: int
) -> list[Outcome]:
    job = {
        "target": target,
        "calls": calls,
        "setup": list(setup),
        "seconds": seconds,
        "memory_mb": memory_mb,
    }
    with tempfile.TemporaryFile("w+") as errors:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": _PYTHONPATH, "OMP_NUM_THREADS": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        try:
            return _collect(child, job, errors)
        finally:
            child.kill()
            child.wait()


def _collect(child: subprocess.Popen[str], job: dict[str, Any], errors: Any) -> list[Outcome]:
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_pump, args=(child.stdout, lines), daemon=True).start()
    assert child.stdin is not None
    child.stdin.write(json.dumps(job) + "\n")
    child.stdin.flush()
    if _next_line(lines, STARTUP_SECONDS) is None:
        child.kill()
        child.wait()
        errors.seek(0)
        raise RuntimeError(f"the child process did not start: {errors.read()[-2000:]}")
    outcomes: list[Outcome] = []
    for args in job["calls"]:
        # The child's own clock decides how long a call took; this only catches a hang.
        line = _next_line(lines, job["seconds"] * 3 + 1)
        if line is None:
            break
        outcomes.append(Outcome(args=args, **json.loads(line)))
    return outcomes


def _pump(stream: Any, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)
    lines.put("")


def _next_line(lines: queue.Queue[str], timeout: float) -> str | None:
    try:
        line = lines.get(timeout=timeout)
    except queue.Empty:
        return None
    return line or None
