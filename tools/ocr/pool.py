"""A few long-lived OCR worker processes, so that a reading which runs too long can be stopped.

A thread cannot be stopped from outside, and the engine's C code keeps a core busy for as long
as an image takes, whoever is still waiting for it. A process can be: the calling thread waits
for the answer in short slices, and when its call is cancelled or its deadline passes it stops
the worker (SIGTERM, then SIGKILL after a short grace); the slot starts a fresh worker the next
time one is needed.

- At most `size` workers (default 2, never more than the machine's cores), each loading its
  engine once; the engine's own threads are set to one by the caller, so N workers use N cores.
- Started lazily; `warm_up()` starts them all and loads their engines.
- Waiting for a free worker counts against the caller's deadline (`WorkersBusy` says so).
  At most `queue` calls wait (default three per worker): each holds one of the agent's tool
  threads while it waits, and the other tools need those too.
- One reader (`READER`, the client the page or an MCP call sets it to) holds at most
  `per_reader` workers (default one) and has at most `waiting_per_reader` calls waiting, so a
  burst from one client leaves a worker, and places in line, for everyone else.
- Every pool is shut down at exit; a worker whose parent dies ends by itself
  (`tools.ocr.worker`).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from tools.ocr.process import SLICE, EngineSpec, EngineUnavailable, WorkerLost, WorkerProcess

__all__ = [
    "READER",
    "EngineFailed",
    "EngineSpec",
    "EngineUnavailable",
    "OcrPool",
    "Stopped",
    "WorkerLost",
    "WorkersBusy",
    "shutdown_all",
]

log = logging.getLogger(__name__)

DEFAULT_SIZE = 2
# Who a reading is for (a client's address); None is nobody in particular (warm-up, the
# command line). The agent's tool threads see the value of the turn that called the tool.
READER: ContextVar[str | None] = ContextVar("ocr_reader", default=None)

_POOLS: weakref.WeakSet[OcrPool] = weakref.WeakSet()


class WorkersBusy(TimeoutError):
    """No worker came free before the caller's deadline (`waited` seconds), or `queued` other
    calls were already waiting and this one was not let in."""

    def __init__(self, waited: float, queued: int = 0) -> None:
        super().__init__(f"all OCR workers stayed busy for {waited:.1f} s, {queued} calls queued")
        self.waited = waited
        self.queued = queued


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
        self.worker: WorkerProcess | None = None
        self.busy = False
        self.reader: str | None = None


class OcrPool:
    def __init__(
        self,
        engine: EngineSpec,
        size: int | None = None,
        queue: int | None = None,
        per_reader: int = 1,
        waiting_per_reader: int = 2,
    ) -> None:
        self.engine = engine
        self.size = max(1, min(size or DEFAULT_SIZE, os.cpu_count() or 1))
        self.queue = 3 * self.size if queue is None else queue
        self.per_reader = max(1, per_reader)
        self.waiting_per_reader = max(0, waiting_per_reader)
        self._slots = [_Slot(number) for number in range(self.size)]
        self._free = threading.Condition()
        self._waiting = 0
        # Workers held and calls waiting, per reader (None, nobody in particular, is not held
        # to a share).
        self._held: Counter[str] = Counter()
        self._queued: Counter[str] = Counter()
        _POOLS.add(self)

    def loaded(self) -> bool:
        """Whether some worker has its engine loaded (the next reading starts at once)."""
        return any(slot.worker is not None and slot.worker.loaded for slot in self._slots)

    def pids(self) -> list[int]:
        return [slot.worker.pid for slot in self._slots if slot.worker is not None]

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
            if slot.worker is None or not slot.worker.loaded:
                note("loading")
                self._send(slot, ("load",))
                self._receive(slot, cancelled, deadline)
            note("reading")
            self._send(slot, ("read", pixels))
            return self._receive(slot, cancelled, deadline)
        finally:
            self._release(slot)

    def warm_up(self, deadline: float | None = None) -> None:
        """Start every idle worker and load its engine, all at once."""
        with self._free:
            taken = [s for s in self._slots if not s.busy and not (s.worker and s.worker.loaded)]
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
                self._drop(slot)  # its reply, left unread, would answer the next job
            for slot in taken:
                self._release(slot)

    def shutdown(self) -> None:
        """Stop every worker; the pool starts new ones if it is used again."""
        for slot in self._slots:
            with self._free:
                worker, slot.worker = slot.worker, None
            if worker is not None and slot.busy:
                worker.stop()  # in the middle of a job: its caller hears `WorkerLost`
            elif worker is not None:
                worker.close()

    # -- one slot --------------------------------------------------------------------------

    def _acquire(
        self, cancelled: Callable[[], bool], deadline: float | None, note: Callable[[str], None]
    ) -> _Slot:
        reader = READER.get()
        with self._free:
            slot = self._take(reader)
            if slot is None:
                mine = self._queued[reader] if reader is not None else 0
                if self._waiting >= self.queue or mine >= self.waiting_per_reader:
                    raise WorkersBusy(0.0, self._waiting)
                self._waiting += 1
                if reader is not None:
                    self._queued[reader] += 1
        if slot is None:
            try:
                slot = self._wait_for_slot(reader, cancelled, deadline, note)
            finally:
                with self._free:
                    self._waiting -= 1
                    if reader is not None:
                        self._queued[reader] -= 1
                        if self._queued[reader] <= 0:
                            del self._queued[reader]
        if slot.worker is not None and slot.worker.ended():
            self._drop(slot)  # ended while idle; a fresh one starts on the next send
        return slot

    def _wait_for_slot(
        self,
        reader: str | None,
        cancelled: Callable[[], bool],
        deadline: float | None,
        note: Callable[[str], None],
    ) -> _Slot:
        began = time.monotonic()
        note("waiting")
        while True:
            with self._free:
                slot = self._take(reader)
                if slot is not None:
                    return slot
                left = SLICE if deadline is None else min(SLICE, deadline - time.monotonic())
                if left > 0 and not cancelled():
                    self._free.wait(left)
            if cancelled():
                raise Stopped()
            if deadline is not None and time.monotonic() >= deadline:
                raise WorkersBusy(time.monotonic() - began)

    def _take(self, reader: str | None = None) -> _Slot | None:
        if reader is not None and self._held[reader] >= self.per_reader:
            return None  # its share is in use: the other workers stay for other readers
        slot = self._pick()
        if slot is not None:
            slot.busy = True
            slot.reader = reader
            if reader is not None:
                self._held[reader] += 1
        return slot

    def _pick(self) -> _Slot | None:
        idle = [slot for slot in self._slots if not slot.busy]
        # A loaded worker first, then a running one, then an empty slot.
        idle.sort(key=lambda s: (not (s.worker and s.worker.loaded), s.worker is None))
        return idle[0] if idle else None

    def _release(self, slot: _Slot) -> None:
        with self._free:
            slot.busy = False
            reader, slot.reader = slot.reader, None
            if reader is not None:
                self._held[reader] -= 1
                if self._held[reader] <= 0:
                    del self._held[reader]
            # Every waiter looks: the first one woken may be a reader whose share is in use.
            self._free.notify_all()

    def _send(self, slot: _Slot, message: Any) -> None:
        if slot.worker is None:
            slot.worker = WorkerProcess(self.engine, f"OCR worker {slot.number}")
        try:
            slot.worker.send(message)
        except WorkerLost:
            self._drop(slot)
            raise

    def _receive(self, slot: _Slot, cancelled: Callable[[], bool], deadline: float | None) -> Any:
        worker = slot.worker
        if worker is None:  # `shutdown()` took it
            raise WorkerLost(None)
        try:
            reply = worker.reply(cancelled, deadline)
        except WorkerLost:
            self._drop(slot)
            raise
        kind = reply[0]
        if kind in ("cancelled", "late"):
            self._drop(slot)
            if kind == "cancelled":
                raise Stopped()
            raise TimeoutError("the OCR worker did not answer in time")
        if kind == "unavailable":
            raise EngineUnavailable(reply[1], reply[2])
        if kind == "failed":
            raise EngineFailed(reply[1], reply[2])
        worker.loaded = True
        if kind == "done":
            for warning in reply[2]:
                log.warning("An OCR engine call failed; the next way worked:\n%s", warning)
            return reply[1]
        return None

    def _drop(self, slot: _Slot) -> None:
        with self._free:
            worker, slot.worker = slot.worker, None
        if worker is not None:
            worker.stop()


@atexit.register
def shutdown_all() -> None:
    """Stop the workers of every pool (at exit, and after a test session)."""
    for pool in list(_POOLS):
        pool.shutdown()
