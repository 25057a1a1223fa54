"""Find and decode QR codes and barcodes in an image."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image
from pydantic import Field

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

# A code's content is whatever its maker put there; keep what reaches the model bounded.
MAX_TEXT_CHARS = 1000
# Codes in a small image are often too few pixels per module for the decoder; a second look
# at twice the size finds many of them.
UPSCALE_BELOW = 800


class ScanCodeArgs(StrictArgs):
    image_id: str = Field(description="Which image to scan for QR codes and barcodes, e.g. img_1.")


def _read(image: Image.Image) -> list[Any]:
    # A compiled library: loaded only when a code is looked for, and a machine where it cannot
    # load still lists and runs every other tool.
    try:
        import zxingcpp
    except (ImportError, OSError) as error:
        raise ToolInputError(
            "Code scanning is unavailable on this server: the barcode decoder could not load "
            f"({type(error).__name__}); look at the image directly instead.",
            tool_name="scan_code",
        ) from error
    return list(zxingcpp.read_barcodes(image))


def scan(image: Image.Image) -> list[dict[str, Any]]:
    """Every code found, top to bottom, with its type, text and position in `image` pixels."""
    image = image.convert("L")
    scale = 1
    results = _read(image)
    if not results and max(image.size) < UPSCALE_BELOW:
        scale = 2
        results = _read(image.resize((image.width * 2, image.height * 2), Image.Resampling.NEAREST))
    codes = []
    for result in results:
        p = result.position
        points = [
            [round(pt.x / scale), round(pt.y / scale)]
            for pt in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)
        ]
        xs, ys = [pt[0] for pt in points], [pt[1] for pt in points]
        codes.append(
            {
                "type": str(result.format),
                "text": result.text,
                "box": [min(xs), min(ys), max(xs), max(ys)],
                "polygon": points,
                "content_type": getattr(result.content_type, "name", str(result.content_type)),
                "orientation": result.orientation,
            }
        )
    codes.sort(key=lambda c: (c["box"][1], c["box"][0]))
    return codes


class ScanCode(Tool[ScanCodeArgs]):
    name = "scan_code"
    description = (
        "Find and decode QR codes and barcodes (EAN, UPC, Code 128, Data Matrix, PDF417, Aztec "
        "and more) in an image; gives each code's type, its text and where it is."
    )
    Args = ScanCodeArgs
    uses_images = True

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        return image_id_from(text, image_ids, known)

    def run(self, args: ScanCodeArgs, ctx: ToolContext) -> ToolResult:
        image = ctx.open_image(args.image_id)
        codes = scan(image)
        data = {"image_id": args.image_id, "codes": codes}
        w = words.words(language_of(ctx), "tools.scan_code")
        if not codes:
            return ToolResult(text=w["none"], data=data)
        lines = []
        for i, code in enumerate(codes, 1):
            content = code["text"]
            if len(content) > MAX_TEXT_CHARS:
                content = content[:MAX_TEXT_CHARS] + w["cut"].format(len(code["text"]))
            x0, y0, x1, y1 = code["box"]
            lines.append(w["line"].format(i, code["type"], f"({x0},{y0})-({x1},{y1})", content))
        head = w["one" if len(codes) == 1 else "many"].format(len(codes))
        return ToolResult(text=head + "\n" + "\n".join(lines), data=data)
