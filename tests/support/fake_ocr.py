"""Stand-ins for the OCR engine, built inside OCR worker processes by name
("tests.support.fake_ocr:Spinner"), and the simulation of a machine without libGL."""

from __future__ import annotations

import sys
import time
from typing import Any

LIBGL_ERROR = "libGL.so.1: cannot open shared object file: No such file or directory"
BOX = [[5, 5], [60, 5], [60, 20], [5, 20]]

made = 0  # engines built in this process


class NoLibGL:
    """An import hook that fails OpenCV's import the way a machine without libGL does."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "cv2" or name.startswith("cv2."):
            raise ImportError(LIBGL_ERROR, name=name)


def hide_libgl() -> None:
    if not any(isinstance(hook, NoLibGL) for hook in sys.meta_path):
        sys.meta_path.insert(0, NoLibGL())


def without_libgl(**settings: Any) -> Any:
    """The real engine, on a machine without libGL."""
    hide_libgl()
    from tools.ocr.engine import Engine

    return Engine(**settings)


def without_package(**settings: Any) -> Any:
    """The real engine, with its package missing."""
    sys.modules["rapidocr"] = None  # type: ignore[assignment]
    from tools.ocr.engine import Engine

    return Engine(**settings)


class Hi:
    """Reads "hi" in any image."""

    def __init__(self, **settings: Any) -> None:
        global made
        made += 1

    def __call__(self, image: Any, **settings: Any) -> Any:
        return [(BOX, "hi", 0.99)]


class SlowToLoad(Hi):
    """Takes a while to build, and reads how many engines its process has built."""

    def __init__(self, **settings: Any) -> None:
        time.sleep(0.2)
        super().__init__()

    def __call__(self, image: Any, **settings: Any) -> Any:
        return [(BOX, f"made {made}", 0.99)]


class Boxless(Hi):
    """Fails when asked for character boxes, as an engine may on a degenerate box."""

    def __call__(self, image: Any, return_word_box: bool = False, **settings: Any) -> Any:
        if return_word_box:
            raise ValueError("degenerate box")
        return [(BOX, "EXIT 42", 0.99)]


class Spinner(Hi):
    """Keeps a core busy for a minute before it reads anything: an image that takes too long."""

    def __call__(self, image: Any, **settings: Any) -> Any:
        until = time.monotonic() + 60
        while time.monotonic() < until:
            sum(range(10_000))
        return [(BOX, "late", 0.99)]


class Sleeper(Hi):
    """Takes a second per image without using the processor: a worker kept busy."""

    def __call__(self, image: Any, **settings: Any) -> Any:
        time.sleep(1.0)
        return [(BOX, "slept", 0.99)]


class TwoLines(Hi):
    """Reads two lines, the second doubtful, or nothing in an image of one colour."""

    def __call__(self, image: Any, **settings: Any) -> Any:
        low, high = image.convert("L").getextrema()
        if low == high:
            return []
        return [
            ([[5, 5], [90, 5], [90, 20], [5, 20]], "OPEN 9:00", 0.99),
            ([[5, 30], [90, 30], [90, 45], [5, 45]], "营业中", 0.6),
        ]
