"""Simple edits that help to see an image better: rotate, flip, grayscale, contrast, sharpen."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from PIL import Image, ImageFilter, ImageOps
from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from tools import words
from tools.base import StrictArgs, Tool, ToolContext, ToolResult, image_id_from, language_of
from tools.image_refs import without_references

Operation = Literal["rotate", "flip", "grayscale", "autocontrast", "sharpen"]

_OPERATION_ALIASES = {
    "rotation": "rotate", "turn": "rotate", "mirror": "flip", "gray": "grayscale",
    "grey": "grayscale", "greyscale": "grayscale", "black-and-white": "grayscale",
    "bw": "grayscale", "contrast": "autocontrast", "auto-contrast": "autocontrast",
    "enhance": "autocontrast", "sharpness": "sharpen",
}  # fmt: skip
_DIRECTION_ALIASES = {
    "h": "horizontal", "horizontally": "horizontal", "left-right": "horizontal",
    "mirror": "horizontal", "v": "vertical", "vertically": "vertical", "up-down": "vertical",
    "upside-down": "vertical", "top-bottom": "vertical",
}  # fmt: skip

_OPERATION_WORDS: tuple[tuple[str, str], ...] = (
    (r"\brotat|\bturn\b|upside down|旋转|转\s*\d+|倒过来|颠倒", "rotate"),
    (r"\bflip|\bmirror|翻转|镜像", "flip"),
    (r"gr[ae]y\s*-?scale|black[- ]and[- ]white|\bgr[ae]y\b|灰度|黑白", "grayscale"),
    (r"contrast|对比度", "autocontrast"),
    (r"sharpen|\bsharper\b|锐化", "sharpen"),
)
_ANTICLOCKWISE = re.compile(r"counter[- ]?clockwise|anti[- ]?clockwise|\bleft\b|逆时针|向左|左转")


class ImageEditArgs(StrictArgs):
    image_id: str = Field(description="Which image to edit, e.g. img_1.")
    operation: Operation = Field(
        description=(
            "One of: rotate (by degrees), flip (horizontal or vertical), grayscale, "
            "autocontrast (stretch dark and light), sharpen."
        )
    )
    degrees: float = Field(
        default=90.0,
        ge=-360,
        le=360,
        description=(
            "For rotate: the angle in degrees, from -360 to 360; positive turns clockwise, "
            "negative counter-clockwise."
        ),
    )
    direction: Literal["horizontal", "vertical"] = Field(
        default="horizontal",
        description="For flip: horizontal (mirror left-right) or vertical (upside down).",
    )

    @field_validator("operation", mode="before")
    @classmethod
    def _operation_name(cls, value: Any) -> Any:
        if isinstance(value, str):
            name = re.sub(r"[\s_]+", "-", value.strip().lower())
            return _OPERATION_ALIASES.get(name, name.replace("-", "") if name else name)
        return value

    @model_serializer(mode="wrap")
    def _what_applies(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The arguments as the call is shown and kept: a rotation's angle, a flip's
        direction, and neither for the other operations, whose defaults would read as if
        they were part of the call."""
        data = handler(self)
        if self.operation != "rotate":
            data.pop("degrees", None)
        if self.operation != "flip":
            data.pop("direction", None)
        return data

    @field_validator("direction", mode="before")
    @classmethod
    def _direction_name(cls, value: Any) -> Any:
        if isinstance(value, str):
            name = re.sub(r"[\s_]+", "-", value.strip().lower())
            return _DIRECTION_ALIASES.get(name, name)
        return value


def _per_channel(image: Image.Image, edit: Any) -> Image.Image:
    """Apply an RGB/L filter while leaving any transparency untouched."""
    if image.mode == "RGBA":
        alpha = image.getchannel("A")
        edited = edit(image.convert("RGB"))
        edited.putalpha(alpha)
        return edited
    if image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    return edit(image)


def apply(image: Image.Image, args: ImageEditArgs, language: str = "en") -> tuple[Image.Image, str]:
    """The edited image and a few words on what was done, in `language`."""
    w = words.words(language, "tools.image_edit")
    if args.operation == "rotate":
        angle = args.degrees % 360
        if angle == 0:
            return image.copy(), w["unchanged"]
        turn = w["clockwise" if args.degrees > 0 else "anticlockwise"]
        fill = (0, 0, 0, 0) if image.mode == "RGBA" else "white"
        exact: dict[float, Image.Transpose] = {
            90: Image.Transpose.ROTATE_270,
            180: Image.Transpose.ROTATE_180,
            270: Image.Transpose.ROTATE_90,
        }
        if angle in exact:
            rotated = image.transpose(exact[angle])
        else:
            # Pillow turns counter-clockwise for positive angles.
            rotated = image.rotate(
                -angle, expand=True, resample=Image.Resampling.BICUBIC, fillcolor=fill
            )
        return rotated, w["rotated"].format(degrees=f"{abs(args.degrees):g}", turn=turn)
    if args.operation == "flip":
        if args.direction == "vertical":
            return ImageOps.flip(image), w["vertical"]
        return ImageOps.mirror(image), w["horizontal"]
    if args.operation == "grayscale":
        return ImageOps.grayscale(image), w["grayscale"]
    if args.operation == "autocontrast":
        return _per_channel(image, lambda im: ImageOps.autocontrast(im, cutoff=1)), w["contrast"]
    sharpen = ImageFilter.UnsharpMask(radius=2, percent=160, threshold=2)
    return _per_channel(image, lambda im: im.filter(sharpen)), w["sharpened"]


class ImageEdit(Tool[ImageEditArgs]):
    name = "image_edit"
    description = (
        "Edit an image to see it better: rotate by degrees, flip horizontally or vertically, "
        "convert to grayscale, stretch the contrast (autocontrast) or sharpen. Returns a new "
        "image that you see in the next step."
    )
    Args = ImageEditArgs
    uses_images = True

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        found = image_id_from(text, image_ids, known)
        # "rotate the 2nd image": the 2 names the image, not the angle.
        lowered = without_references(text)
        for pattern, operation in _OPERATION_WORDS:
            if re.search(pattern, lowered):
                found["operation"] = operation
                break
        if found.get("operation") == "rotate":
            match = re.search(r"(-?\d+(?:\.\d+)?)\s*(?:°|deg|度)?", lowered)
            if re.search(r"upside down|倒过来|颠倒", lowered) and not match:
                degrees = 180.0
            else:
                degrees = float(match.group(1)) if match else 90.0
            if _ANTICLOCKWISE.search(lowered):
                degrees = -abs(degrees)
            found["degrees"] = max(-360.0, min(360.0, degrees))
        if found.get("operation") == "flip":
            vertical = re.search(r"vertical|upside|top[- ]to[- ]bottom|上下|垂直|竖直", lowered)
            found["direction"] = "vertical" if vertical else "horizontal"
        return found

    def run(self, args: ImageEditArgs, ctx: ToolContext) -> ToolResult:
        image = ctx.open_image(args.image_id)
        language = language_of(ctx)
        edited, done = apply(image, args, language)
        out = ctx.add_image(edited, label=f"{args.operation} of {args.image_id}")
        size = f"{out.width}x{out.height}"
        text = words.say(
            language,
            "tools.image_edit.done",
            source=args.image_id,
            done=done,
            new=out.id,
            size=size,
        )
        data = {"source": args.image_id, "operation": args.operation, "image": out.model_dump()}
        if args.operation == "rotate":
            data["degrees"] = args.degrees
        elif args.operation == "flip":
            data["direction"] = args.direction
        return ToolResult(text=text, images=[out], data=data)
