"""One OCR worker process as its parent sees it: start it, send it a job, wait for the reply
in short slices, stop it.

A worker is a fresh interpreter running `tools.ocr.worker`, never a fork: the app has threads,
and a forked copy can deadlock on a lock another thread held. It talks over a `multiprocessing`
pipe, but it is not a `multiprocessing.Process`: the "spawn" and "forkserver" starts re-run the
parent's main script in every worker (for `python app.py`, Gradio and the whole app: 6 s and
150 MB each time a worker starts, and a script without a `__main__` guard fails outright).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)

# The folder that holds this `tools` package: first on the worker's import path (and `-P`
# keeps the current folder, which may hold some other `tools`, off it).
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder that holds `tools`
_WORKER_MAIN = "from tools.ocr.worker import main; main()"
# One core per worker: the engine's thread count is a setting, these are the libraries'.
_ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# How often a waiting caller looks at its cancellation flag and its deadline.
SLICE = 0.05
# How long a worker has to end after SIGTERM before SIGKILL.
GRACE = 0.5


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


class WorkerLost(RuntimeError):
    """The worker ended in the middle of a job (killed from outside, out of memory)."""

    def __init__(self, exitcode: int | None) -> None:
        super().__init__(f"the OCR worker ended during a job (exit code {exitcode})")
        self.exitcode = exitcode


class WorkerProcess:
    """A started worker. `loaded` once it has said its engine is ready."""

    def __init__(self, engine: EngineSpec, name: str) -> None:
        parent, child = multiprocessing.Pipe()
        path = os.pathsep.join(filter(None, [_ROOT, os.environ.get("PYTHONPATH")]))
        try:
            self._process = subprocess.Popen(
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
        self._conn = parent
        self._first: Any = ("init", sys.path, engine.factory, engine.settings, engine.calls)
        self._stopping = threading.Lock()
        self._stopped = False
        self.loaded = False
        log.info("%s started (pid %d)", name, self.pid)

    @property
    def pid(self) -> int:
        return self._process.pid

    def ended(self) -> bool:
        return self._process.poll() is not None

    def send(self, message: Any) -> None:
        try:
            if self._first is not None:
                self._conn.send(self._first)
                self._first = None
            self._conn.send(message)
        except OSError as error:
            raise WorkerLost(self._exitcode()) from error

    def reply(self, cancelled: Callable[[], bool], deadline: float | None) -> Any:
        """The worker's reply, or ("cancelled",) or ("late",) when the caller gives up first
        (the worker is left running: stopping it is the caller's choice)."""
        try:
            while not self._conn.poll(SLICE):
                if cancelled():
                    return ("cancelled",)
                if deadline is not None and time.monotonic() >= deadline:
                    return ("late",)
            return self._conn.recv()
        except (EOFError, OSError) as error:
            # The worker died, or `stop()` closed the pipe under us.
            raise WorkerLost(self._exitcode()) from error

    def stop(self) -> None:
        """Ask nothing: SIGTERM, and SIGKILL if it is still there after the grace."""
        with self._stopping:
            if self._stopped:
                return
            self._stopped = True
        self._conn.close()
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(GRACE)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def close(self) -> None:
        """Ask the worker to end, and stop it if it does not within the grace."""
        try:
            self._conn.send(None)
            self._process.wait(GRACE)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.stop()

    def _exitcode(self) -> int | None:
        try:
            return self._process.wait(GRACE)
        except subprocess.TimeoutExpired:
            return None
