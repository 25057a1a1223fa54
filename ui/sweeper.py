"""Nothing piles up: every conversation's files go once it has been idle for a set time.

Gradio closes a session's state only an hour after its browser tab closes, never for a client
of the plain REST API (no heartbeat), and not at all when its store of sessions is full and
drops the oldest. So the page keeps its own register of live conversations (`LIVE`), touched
by every handler, and a sweep, run every little while by the launched page (`sweep_while`):

1. closes each conversation idle for longer than its AGENT_SESSION_IDLE_MINUTES (never one
   with a turn running), removing its folders; used again, it starts over and says so;
2. removes folders under the session and trace roots that no live conversation owns, once
   they are as old as that: whatever made them, nothing stays for good;
3. forgets Gradio's own record of sessions idle that long, so memory does not pile up either;
4. deletes the page's files in Gradio's cache (uploads, served copies) that old, and the empty
   folders they leave, in place of Gradio's own `delete_cache`, whose task dies on a busy
   page; see `sweep_cache`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradio.utils import get_upload_folder

from .page.state import PageState, sessions_root, traces_root

log = logging.getLogger(__name__)

# The most conversations kept at once, as in Gradio's own store; beyond it the least recently
# used one is closed first.
CAPACITY = 10_000


def sweep_interval(idle_seconds: float) -> float:
    """How often to sweep: often enough that nothing outlives its idle time by much."""
    return min(60.0, max(0.5, idle_seconds / 4))


@dataclass
class Swept:
    closed: int = 0
    folders: int = 0
    gradio_sessions: int = 0
    files: int = 0


class Sessions:
    """The live conversations of this process, with when each was last used."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._states: dict[PageState, None] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._states)

    def __contains__(self, state: object) -> bool:
        return state in self._states

    def touch(self, state: PageState) -> None:
        with self._lock:
            state.last_used = time.monotonic()
            self._states.pop(state, None)
            self._states[state] = None  # the most recently used last
            if len(self._states) > self.capacity:
                over = len(self._states) - self.capacity
                for old in [s for s in self._states if not s.running][:over]:
                    self._close(old)

    def sweep(self, orphan_age: float, now: float | None = None) -> Swept:
        """Close idle conversations and remove orphan folders older than `orphan_age` s."""
        now = time.monotonic() if now is None else now
        swept = Swept()
        with self._lock:
            idle = [s for s in self._states if self._idle(s, now)]
        for state in idle:
            # One at a time, checked again: a handler waits for one folder's removal at most,
            # and a conversation used meanwhile stays.
            with self._lock:
                if state in self._states and self._idle(state, now):
                    self._close(state)
                    swept.closed += 1
        with self._lock:
            owned = {folder for state in self._states for folder in state.folders()}
        swept.folders = remove_orphans(owned, orphan_age)
        return swept

    @staticmethod
    def _idle(state: PageState, now: float) -> bool:
        return not state.running and now - state.last_used > state.env.session_idle_minutes * 60

    def _close(self, state: PageState) -> None:
        del self._states[state]
        state.expire()


def remove_orphans(owned: set[Path], age: float, roots: tuple[Path, ...] = ()) -> int:
    """Remove folders under the roots that nobody owns and nobody changed for `age` s."""
    removed = 0
    cutoff = time.time() - age
    for root in roots or (sessions_root(), traces_root()):
        for folder in root.iterdir():
            try:
                if folder in owned or folder.stat().st_mtime > cutoff:
                    continue
            except FileNotFoundError:
                continue
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def remove_empty_folders(root: Path, age: float) -> int:
    """Remove the empty folders Gradio's cache sweep leaves behind (one per file it held)."""
    removed = 0
    cutoff = time.time() - age
    with contextlib.suppress(FileNotFoundError):
        for folder in root.iterdir():
            try:
                if folder.is_dir() and folder.stat().st_mtime < cutoff:
                    folder.rmdir()  # only if empty
                    removed += 1
            except OSError:
                continue
    return removed


