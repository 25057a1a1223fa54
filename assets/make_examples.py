"""Draw the example images the page offers: `python assets/make_examples.py`.

The PNGs are committed under `assets/examples/`; this script is how they were made, so anyone can
change a picture and draw it again. Nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

OUT = Path(__file__).resolve().parent / "examples"
_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
)


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in _FONTS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


def centered(draw: ImageDraw.ImageDraw, y: int, text: str, size: int, fill: str, width: int):
    face = font(size)
    left, _, right, _ = draw.textbbox((0, 0), text, font=face)
    draw.text(((width - (right - left)) // 2, y), text, font=face, fill=fill)


def sign() -> Image.Image:
    """A shop sign with large, clear text: for reading text in an image."""
    width, height = 900, 520
    image = Image.new("RGB", (width, height), "#1f5f3f")
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((30, 30, width - 30, height - 30), radius=28, outline="#f4f1e8", width=8)
    centered(draw, 80, "CITY LIBRARY", 84, "#f4f1e8", width)
    centered(draw, 220, "OPEN 9:00 - 18:00", 64, "#ffd866", width)
    centered(draw, 330, "CLOSED ON SUNDAYS", 56, "#f4f1e8", width)
    return image


def label() -> Image.Image:
    """A product label whose small print in the bottom-right corner needs a zoom to read."""
    width, height = 1600, 1000
    image = Image.new("RGB", (width, height), "#fbfaf6")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 220), fill="#c0392b")
    centered(draw, 60, "MOUNTAIN TEA", 110, "white", width)
    centered(draw, 330, "Green tea with mint", 70, "#333333", width)
    centered(draw, 450, "100 g", 90, "#333333", width)
    for x in range(200, 1400, 100):
        draw.ellipse((x, 640, x + 60, 700), fill="#7fb069")
    small = font(15)
    lines = ("BEST BEFORE 2027-03-14", "LOT 4471-B", "STORE IN A DRY PLACE")
    for row, text in enumerate(lines):
        draw.text((1230, 880 + row * 22), text, font=small, fill="#555555")
    return image


def receipt() -> Image.Image:
    """A till receipt: text to read, and numbers a follow-up question can calculate with."""
    width, height = 700, 900
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    centered(draw, 40, "CORNER CAFE", 56, "black", width)
    rows = (("Coffee", "3.50"), ("Croissant", "2.80"), ("Orange juice", "4.20"))
    face = font(40)
    for row, (item, price) in enumerate(rows):
        y = 200 + row * 80
        draw.text((60, y), item, font=face, fill="black")
        draw.text((500, y), price, font=face, fill="black")
    draw.line((60, 470, 640, 470), fill="black", width=4)
    draw.text((60, 500), "TOTAL", font=font(48), fill="black")
    draw.text((480, 500), "10.50", font=font(48), fill="black")
    centered(draw, 700, "THANK YOU", 44, "black", width)
    return image


DRAWINGS = {"sign.png": sign, "label.png": label, "receipt.png": receipt}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, draw in DRAWINGS.items():
        draw().save(OUT / name, optimize=True)
        print(OUT / name)


if __name__ == "__main__":
    main()
