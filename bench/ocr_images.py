"""The OCR bench's images, drawn here with PIL, each with the text a person reads in it.

Eight kinds: signs, receipts, boarding passes, small print (as printed, and enlarged as the zoom
tool hands it on), a full page, Chinese notices and rotated text. Each image but the zoomed
ones comes in two forms: rendered (crisp, as a screenshot) and photographed (the page a little
off square and tilted, lit unevenly, slightly out of focus, with sensor noise, saved as a JPEG).
The degradation is seeded, so every run reads the same pixels.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

_FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")
SANS = "DejaVuSans.ttf"
SANS_BOLD = "DejaVuSans-Bold.ttf"
SERIF = "DejaVuSerif.ttf"
MONO = "DejaVuSansMono.ttf"
LIBERATION = "LiberationSans-Regular.ttf"
# fonts-wqy-microhei, which .ci/run installs for the OCR tests.
CJK = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    form: str  # "rendered" or "photographed"
    lines: tuple[str, ...]  # what a person reads, top to bottom
    image: Image.Image

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    if Path(name).is_absolute():
        return ImageFont.truetype(name, size)
    for folder in _FONT_DIRS:
        path = Path(folder) / name
        if path.is_file():
            return ImageFont.truetype(str(path), size)
    raise FileNotFoundError(f"the font {name} is not installed (fonts-dejavu, fonts-liberation)")


# One row of a drawing: pieces of text at x positions (None: centred), in one font and size.
Row = tuple[list[tuple[int | None, str]], str, int]


def draw_rows(
    size: tuple[int, int],
    rows: list[tuple[int, Row]],
    ground: str = "white",
    ink: str = "#111111",
) -> Image.Image:
    image = Image.new("RGB", size, ground)
    draw = ImageDraw.Draw(image)
    for y, (pieces, face_name, points) in rows:
        face = font(face_name, points)
        for x, text in pieces:
            if x is None:
                x = round((size[0] - face.getlength(text)) / 2)
            elif x < 0:  # right-aligned, ending |x| pixels from the right edge
                x = round(size[0] + x - face.getlength(text))
            draw.text((x, y), text, font=face, fill=ink)
    return image


def row_text(row: Row) -> str:
    return " ".join(text for _, text in row[0])


def _drawn(
    name: str,
    kind: str,
    size: tuple[int, int],
    rows: list[tuple[int, Row]],
    ground: str = "white",
    ink: str = "#111111",
) -> tuple[str, str, tuple[str, ...], Image.Image]:
    lines = tuple(row_text(row) for _, row in rows)
    return name, kind, lines, draw_rows(size, rows, ground, ink)


def signs() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    return [
        _drawn(
            "gate sign",
            "sign",
            (900, 160),
            [(50, ([(None, "Gate B17 closes 09:40")], SANS, 56))],
            ground="#1c2b4a",
            ink="#ffd23f",
        ),
        _drawn(
            "library sign",
            "sign",
            (900, 420),
            [
                (50, ([(None, "CITY LIBRARY")], SANS_BOLD, 80)),
                (180, ([(None, "OPEN 9:00 - 18:00")], SANS_BOLD, 60)),
                (290, ([(None, "CLOSED ON SUNDAYS")], SANS, 52)),
            ],
            ground="#1f5f3f",
            ink="#f4f1e8",
        ),
        _drawn(
            "exit sign",
            "sign",
            (760, 300),
            [
                (40, ([(None, "EXIT 42 NORTH")], LIBERATION, 64)),
                (160, ([(None, "Keep right for the station")], SERIF, 44)),
            ],
        ),
    ]


def receipts() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    items = [("Coffee", "3.50"), ("Croissant", "2.80"), ("Orange juice", "4.20")]
    rows: list[tuple[int, Row]] = [
        (30, ([(None, "CORNER CAFE")], MONO, 40)),
        (90, ([(None, "2026-11-30 14:05 Table 7")], MONO, 26)),
    ]
    y = 150
    for item, price in items:
        rows.append((y, ([(50, item), (-50, price)], MONO, 30)))
        y += 50
    rows.append((y + 10, ([(50, "TOTAL"), (-50, "10.50")], MONO, 34)))
    rows.append((y + 80, ([(None, "THANK YOU")], MONO, 30)))
    cafe = _drawn("cafe receipt", "receipt", (560, y + 140), rows, ground="#fbfaf4")
    shop = _drawn(
        "shop receipt",
        "receipt",
        (620, 380),
        [
            (30, ([(None, "GREEN MARKET")], SANS_BOLD, 40)),
            (100, ([(40, "Apples 1.2 kg"), (-40, "3.60")], SANS, 28)),
            (150, ([(40, "Milk 2 x 1.15"), (-40, "2.30")], SANS, 28)),
            (200, ([(40, "Bread"), (-40, "2.10")], SANS, 28)),
            (260, ([(40, "Card ****4471"), (-40, "8.00")], SANS, 28)),
            (320, ([(None, "Receipt No. 000318")], SANS, 24)),
        ],
        ground="#fdfdf8",
    )
    return [cafe, shop]


def boarding_passes() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    return [
        _drawn(
            "boarding pass",
            "boarding pass",
            (1000, 460),
            [
                (30, ([(40, "BOARDING PASS")], SANS_BOLD, 56)),
                (130, ([(40, "Passenger LIN/MEI")], SANS, 40)),
                (200, ([(40, "Flight CA1234"), (560, "Seat 23A")], SANS, 40)),
                (270, ([(40, "From PEK to SFO"), (560, "Zone 3")], SANS, 40)),
                (350, ([(40, "Gate B17 closes 09:40")], SANS_BOLD, 48)),
            ],
            ground="#eef4fb",
        ),
        _drawn(
            "boarding pass stub",
            "boarding pass",
            (640, 300),
            [
                (30, ([(30, "NAME OKAFOR/CHIDI MR")], MONO, 30)),
                (90, ([(30, "FLT LH0721"), (360, "DATE 14MAR")], MONO, 30)),
                (150, ([(30, "SEAT 07C"), (360, "SEQ 112")], MONO, 30)),
                (220, ([(30, "FRA - HKG")], MONO, 40)),
            ],
        ),
    ]


def small_print() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    return [
        _drawn(
            "food label",
            "small print",
            (820, 150),
            [
                (20, ([(20, "Small print: BEST BEFORE 2027-03-14 keep refrigerated")], SANS, 22)),
                (
                    60,
                    ([(20, "Ingredients: water, sugar, lemon juice (4%), citric acid")], SANS, 20),
                ),
                (100, ([(20, "LOT 4471-B Made in Portugal")], SANS, 20)),
            ],
        ),
        _drawn(
            "terms",
            "small print",
            (760, 130),
            [
                (20, ([(20, "Tickets are valid for one journey only.")], SERIF, 18)),
                (55, ([(20, "Refunds within 14 days at any ticket office.")], SERIF, 18)),
                (90, ([(20, "Customer service: 0800 123 456")], SERIF, 18)),
            ],
            ground="#fffdf5",
        ),
    ]


def chinese_notices() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    return [
        _drawn(
            "opening hours",
            "Chinese notice",
            (720, 320),
            [
                (30, ([(None, "营业时间")], CJK, 64)),
                (130, ([(None, "周一至周五 9:00-18:00")], CJK, 44)),
                (210, ([(None, "周末及节假日休息")], CJK, 44)),
            ],
            ground="#b22222",
            ink="#fff6d5",
        ),
        _drawn(
            "safety notice",
            "Chinese notice",
            (760, 340),
            [
                (30, ([(None, "温馨提示")], CJK, 60)),
                (120, ([(None, "地面湿滑，小心慢行")], CJK, 44)),
                (190, ([(None, "请勿在此吸烟，违者罚款200元")], CJK, 36)),
                (260, ([(None, "出口在左侧 EXIT")], CJK, 36)),
            ],
            ground="#fff8dc",
        ),
    ]


def rotated() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    _, _, lines, upright = _drawn(
        "notice",
        "rotated",
        (800, 300),
        [
            (40, ([(None, "PLATFORM 4")], SANS_BOLD, 64)),
            (150, ([(None, "Trains to the airport")], SANS, 44)),
        ],
    )
    return [
        ("upside down", "rotated", lines, upright.rotate(180, expand=True)),
        ("tilted 8 degrees", "rotated", lines, upright.rotate(8, expand=True, fillcolor="white")),
        ("on its side", "rotated", lines, upright.rotate(90, expand=True)),
    ]


ITEMS = "lamp chair kettle teapot mirror clock rug shelf vase stool desk bench basket frame candle"


def pages() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    """A full page at the largest size the app prepares images to (1568 pixels a side)."""
    lines = tuple(
        f"{n}. The {item} costs {n * 3 + 0.5:.2f} and ships within {n % 5 + 2} days"
        for n, item in enumerate(ITEMS.split(), start=1)
    )
    rows: list[tuple[int, Row]] = [(60, ([(80, "ORDER SUMMARY")], SANS_BOLD, 44))]
    rows += [(160 + 86 * i, ([(80, line)], SERIF, 30)) for i, line in enumerate(lines)]
    return [_drawn("order summary", "full page", (1176, 1568), rows, ground="#fdfcf7")]


def zoomed() -> list[tuple[str, str, tuple[str, ...], Image.Image]]:
    """Small print as the zoom tool hands it on: drawn small, enlarged three times, soft."""
    made = []
    for name, face, points in (("zoomed label", None, 14), ("zoomed label, mono", MONO, 14)):
        lines = ("BEST BEFORE 2027-03-14", "LOT 4471-B", "STORE IN A DRY PLACE")
        small = font(face, points) if face else ImageFont.load_default(size=points)
        width = round(max(small.getlength(line) for line in lines)) + 4 * points
        image = Image.new("RGB", (width, (len(lines) + 3) * 2 * points), "#fbfaf6")
        draw = ImageDraw.Draw(image)
        for row, line in enumerate(lines):
            draw.text((2 * points, (2 + 2 * row) * points), line, font=small, fill="#555555")
        enlarged = image.resize((3 * image.width, 3 * image.height), Image.Resampling.LANCZOS)
        made.append((name, "zoomed small print", lines, enlarged))
    return made


KINDS: tuple[Callable[[], list[tuple[str, str, tuple[str, ...], Image.Image]]], ...] = (
    signs,
    receipts,
    boarding_passes,
    small_print,
    zoomed,
    pages,
    chinese_notices,
    rotated,
)


def photographed(image: Image.Image, seed: int) -> Image.Image:
    """`image` as a phone would take it: on a darker table, a little off square and tilted,
    lit from one side, slightly out of focus, with sensor noise, saved as a JPEG."""
    rng = random.Random(seed)
    width, height = image.size
    margin = round(0.08 * max(width, height))
    table = Image.new("RGB", (width + 2 * margin, height + 2 * margin), "#6b6259")
    table.paste(image, (margin, margin))
    # The page's corners moved by up to 3 % of its size: a slight perspective.
    wobble = 0.03 * min(width, height)
    corners = [(0, 0), (width, 0), (width, height), (0, height)]
    jitter = [(rng.uniform(-wobble, wobble), rng.uniform(-wobble, wobble)) for _ in corners]
    moved = [(x + dx, y + dy) for (x, y), (dx, dy) in zip(corners, jitter, strict=True)]
    on_table = [(x + margin, y + margin) for x, y in corners]
    shot = table.transform(
        table.size,
        Image.Transform.PERSPECTIVE,
        _perspective([(x + margin, y + margin) for x, y in moved], on_table),
        Image.Resampling.BICUBIC,
        fillcolor="#6b6259",
    )
    shot = shot.rotate(rng.uniform(-3, 3), Image.Resampling.BICUBIC, fillcolor="#6b6259")
    pixels = np.asarray(shot, dtype=np.float32)
    across = np.linspace(rng.uniform(0.7, 0.85), 1.05, pixels.shape[1], dtype=np.float32)
    pixels *= across[None, :, None]
    shot = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    shot = shot.filter(ImageFilter.GaussianBlur(rng.uniform(0.8, 1.3)))
    noise = np.random.default_rng(seed).normal(0, 9, (shot.height, shot.width, 1))
    shot = Image.fromarray(np.clip(np.asarray(shot, np.float32) + noise, 0, 255).astype(np.uint8))
    buffer = io.BytesIO()
    shot.save(buffer, "JPEG", quality=45)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def _perspective(to: list[tuple[float, float]], source: list[tuple[float, float]]) -> list[float]:
    """PIL's eight coefficients that take each point of `to` (output) to `source` (input)."""
    rows, values = [], []
    for (x, y), (u, v) in zip(to, source, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        values.extend([u, v])
    return np.linalg.solve(np.array(rows, float), np.array(values, float)).tolist()


def cases(quick: bool = False) -> list[Case]:
    """Every image of the bench, rendered then photographed; `quick`: the first of each kind,
    rendered only."""
    made = []
    for number, kind in enumerate(KINDS):
        drawn = kind()[:1] if quick else kind()
        for index, (name, kind_name, lines, image) in enumerate(drawn):
            made.append(Case(name, kind_name, "rendered", lines, image))
            if not quick and kind is not zoomed:  # a zoomed crop is never photographed
                shot = photographed(image, seed=100 * number + index)
                made.append(Case(name, kind_name, "photographed", lines, shot))
    return made
