"""A few long-lived OCR worker processes, so that a reading which runs too long can be stopped.

A thread cannot be stopped from outside, and the engine's C code keeps a core busy for as long
as an image takes, whoever is still waiting for it. A process can be: the calling thread waits
for the answer in short slices, and when its call is cancelled or its deadline passes it kills
the worker (SIGTERM, then SIGKILL after a short grace); the slot starts a fresh worker the next
time one is needed.

- At most `size` workers (default 2, never more than the machine's cores), each loading its
  engine once; the engine's own threads are set to one by the caller, so N workers use N cores.
- Started lazily; `warm_up()` starts them all and loads their engines.
- A worker is a fresh interpreter running `tools.ocr_worker` (never a fork: the app has
  threads, and a forked copy can deadlock on a lock another thread held), talking over a
  `multiprocessing` pipe. Not a `multiprocessing.Process`: its "spawn" and "forkserver"
  starts re-run the parent's main script in every worker (for `python app.py`, Gradio and the
  whole app: 6 s and 150 MB each time a worker starts).
- Waiting for a free worker counts against the caller's deadline (`WorkersBusy` says so).
- Every pool is shut down at exit; a worker whose parent dies ends by itself.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)

# The folder that holds this `tools` package: first on the worker's import path (and `-P`
# keeps the current folder, which may hold some other `tools`, off it).
_ROOT = str(Path(__file__).resolve().parent.parent)
_WORKER_MAIN = "from tools.ocr_worker import main; main()"
# One core per worker: the engine's thread count is a setting, these are the libraries'.
_ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

DEFAULT_SIZE = 2
# How often a waiting caller looks at its cancellation flag and its deadline.
SLICE = 0.05
# How long a worker has to end after SIGTERM before SIGKILL.
GRACE = 0.5

_POOLS: weakref.WeakSet[OcrPool] = weakref.WeakSet()


class EngineSpec(BaseModel):
    """What a worker builds and how it calls it: `factory` is "module:callable", called with
    `settings` once per worker; `calls` are keyword sets for the engine, tried in order until
    one works."""

    model_config = ConfigDict(frozen=True)

    factory: str
    settings: dict[str, Any] = Field(default_factory=dict)
    calls: list[dict[str, Any]] = Field(default_factory=lambda: [{}])


class EngineUnavailable(Exception):
    """The engine cannot load on this machine; `reason` is a few words, `detail` the error."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class WorkersBusy(TimeoutError):
    """No worker came free before the caller's deadline."""

    def __init__(self, waited: float) -> None:
        super().__init__(f"all OCR workers stayed busy for {waited:.1f} s")
        self.waited = waited


class WorkerLost(RuntimeError):
    """The worker ended in the middle of a job (killed from outside, out of memory)."""

    def __init__(self, exitcode: int | None) -> None:
        super().__init__(f"the OCR worker ended during a job (exit code {exitcode})")
        self.exitcode = exitcode


class EngineFailed(RuntimeError):
    """Every way of calling the engine raised; `text` is the worker's traceback."""

    def __init__(self, error_type: str, text: str) -> None:
        super().__init__(f"the OCR engine raised {error_type}:\n{text}")
        self.error_type = error_type


class Stopped(Exception):
    """The caller cancelled its call; the worker doing it was stopped."""


class _Slot:
    def __init__(self, number: int) -> None:
        self.number = number
        self.process: Any = None
        self.conn: Any = None
        self.loaded = False
        self.busy = False


