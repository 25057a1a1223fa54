"""Read the text in an image (OCR, Chinese and English), line by line in reading order."""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageOps
from pydantic import Field, field_validator

from tools import words
from tools.base import (
    StrictArgs,
    Tool,
    ToolContext,
    ToolResult,
    image_id_from,
    language_of,
)
from tools.ocr.errors import OcrBusy, OcrUnavailable, OcrWorkerLost, engine_errors
from tools.ocr.pool import EngineSpec, OcrPool
from tools.ocr.words import Gaps, is_cjk, tidy

if TYPE_CHECKING:
    import numpy as np

__all__ = ["OcrBusy", "OcrUnavailable", "OcrWorkerLost", "ReadText", "reading_order", "recognise"]

# The engine drops anything below this itself; `min_confidence` filters above it.
ENGINE_MIN_SCORE = 0.2
# Thin strips are padded with their own background to at least 1:4 first: a detector that
# scales the short side up (the engine's default, not ours) would make one a huge image, a
# minute of work.
MIN_ASPECT = 1 / 4
# What reaches the model stays readable; the page gets every line in `data`.
MAX_TEXT_CHARS = 6000
# Lines read with less confidence than this are marked for the model as doubtful.
DOUBTFUL = 0.8

# The engine (tools.ocr.engine: rapidocr with the PP-OCRv6 models in its wheel) runs in worker
# processes (tools.ocr.pool), so that a reading which runs past its time can be stopped; each
# worker builds it once, with one thread, so two workers use two cores.
ENGINE = EngineSpec(
    factory="tools.ocr.engine:Engine",
    settings={"text_score": ENGINE_MIN_SCORE, "threads": 1},
    calls=[
        # Each character's box, for the word spaces the recogniser drops (tools.ocr.words).
        {"return_word_box": True, "return_single_char_box": True},
        # The character boxes are an extra; the lines as read are still worth having.
        {"return_word_box": False, "return_single_char_box": False},
    ],
)
POOL = OcrPool(ENGINE)


def engine_loaded() -> bool:
    return POOL.loaded()


class ReadTextArgs(StrictArgs):
    image_id: str = Field(description="Which image to read text from, e.g. img_1.")
    min_confidence: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description=(
            "Leave out text read with less confidence than this, from 0 to 1 (default 0.5; "
            "lower it to see doubtful readings too)."
        ),
    )

    @field_validator("min_confidence", mode="before")
    @classmethod
    def _percent(cls, value: Any) -> Any:
        # "80" or "80%" is a percentage in everyday speech.
        try:
            number = float(str(value).strip().rstrip("%"))
        except ValueError:
            return value
        return number / 100 if 1 < number <= 100 else number


def _engine_input(image: Image.Image) -> Image.Image:
    image = image.convert("RGB")
    long_side = max(image.size)
    if min(image.size) < long_side * MIN_ASPECT:
        width = max(image.width, round(long_side * MIN_ASPECT))
        height = max(image.height, round(long_side * MIN_ASPECT))
        corner = image.getpixel((0, 0))  # an RGB image's pixel is a tuple
        color = corner if isinstance(corner, tuple) else None
        image = ImageOps.pad(image, (width, height), color=color, centering=(0, 0))
    return image


def _join(left: str, right: str) -> str:
    # Chinese has no spaces between words; Latin script does.
    if left and right and is_cjk(left[-1]) and is_cjk(right[0]):
        return left + right
    return f"{left} {right}"


