"""Why a text reading could not run, as the sentences the model reads: the engine is missing
on this machine, every worker is busy, or the worker died mid-image."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from tools.base import ToolInputError
from tools.ocr.pool import EngineUnavailable, WorkerLost, WorkersBusy

log = logging.getLogger(__name__)


class OcrUnavailable(ToolInputError):
    """The OCR engine cannot load on this machine (a system library or the package is missing);
    every other tool still works."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"Text reading is unavailable on this server: the OCR engine could not load "
            f"({reason}); look at the image directly or ask the person to type the text.",
            tool_name="read_text",
        )
        self.reason = reason


class OcrBusy(ToolInputError):
    """Every OCR worker stayed busy with other calls for as long as this call may take, or so
    many calls were waiting already that this one was turned away at once."""

    def __init__(self, seconds: float, queued: int = 0) -> None:
        if queued:
            why = f"{queued} more readings are already waiting for them"
        else:
            why = f"none came free within {seconds:g} seconds"
        super().__init__(
            f"All OCR workers are busy reading other images and {why}; try again in a moment "
            "or look at the image directly.",
            tool_name="read_text",
        )
        self.seconds = seconds
        self.queued = queued


class OcrWorkerLost(ToolInputError):
    """The worker process ended in the middle of this image (out of memory, killed)."""

    def __init__(self, exitcode: int | None) -> None:
        super().__init__(
            "The OCR process ended while reading this image; try a smaller image, or zoom "
            "into the part with the text and read that.",
            tool_name="read_text",
        )
        self.exitcode = exitcode


@contextmanager
def engine_errors(timeout: float) -> Iterator[None]:
    """The pool's plain failures as the sentences the model reads."""
    try:
        yield
    except EngineUnavailable as error:
        log.warning(
            "OCR engine unavailable (%s); install the Python requirements (requirements.txt)",
            error.detail or error.reason,
        )
        raise OcrUnavailable(error.reason) from error
    except WorkersBusy as error:
        raise OcrBusy(timeout, error.queued) from error
    except WorkerLost as error:
        log.warning("OCR worker lost: %s", error)
        raise OcrWorkerLost(error.exitcode) from error
