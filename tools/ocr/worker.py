"""The OCR engine's own process: one job at a time from a pipe, the engine's findings back.

Started by `tools.ocr.pool` as a fresh interpreter (`main()`), so it imports only this module
until a job needs the engine. It imports the engine then: on a machine where the engine cannot
load (a system library that OpenCV needs is missing, or the package) the worker stays up and
answers every job with why, in a few words. It ends when the parent says stop, when the pipe
closes, or within a second of the parent going away, even in the middle of a job.

Messages from the parent: first ``("init", sys_path, factory, settings, calls)``, then
``("load",)``, ``("read", pixels)`` (an RGB array), or ``None`` to stop. Replies:
``("ready",)``, ``("unavailable", reason, detail)``, ``("done", found, warnings)``,
``("failed", error_type, text)``. The engine, built as ``factory(**settings)``, is called with a
PIL image and one of `calls`, and returns its findings: ``(corners, text, confidence)`` each.
"""

from __future__ import annotations

import importlib
import os
import re
import signal
import sys
import threading
import time
import traceback
from typing import Any


def main() -> None:
    from multiprocessing.connection import Connection

    # Ctrl-C in a terminal reaches the whole process group; the parent decides when we stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(int(sys.argv[1]))
    _end_with(os.getppid())
    try:
        first = conn.recv()
    except (EOFError, OSError):
        return
    if first is None:
        return
    _, sys_path, factory, settings, calls = first
    sys.path.extend(path for path in sys_path if path not in sys.path)
    serve(conn, factory, settings, calls)


def _end_with(parent: int) -> None:
    """Exit once the parent is gone: a killed app must not leave a worker reading on."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def serve(conn: Any, factory: str, settings: dict[str, Any], calls: list[dict[str, Any]]) -> None:
    """Answer jobs until the parent says stop or goes away."""
    engine = None
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        if engine is None:
            try:
                engine = _load(factory, settings)
            except (ImportError, OSError) as error:
                detail = f"{type(error).__name__}: {error}"
                conn.send(("unavailable", missing_part(error), detail))
                continue
        if job[0] == "load":
            conn.send(("ready",))
        else:
            conn.send(_read(engine, job[1], calls))


def _load(factory: str, settings: dict[str, Any]) -> Any:
    module, _, name = factory.partition(":")
    engine = getattr(importlib.import_module(module), name)(**settings)
    # The engine's own threads are set to one; OpenCV's resizing would still fan out.
    cv2 = sys.modules.get("cv2")
    if cv2 is not None:
        cv2.setNumThreads(1)
    return engine


def _read(engine: Any, pixels: Any, calls: list[dict[str, Any]]) -> tuple[Any, ...]:
    """Try each way of calling the engine in turn; the first that works answers."""
    from PIL import Image

    # The same PIL image the engine was always handed, so that it converts it the same way.
    image = Image.fromarray(pixels)
    warnings = []
    for number, settings in enumerate(calls, start=1):
        try:
            found = engine(image, **settings)
        except Exception as error:
            if number == len(calls):
                return ("failed", type(error).__name__, traceback.format_exc())
            warnings.append(traceback.format_exc())
            continue
        return ("done", found, warnings)
    return ("failed", "ValueError", "no way to call the engine was given")


def missing_part(error: BaseException) -> str:
    """What failed to load, in a few words: a shared library, a module, or the error itself."""
    text = str(error)
    library = re.search(r"([\w.+-]+\.so(?:\.\d+)*)", text)
    if library:
        return f"{library.group(1)} missing"
    module = getattr(error, "name", None)
    if module:
        return f"the Python package {module} is missing or broken"
    return " ".join(text.split())[:120] or type(error).__name__
