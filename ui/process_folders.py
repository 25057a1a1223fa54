"""The server's folders in the temp folder (sessions' images, trace files) go when it does.

Each process makes its own folders (`claim`), named `<prefix><random>`, and beside each a lock
file `<name>.lock` that it holds locked (`flock`) for as long as it lives. Then:

- a normal exit, Ctrl+C and SIGTERM all remove them: `running` turns SIGTERM into the same
  interruption as Ctrl+C, so Gradio closes its server (and its own upload cache) and the
  process ends normally; the folders are removed as soon as the server has closed, and again at
  exit, after the worker threads have finished (a turn still writing may have made a file);
- a process that ended without cleaning (killed, crashed, power lost) leaves its folders with a
  lock file nobody holds: the next start removes those (`sweep_stale`). A folder whose lock is
  held belongs to another server that is still running, and stays; so does a folder with no
  lock file (made by an older version: which one is running cannot be told), and a lock file
  younger than `GRACE` seconds (a server between making its folder and locking it).

The lock is the operating system's: it goes with the process however it ends, and a process id
used again by another program means nothing to it. Without `fcntl` (Windows) folders are still
removed on exit; only the sweep of stale ones is skipped.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import IO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

# The prefixes of the folders the page makes (`ui.page.state`): the ones a start may sweep.
PREFIXES = ("agent-sessions-", "agent-traces-")
LOCK_SUFFIX = ".lock"
# A lock file younger than this may belong to a server that has not locked it yet.
GRACE = 60.0

_claimed: list[tuple[Path, IO[str] | None]] = []
_lock = threading.Lock()


def claim(prefix: str) -> Path:
    """A new folder in the temp folder, this process's until it ends (then removed)."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    handle: IO[str] | None = None
    if fcntl is not None:
        handle = open(lock_path(root), "a")  # noqa: SIM115 - held open for the process's life
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with _lock:
        if not _claimed:
            atexit.register(_at_exit)
        _claimed.append((root, handle))
    return root


def remove_claimed() -> int:
    """Remove this process's folders (their lock files stay until exit); safe to repeat."""
    removed = 0
    with _lock:
        roots = [root for root, _ in _claimed]
    for root in roots:
        if root.exists():
            shutil.rmtree(root, ignore_errors=True)
            removed += 1
    return removed


def _at_exit() -> None:
    remove_claimed()
    with _lock:
        claimed, _claimed[:] = list(_claimed), []
    for root, handle in claimed:
        with contextlib.suppress(OSError):
            lock_path(root).unlink()
        if handle is not None:
            handle.close()


def sweep_stale(folder: Path | None = None, now: float | None = None) -> int:
    """Remove the folders (and lock files) that servers which have ended left in `folder`
    (the temp folder): those whose lock file nobody holds. How many folders went."""
    if fcntl is None:
        return 0
    folder = Path(folder or tempfile.gettempdir())
    now = time.time() if now is None else now
    removed = 0
    for prefix in PREFIXES:
        for lock_file in folder.glob(f"{prefix}*{LOCK_SUFFIX}"):
            root = lock_file.with_name(lock_file.name.removesuffix(LOCK_SUFFIX))
            try:
                if now - lock_file.stat().st_mtime < GRACE:
                    continue
                with open(lock_file, "a") as handle:
                    try:
                        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        continue  # its server is running
                    if root.is_dir() and not root.is_symlink():
                        shutil.rmtree(root, ignore_errors=True)
                        removed += 1
                    lock_file.unlink()
            except OSError:
                continue
    if removed:
        log.info("Removed %d folder(s) left in %s by servers that have ended.", removed, folder)
    return removed


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def running() -> Iterator[None]:
    """The server's run (`python app.py`): folders left by ended servers are swept first,
    SIGTERM ends it as Ctrl+C does, and its own folders are removed once it has stopped."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    sweep_stale()
    try:
        yield
    except KeyboardInterrupt:
        log.info("Stopping.")
    finally:
        remove_claimed()


def lock_path(root: Path) -> Path:
    """The lock file that marks `root` as a running server's."""
    return root.with_name(root.name + LOCK_SUFFIX)
