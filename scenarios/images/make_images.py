"""Draw the scenario images that assets/examples lacks: `python scenarios/images/make_images.py`.

The PNGs are committed; this script is how they were made (it needs segno, a test requirement).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import segno
import zxingcpp
from PIL import Image

OUT = Path(__file__).resolve().parent


def qr(text: str, scale: int = 8) -> Image.Image:
    buffer = io.BytesIO()
    segno.make_qr(text, error="m").save(buffer, kind="png", scale=scale, border=4)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def ean13() -> Image.Image:
    barcode = zxingcpp.create_barcode("400638133393", zxingcpp.BarcodeFormat.EAN13)
    return Image.fromarray(np.asarray(barcode.to_image(scale=3))).convert("RGB")


def codes() -> Image.Image:
    """A QR code above a product barcode, as on a shop shelf tag."""
    canvas = Image.new("RGB", (700, 620), "white")
    canvas.paste(qr("https://example.com/menu", scale=7), (40, 30))
    canvas.paste(ean13(), (300, 420))
    return canvas


def main() -> None:
    qr("https://example.com/menu").save(OUT / "qr.png")
    codes().save(OUT / "codes.png")


if __name__ == "__main__":
    main()