class OcrPool:
    def __init__(self, engine: EngineSpec, size: int | None = None) -> None:
        self.engine = engine
        self.size = max(1, min(size or DEFAULT_SIZE, os.cpu_count() or 1))
        self._slots = [_Slot(number) for number in range(self.size)]
        self._free = threading.Condition()
        _POOLS.add(self)

    def loaded(self) -> bool:
        """Whether some worker has its engine loaded (the next reading starts at once)."""
        return any(slot.loaded for slot in self._slots)

    def pids(self) -> list[int]:
        return [slot.process.pid for slot in self._slots if slot.process is not None]

    def read(
        self,
        pixels: Any,
        *,
        cancelled: Callable[[], bool] = lambda: False,
        deadline: float | None = None,
        note: Callable[[str], None] = lambda stage: None,
    ) -> Any:
        """The engine's findings for `pixels` (an RGB array). `note` hears "waiting" (every
        worker is busy), "loading" and "reading". `TimeoutError` past `deadline` (a
        `time.monotonic()` value) and `Stopped` once `cancelled()`; either stops the worker."""
        slot = self._acquire(cancelled, deadline, note)
        try:
            if not slot.loaded:
                note("loading")
                self._ask(slot, ("load",), cancelled, deadline)
            note("reading")
            return self._ask(slot, ("read", pixels), cancelled, deadline)
        finally:
            self._release(slot)

    def warm_up(self, deadline: float | None = None) -> None:
        """Start every idle worker and load its engine, all at once."""
        with self._free:
            taken = [slot for slot in self._slots if not slot.busy and not slot.loaded]
            for slot in taken:
                slot.busy = True
        if not taken and not self.loaded():
            taken = [self._acquire(lambda: False, deadline, lambda stage: None)]
        waiting: list[_Slot] = []
        try:
            for slot in taken:
                self._send(slot, ("load",))
                waiting.append(slot)
            while waiting:
                self._receive(waiting[0], lambda: False, deadline)
                waiting.pop(0)
        finally:
            for slot in waiting:
                self._stop(slot)  # its reply, left unread, would answer the next job
            for slot in taken:
                self._release(slot)

    def shutdown(self) -> None:
        """Stop every worker; the pool starts new ones if it is used again."""
        for slot in self._slots:
            if slot.conn is not None and not slot.busy:
                try:
                    slot.conn.send(None)
                    slot.process.wait(GRACE)
                except (OSError, AttributeError, subprocess.TimeoutExpired):
                    pass
            self._stop(slot)

    # -- one slot --------------------------------------------------------------------------

    def _acquire(
        self, cancelled: Callable[[], bool], deadline: float | None, note: Callable[[str], None]
    ) -> _Slot:
        began = time.monotonic()
        noted = False
        while True:
            with self._free:
                slot = self._pick()
                if slot is None and not cancelled():
                    left = SLICE if deadline is None else min(SLICE, deadline - time.monotonic())
                    if left > 0:
                        self._free.wait(left)
                        slot = self._pick()
                if slot is not None:
                    slot.busy = True
                    break
            if cancelled():
                raise Stopped()
            if deadline is not None and time.monotonic() >= deadline:
                raise WorkersBusy(time.monotonic() - began)
            if not noted:
                note("waiting")
                noted = True
        if slot.process is not None and slot.process.poll() is not None:
            self._stop(slot)  # ended while idle; a fresh one starts below
        return slot

    def _pick(self) -> _Slot | None:
        idle = [slot for slot in self._slots if not slot.busy]
        # A loaded worker first, then a running one, then an empty slot.
        idle.sort(key=lambda slot: (not slot.loaded, slot.process is None))
        return idle[0] if idle else None

    def _release(self, slot: _Slot) -> None:
        with self._free:
            slot.busy = False
            self._free.notify()

    def _ask(
        self, slot: _Slot, message: Any, cancelled: Callable[[], bool], deadline: float | None
    ) -> Any:
        self._send(slot, message)
        return self._receive(slot, cancelled, deadline)

    def _send(self, slot: _Slot, message: Any) -> None:
        messages = [message]
        if slot.process is None:
            self._start(slot)
            engine = self.engine
            messages.insert(0, ("init", sys.path, engine.factory, engine.settings, engine.calls))
        process = slot.process
        try:
            for each in messages:
                slot.conn.send(each)
        except (OSError, AttributeError) as error:
            code = _exitcode(process)
            self._stop(slot)
            raise WorkerLost(code) from error

    def _receive(self, slot: _Slot, cancelled: Callable[[], bool], deadline: float | None) -> Any:
        conn, process = slot.conn, slot.process
        try:
            reply = _wait(conn, cancelled, deadline)
        except (EOFError, OSError, AttributeError) as error:
            # The worker died, or `shutdown()` closed its pipe under us.
            code = _exitcode(process)
            self._stop(slot)
            raise WorkerLost(code) from error
        kind = reply[0]
        if kind in ("cancelled", "late"):
            self._stop(slot)
            if kind == "cancelled":
                raise Stopped()
            raise TimeoutError("the OCR worker did not answer in time")
        if kind == "unavailable":
            raise EngineUnavailable(reply[1], reply[2])
        if kind == "failed":
            raise EngineFailed(reply[1], reply[2])
        slot.loaded = True
        if kind == "done":
            for warning in reply[2]:
                log.warning("An OCR engine call failed; the next way worked:\n%s", warning)
            return reply[1]
        return None

    def _start(self, slot: _Slot) -> None:
        parent, child = multiprocessing.Pipe()
        path = os.pathsep.join(filter(None, [_ROOT, os.environ.get("PYTHONPATH")]))
        try:
            process = subprocess.Popen(
                [sys.executable, "-P", "-c", _WORKER_MAIN, str(child.fileno())],
                pass_fds=[child.fileno()],
                stdin=subprocess.DEVNULL,
                env={**os.environ, **_ONE_THREAD, "PYTHONPATH": path},
            )
        except OSError as error:
            parent.close()
            raise EngineUnavailable(f"the OCR process could not start: {error}") from error
        finally:
            child.close()
        log.info("OCR worker %d started (pid %d)", slot.number, process.pid)
        slot.process, slot.conn, slot.loaded = process, parent, False

    def _stop(self, slot: _Slot) -> None:
        with self._free:
            process, conn = slot.process, slot.conn
            slot.process = slot.conn = None
            slot.loaded = False
        if conn is not None:
            conn.close()
        if process is not None:
            _end(process)


def _wait(conn: Any, cancelled: Callable[[], bool], deadline: float | None) -> Any:
    """The worker's reply, or ("cancelled",) or ("late",) when the caller gives up first."""
    while not conn.poll(SLICE):
        if cancelled():
            return ("cancelled",)
        if deadline is not None and time.monotonic() >= deadline:
            return ("late",)
    return conn.recv()


def _end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(GRACE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _exitcode(process: subprocess.Popen[bytes] | None) -> int | None:
    if process is None:
        return None
    try:
        return process.wait(GRACE)
    except subprocess.TimeoutExpired:
        return None


@atexit.register
def shutdown_all() -> None:
    """Stop the workers of every pool (at exit, and after a test session)."""
    for pool in list(_POOLS):
        pool.shutdown()
