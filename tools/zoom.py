"""Crop part of an image and enlarge it, so the model can read small print or see detail."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from PIL import Image
from pydantic import Field, field_validator

from tools import words
from tools.base import (
    StrictArgs,
    Tool,
    ToolContext,
    ToolInputError,
    ToolResult,
    image_id_from,
    language_of,
)
from tools.image_refs import without_references

MIN_FACTOR = 1.0
MAX_FACTOR = 8.0
# The store downscales anything larger anyway; capping here keeps the work bounded.
MAX_OUTPUT_SIDE = 2048

RegionName = Literal[
    "top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom",
    "bottom-right", "top-half", "bottom-half", "left-half", "right-half", "whole",
]  # fmt: skip

# Fractions of width and height: (x0, y0, x1, y1).
REGIONS: dict[str, tuple[float, float, float, float]] = {
    "top-left": (0.0, 0.0, 0.5, 0.5),
    "top": (0.25, 0.0, 0.75, 0.5),
    "top-right": (0.5, 0.0, 1.0, 0.5),
    "left": (0.0, 0.25, 0.5, 0.75),
    "center": (0.25, 0.25, 0.75, 0.75),
    "right": (0.5, 0.25, 1.0, 0.75),
    "bottom-left": (0.0, 0.5, 0.5, 1.0),
    "bottom": (0.25, 0.5, 0.75, 1.0),
    "bottom-right": (0.5, 0.5, 1.0, 1.0),
    "top-half": (0.0, 0.0, 1.0, 0.5),
    "bottom-half": (0.0, 0.5, 1.0, 1.0),
    "left-half": (0.0, 0.0, 0.5, 1.0),
    "right-half": (0.5, 0.0, 1.0, 1.0),
    "whole": (0.0, 0.0, 1.0, 1.0),
}

_REGION_ALIASES = {
    "centre": "center", "middle": "center", "full": "whole", "all": "whole", "entire": "whole",
    "upper-left": "top-left", "upper-right": "top-right", "lower-left": "bottom-left",
    "lower-right": "bottom-right", "upper-half": "top-half", "lower-half": "bottom-half",
    "left-top": "top-left", "right-top": "top-right", "left-bottom": "bottom-left",
    "right-bottom": "bottom-right", "upper": "top", "lower": "bottom",
}  # fmt: skip

# Checked in order: compound Chinese words before their single-character parts.
_WORDS: tuple[tuple[str, str], ...] = (
    (r"top[- ]?left|upper[- ]?left|左上", "top-left"),
    (r"top[- ]?right|upper[- ]?right|右上", "top-right"),
    (r"bottom[- ]?left|lower[- ]?left|左下", "bottom-left"),
    (r"bottom[- ]?right|lower[- ]?right|右下", "bottom-right"),
    (r"top half|upper half|上半", "top-half"),
    (r"bottom half|lower half|下半", "bottom-half"),
    (r"left half|左半", "left-half"),
    (r"right half|右半", "right-half"),
    (r"\b(?:cent(?:er|re)|middle)\b|中间|中心|中央|正中", "center"),
    (r"\btop\b|\bupper\b|顶部|上方|上面|上部", "top"),
    (r"\bbottom\b|\blower\b|底部|下方|下面|下部", "bottom"),
    (r"\bleft\b|左边|左侧|左面|左部", "left"),
    (r"\bright\b|右边|右侧|右面|右部", "right"),
)
_FACTOR = re.compile(
    # The lookbehind keeps a long run of digits from making the search quadratic.
    r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:x\b|×|倍|times\b)"
    r"|(?:\bx|×|\bby|\bfactor(?: of)?)\s*(\d+(?:\.\d+)?)",
    re.IGNORECASE,
)


class ZoomArgs(StrictArgs):
    image_id: str = Field(description="Which image to zoom into, e.g. img_1.")
    region: RegionName = Field(
        default="center",
        description=(
            "Named part of the image to crop: top-left, top, top-right, left, center, right, "
            "bottom-left, bottom, bottom-right, top-half, bottom-half, left-half, right-half or "
            "whole. Ignored when box is given."
        ),
    )
    box: list[float] | None = Field(
        default=None,
        min_length=4,
        max_length=4,
        description=(
            "Optional exact area [x0, y0, x1, y1] with x0 < x1 and y0 < y1. Numbers from 0 to 1 "
            "are fractions of the width and height ([0.5, 0, 1, 0.5] is the top-right quarter); "
            "if any number is above 1, all are pixels of the image."
        ),
    )
    factor: float = Field(
        default=2.0,
        ge=MIN_FACTOR,
        le=MAX_FACTOR,
        description=(
            f"How much to enlarge the crop, from {MIN_FACTOR:g} to {MAX_FACTOR:g}; the result's "
            f"longest side is at most {MAX_OUTPUT_SIDE} pixels."
        ),
    )

    @field_validator("region", mode="before")
    @classmethod
    def _region_name(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        name = re.sub(r"[\s_]+", "-", value.strip().lower())
        name = _REGION_ALIASES.get(name, name)
        if name not in REGIONS:
            raise ValueError(f"region must be one of {', '.join(REGIONS)}; got {value!r}")
        return name

    @field_validator("box", mode="before")
    @classmethod
    def _box_numbers(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = [p for p in re.split(r"[\s,;\[\]()]+", value) if p]
            try:
                return [float(p) for p in parts]
            except ValueError:
                raise ValueError(
                    "box must be four numbers [x0, y0, x1, y1], fractions 0..1 or pixels"
                ) from None
        return value

    @field_validator("factor", mode="before")
    @classmethod
    def _factor_range(cls, value: Any) -> Any:
        try:
            number = float(str(value).strip().rstrip("xX×"))
        except ValueError:
            return value
        if not MIN_FACTOR <= number <= MAX_FACTOR:
            raise ValueError(
                f"factor must be between {MIN_FACTOR:g} and {MAX_FACTOR:g}; got {value!r}. "
                f"To see finer detail, zoom into a smaller region or box instead"
            )
        return number


def crop_box(
    region: str, box: Sequence[float] | None, width: int, height: int
) -> tuple[int, int, int, int]:
    """The pixel rectangle to crop; a box the model got wrong raises `ToolInputError`."""
    if box is None:
        fx0, fy0, fx1, fy1 = REGIONS[region]
        x0, y0 = int(fx0 * width), int(fy0 * height)
        x1, y1 = max(x0 + 1, round(fx1 * width)), max(y0 + 1, round(fy1 * height))
        return x0, y0, min(x1, width), min(y1, height)
    if any(v < 0 for v in box):
        raise ToolInputError("box values cannot be negative; use fractions 0..1 or pixels.")
    pixels = any(v > 1 for v in box)
    if pixels:
        x0, y0, x1, y1 = (round(v) for v in box)
    else:
        x0, y0 = int(box[0] * width), int(box[1] * height)
        x1, y1 = round(box[2] * width), round(box[3] * height)
    if box[0] >= box[2] or box[1] >= box[3]:
        raise ToolInputError(
            f"box {list(box)} is empty: it needs x0 < x1 and y0 < y1 as [x0, y0, x1, y1]."
        )
    if pixels and (x0 >= width or y0 >= height or x1 > width or y1 > height):
        raise ToolInputError(
            f"box {list(box)} is read as pixels (a value is above 1) and falls outside the image, "
            f"which is {width}x{height} pixels. Give pixels within it, or fractions from 0 to 1."
        )
    x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)
    return x0, y0, min(x1, width), min(y1, height)


class Zoom(Tool[ZoomArgs]):
    name = "zoom"
    description = (
        "Crop part of an image and enlarge it, to read small print or see detail. Choose a named "
        "region or an exact box. Returns a new image that you see in the next step."
    )
    Args = ZoomArgs
    uses_images = True

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        found = image_id_from(text, image_ids, known)
        # "zoom into image 2 by 3": the 2 names the image, not the factor.
        lowered = without_references(text)
        for pattern, region in _WORDS:
            if re.search(pattern, lowered):
                found["region"] = region
                break
        match = _FACTOR.search(lowered)
        if match:
            factor = float(match.group(1) or match.group(2))
            found["factor"] = min(max(factor, MIN_FACTOR), MAX_FACTOR)
        return found

    def run(self, args: ZoomArgs, ctx: ToolContext) -> ToolResult:
        image = ctx.open_image(args.image_id)
        x0, y0, x1, y1 = crop_box(args.region, args.box, image.width, image.height)
        crop = image.crop((x0, y0, x1, y1))
        factor = min(args.factor, MAX_OUTPUT_SIDE / max(crop.size))
        factor = max(factor, 1.0)
        size = (max(1, round(crop.width * factor)), max(1, round(crop.height * factor)))
        if size != crop.size:
            crop = crop.resize(size, Image.Resampling.LANCZOS)
        out = ctx.add_image(crop, label=f"zoom of {args.image_id}: {_where(args, 'en')}")
        language = language_of(ctx)
        w = words.words(language, "tools.zoom")
        text = w["done"].format(
            where=_where(args, language),
            source=args.image_id,
            pixels=f"{x0},{y0}",
            to=f"{x1},{y1}",
            factor=f"{factor:.3g}",
            capped=w["capped"] if factor < args.factor - 1e-6 else "",
            new=out.id,
            size=f"{out.width}x{out.height}",
        )
        data = {
            "source": args.image_id,
            "crop": [x0, y0, x1, y1],
            "factor": round(factor, 4),
            "image": out.model_dump(),
        }
        return ToolResult(text=text, images=[out], data=data)


def _where(args: ZoomArgs, language: str) -> str:
    if args.box is not None:
        return words.say(language, "tools.zoom.box", box=args.box)
    return words.say(language, f"tools.zoom.regions.{args.region}")