def sweep_cache(blocks: Any, age: float) -> int:
    """Delete the page's files in Gradio's cache that are older than `age` s (by ctime, which
    Gradio renews when it hands a file out again). Gradio's own `delete_cache` task does the
    same, but walks the live sets while requests add to them and ends for good at the first
    such clash, which a busy page meets within minutes."""
    keep: set[str] = set()
    for component in list(blocks.blocks.values()):
        keep.update(getattr(component, "keep_in_cache", ()))
    cutoff = time.time() - age
    removed = 0
    for files in list(blocks.temp_file_sets):
        for name in list(files):  # a copy, taken at once: requests add to the set meanwhile
            if name in keep:
                continue
            try:
                if os.lstat(name).st_ctime > cutoff:
                    continue
                os.remove(name)
                removed += 1
            except FileNotFoundError:
                pass
            except OSError:
                continue
            files.discard(name)
    return removed


def drop_cache(blocks: Any) -> int:
    """At shutdown: delete every file of the page's in Gradio's cache (uploads, served copies;
    not the examples, which the next run shares) and each folder that leaves empty. Gradio does
    this itself only when its server shuts down within five seconds, which a client that keeps
    a connection open prevents."""
    keep: set[str] = set()
    for component in list(blocks.blocks.values()):
        keep.update(getattr(component, "keep_in_cache", ()))
    removed = 0
    for files in list(blocks.temp_file_sets):
        for name in list(files):
            if name in keep:
                continue
            with contextlib.suppress(FileNotFoundError):
                os.remove(name)
                removed += 1
            with contextlib.suppress(OSError):
                os.rmdir(os.path.dirname(name))  # only if empty: Gradio keys folders by content
            files.discard(name)
    return removed


def forget_gradio_sessions(app: Any, state_component: Any, idle: float) -> int:
    """Drop Gradio's record of sessions unused for `idle` s whose conversation (if any) the
    register no longer holds; Gradio itself keeps them until 10,000 newer ones push them out."""
    holder = getattr(app, "state_holder", None)
    if holder is None:
        return 0
    cutoff = time.time() - idle
    dropped = 0
    with holder.lock:
        for session_id, used in list(holder.time_last_used.items()):
            if used.timestamp() > cutoff:
                continue
            session = holder.session_data.get(session_id)
            known = session is not None and state_component is not None
            value = session.state_data.get(state_component._id) if known else None
            if value is not None and value in LIVE:
                continue  # the register decides about it
            holder.session_data.pop(session_id, None)
            holder.time_last_used.pop(session_id, None)
            dropped += 1
    return dropped


LIVE = Sessions()


@contextlib.asynccontextmanager
async def sweep_while(app: Any, idle_seconds: float, state_component: Any) -> AsyncIterator[None]:
    """Sweep every little while for as long as the server runs (a FastAPI lifespan)."""

    async def loop() -> None:
        while True:
            await asyncio.sleep(sweep_interval(idle_seconds))
            try:
                swept = await asyncio.to_thread(LIVE.sweep, idle_seconds)
                swept.gradio_sessions = forget_gradio_sessions(app, state_component, idle_seconds)
                blocks = app.get_blocks()
                swept.files = await asyncio.to_thread(sweep_cache, blocks, idle_seconds)
                cache = Path(get_upload_folder())
                swept.folders += await asyncio.to_thread(remove_empty_folders, cache, idle_seconds)
            except Exception:  # a sweep that fails must not end the ones after it
                log.exception("The session sweep failed; the next one will try again.")
                continue
            if swept.closed or swept.folders or swept.gradio_sessions or swept.files:
                log.info(
                    "Swept %d idle conversation(s), %d Gradio session(s), %d cached file(s), "
                    "%d folder(s).",
                    swept.closed,
                    swept.gradio_sessions,
                    swept.files,
                    swept.folders,
                )

    task = asyncio.create_task(loop(), name="session-sweep")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