def reading_order(pieces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group pieces (each with `text`, `confidence`, `box` [x0, y0, x1, y1]) into lines.

    Pieces whose vertical middles fall inside a line's band join that line; lines run top to
    bottom and pieces within a line left to right.
    """
    lines: list[list[dict[str, Any]]] = []
    for piece in sorted(pieces, key=lambda p: (p["box"][1] + p["box"][3]) / 2):
        y0, y1 = piece["box"][1], piece["box"][3]
        middle, height = (y0 + y1) / 2, y1 - y0
        for line in lines:
            top = sum(p["box"][1] for p in line) / len(line)
            bottom = sum(p["box"][3] for p in line) / len(line)
            line_middle, line_height = (top + bottom) / 2, bottom - top
            if abs(middle - line_middle) <= 0.5 * min(height, line_height):
                line.append(piece)
                break
        else:
            lines.append([piece])
    result = []
    for line in lines:
        line.sort(key=lambda p: p["box"][0])
        text = line[0]["text"]
        for piece in line[1:]:
            text = _join(text, piece["text"])
        result.append(
            {
                "text": text,
                "confidence": round(min(p["confidence"] for p in line), 3),
                "box": [
                    min(p["box"][0] for p in line),
                    min(p["box"][1] for p in line),
                    max(p["box"][2] for p in line),
                    max(p["box"][3] for p in line),
                ],
                "pieces": line,
            }
        )
    result.sort(key=lambda line: (line["box"][1] + line["box"][3]) / 2)
    return result


def recognise(
    image: Image.Image,
    min_confidence: float = 0.5,
    ctx: ToolContext | None = None,
    timeout: float = 120.0,
) -> list[dict[str, Any]]:
    """The text lines of `image` in reading order, with confidence and box in its pixels.

    Runs in an OCR worker and stops it when `ctx` is cancelled or `timeout` seconds have
    passed (waiting for a free worker included): `TimeoutError`, or `Stopped` if cancelled."""
    import numpy as np  # here: the CLI and the tools' loading need no numpy until text is read

    prepared = _engine_input(image)
    # A little before the agent's own timeout, so that a wait for a busy worker says so.
    deadline = time.monotonic() + timeout - min(1.0, timeout / 10)
    said = words.words(language_of(ctx), "tools.read_text")
    with engine_errors(timeout):
        found = POOL.read(
            np.asarray(prepared),
            cancelled=(lambda: ctx.cancelled) if ctx is not None else (lambda: False),
            deadline=deadline,
            note=lambda stage: ctx.progress(said[stage]) if ctx else None,
        )
    gray = np.asarray(prepared.convert("L"))
    pieces = []
    for polygon, text, score, *chars in found or []:
        text = _words(gray, polygon, str(text), chars[0] if chars else []).strip()
        if not text or float(score) < min_confidence:
            continue
        xs = [round(float(x)) for x, _ in polygon]
        ys = [round(float(y)) for _, y in polygon]
        box = [
            max(0, min(xs)),
            max(0, min(ys)),
            min(image.width, max(xs)),
            min(image.height, max(ys)),
        ]
        pieces.append({"text": text, "confidence": round(float(score), 3), "box": box})
    return reading_order(pieces)


def _words(gray: np.ndarray, polygon: Any, text: str, chars: list[Any]) -> str:
    """`text` with the word spaces the recogniser dropped put back and digits inside words read
    as letters, from the line's crop and the engine's characters (each with its confidence and
    corners); `text` itself when either is missing or doubtful."""
    if not chars:
        return text
    xs = [float(x) for x, _ in polygon]
    ys = [float(y) for _, y in polygon]
    x0, y0, x1, y1 = max(0, round(min(xs))), max(0, round(min(ys))), round(max(xs)), round(max(ys))
    # A slanted line's crop would mix it with its neighbours; leave its text as read.
    if abs(ys[1] - ys[0]) > 0.25 * (y1 - y0) or x1 - x0 < 4 or y1 - y0 < 4:
        return text
    centres = [sum(float(x) for x, _ in corners) / len(corners) for _, _, corners in chars]
    # Characters placed right to left belong to a line that was turned over to be read.
    if any(right < left for left, right in itertools.pairwise(centres)):
        return text
    gaps = Gaps(gray[y0:y1, x0:x1], offset=x0)
    read = [(ch, float(c), x) for (ch, c, _), x in zip(chars, centres, strict=True)]
    return tidy(text, read, gaps)


class ReadText(Tool[ReadTextArgs]):
    name = "read_text"
    description = (
        "Read the text in an image (OCR; Chinese and English), line by line in reading order. "
        "Good for signs, documents, screenshots, labels. For tiny print, zoom first."
    )
    Args = ReadTextArgs
    uses_images = True
    # The first call loads the OCR models.
    timeout = 120.0

    def warm_up(self) -> None:
        with engine_errors(self.timeout):
            POOL.warm_up(deadline=time.monotonic() + self.timeout)

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        return image_id_from(text, image_ids, known)

    def run(self, args: ReadTextArgs, ctx: ToolContext) -> ToolResult:
        w = words.words(language_of(ctx), "tools.read_text")
        # A PDF's page holds its own text: exact and instant, where OCR of its picture is not.
        layer = str(ctx.image_meta(args.image_id).get("text_layer") or "")
        if layer.strip():
            lines = [{"text": line, "confidence": 1.0} for line in layer.splitlines() if line]
        else:
            image = ctx.open_image(args.image_id)
            found = recognise(image, args.min_confidence, ctx, self.timeout)
            lines = [line for line in found if not _stray_mark(line)]
        data = {"image_id": args.image_id, "lines": lines, "text_layer": bool(layer.strip())}
        if not lines:
            bar = args.min_confidence > ENGINE_MIN_SCORE
            threshold = w["threshold"].format(args.min_confidence) if bar else ""
            return ToolResult(text=w["none"].format(threshold=threshold), data=data)
        shown, length = [], 0
        for line in lines:
            entry = line["text"] + (" (?)" if line["confidence"] < DOUBTFUL else "")
            if length + len(entry) > MAX_TEXT_CHARS:
                shown.append(w["more"].format(len(lines) - len(shown)))
                break
            shown.append(entry)
            length += len(entry) + 1
        count = w["line" if len(lines) == 1 else "lines"].format(len(lines))
        doubtful = any(line["confidence"] < DOUBTFUL for line in lines)
        head = w["head"].format(count=count, note=w["doubtful"] if doubtful else "")
        return ToolResult(text=head + "\n" + "\n".join(shown), data=data)


def _stray_mark(line: dict[str, Any]) -> bool:
    """A line of one sign read with doubt, or of one sign that is no letter, digit or character
    (a circle read as "O (?)", a disc as "●"): a shape the engine took for text, not words."""
    text = line["text"].strip()
    return len(text) == 1 and (line["confidence"] < DOUBTFUL or not text.isalnum())
