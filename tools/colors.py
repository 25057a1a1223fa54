"""The dominant colours of an image, each with a name, a hex value and its share of the image."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from PIL import Image
from pydantic import Field

from tools import words
from tools.base import StrictArgs, Tool, ToolContext, ToolResult, image_id_from, language_of
from tools.image_refs import without_references

if TYPE_CHECKING:
    import numpy as np

MAX_COUNT = 12
# Colour statistics do not need detail; a small copy keeps a huge photo as fast as an icon.
SAMPLE_SIDE = 160
# Quantised colours closer than this (CIELAB distance) are one colour to a person.
MERGE_DISTANCE = 6.0
# Shades that would get the same name (anti-aliased greys around text) are one entry up to here.
SAME_NAME_DISTANCE = 20.0

# (English name, Chinese name, hex): a few dozen names people actually use. A name may have
# more than one anchor where one point covers its range badly.
NAMED_COLOURS: tuple[tuple[str, str, str], ...] = (
    ("black", "黑色", "#000000"),
    ("dark gray", "深灰色", "#404040"),
    ("gray", "灰色", "#808080"),
    ("silver", "银色", "#C0C0C0"),
    ("white", "白色", "#FFFFFF"),
    ("red", "红色", "#E00000"),
    ("dark red", "深红色", "#8B0000"),
    ("crimson", "绯红色", "#DC143C"),
    ("pink", "粉色", "#FFC0CB"),
    ("hot pink", "亮粉色", "#FF69B4"),
    ("coral", "珊瑚色", "#FF7F50"),
    ("salmon", "鲑鱼色", "#FA8072"),
    ("orange", "橙色", "#FF8C00"),
    ("gold", "金色", "#FFD700"),
    ("yellow", "黄色", "#FFFF00"),
    ("cream", "奶油色", "#FFFDD0"),
    ("beige", "米色", "#F5F5DC"),
    ("khaki", "卡其色", "#C3B091"),
    ("tan", "棕褐色", "#D2B48C"),
    ("brown", "棕色", "#8B4513"),
    ("dark brown", "深棕色", "#4B2E1E"),
    ("olive", "橄榄色", "#808000"),
    ("lime", "亮绿色", "#32CD32"),
    ("green", "绿色", "#008000"),
    ("dark green", "深绿色", "#013220"),
    ("teal", "蓝绿色", "#008080"),
    ("turquoise", "绿松石色", "#40E0D0"),
    ("cyan", "青色", "#00FFFF"),
    ("sky blue", "天蓝色", "#87CEEB"),
    ("light blue", "浅蓝色", "#ADD8E6"),
    ("blue", "蓝色", "#0000FF"),
    # Pure sRGB blue is an extreme; most blues people see and name are lighter and softer.
    ("blue", "蓝色", "#1446C8"),
    ("steel blue", "钢蓝色", "#4682B4"),
    ("royal blue", "宝蓝色", "#4169E1"),
    ("navy", "海军蓝", "#000080"),
    ("purple", "紫色", "#800080"),
    ("violet", "紫罗兰色", "#EE82EE"),
    ("lavender", "薰衣草紫", "#E6E6FA"),
    ("magenta", "品红色", "#FF00FF"),
)

_CHINESE_NUMBERS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
                    "八": 8, "九": 9, "十": 10}  # fmt: skip


class ColorsArgs(StrictArgs):
    image_id: str = Field(description="Which image to look at, e.g. img_1.")
    count: int = Field(
        default=5,
        ge=1,
        le=MAX_COUNT,
        description=f"How many dominant colours to list, from 1 to {MAX_COUNT}.",
    )


def _lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB (0..255, shape (..., 3)) to CIELAB under D65: distances there match the eye."""
    import numpy as np

    c = rgb.astype(np.float64) / 255.0
    c = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])],
        axis=-1,
    )


def _hex_rgb(value: str) -> tuple[int, int, int]:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


@cache
def _named_lab() -> np.ndarray:
    import numpy as np

    return _lab(np.array([_hex_rgb(h) for _, _, h in NAMED_COLOURS]))


def nearest_name(rgb: Sequence[int]) -> tuple[str, str]:
    """English and Chinese name of the named colour nearest to `rgb`."""
    import numpy as np

    distances = np.linalg.norm(_named_lab() - _lab(np.array(rgb)), axis=1)
    english, chinese, _ = NAMED_COLOURS[int(distances.argmin())]
    return english, chinese


def _opaque_pixels(image: Image.Image) -> np.ndarray:
    """The sample's visible pixels as an (N, 3) array; see-through pixels have no colour."""
    import numpy as np

    sample = image.copy()
    sample.thumbnail((SAMPLE_SIDE, SAMPLE_SIDE), Image.Resampling.BOX)
    if sample.mode == "RGBA":
        pixels = np.asarray(sample)
        return pixels[pixels[..., 3] >= 128][:, :3]
    return np.asarray(sample.convert("RGB")).reshape(-1, 3)


def dominant_colours(image: Image.Image, count: int) -> list[dict[str, Any]]:
    """Up to `count` colours, most common first, each with names, hex and percent share."""
    import numpy as np

    pixels = _opaque_pixels(image)
    if len(pixels) == 0:
        return []
    strip = Image.fromarray(np.ascontiguousarray(pixels.reshape(1, -1, 3)), "RGB")
    # A few extra clusters keep a small accent from being swallowed by a big neighbour.
    quantised = strip.quantize(colors=min(256, count + 4), method=Image.Quantize.MEDIANCUT)
    palette = quantised.getpalette() or []
    counts = quantised.getcolors(maxcolors=256) or []
    clusters = sorted(
        # A palette image's colours are palette indexes.
        ((n, tuple(palette[3 * i : 3 * i + 3])) for n, i in counts if isinstance(i, int)),
        key=lambda c: -c[0],
    )
    merged: list[list[Any]] = []  # [pixel count, weighted rgb sum, lab of the first, name]
    for n, rgb in clusters:
        lab = _lab(np.array(rgb))
        name = nearest_name(rgb)[0]
        for group in merged:
            distance = np.linalg.norm(group[2] - lab)
            if distance < MERGE_DISTANCE or (group[3] == name and distance < SAME_NAME_DISTANCE):
                group[0] += n
                group[1] = group[1] + n * np.array(rgb, dtype=np.float64)
                break
        else:
            merged.append([n, n * np.array(rgb, dtype=np.float64), lab, name])
    merged.sort(key=lambda g: -g[0])
    total = float(len(pixels))
    colours = []
    for n, weighted, *_ in merged[:count]:
        rgb = tuple(round(float(v)) for v in weighted / n)
        english, chinese = nearest_name(rgb)
        colours.append(
            {
                "name": english,
                "name_zh": chinese,
                "hex": "#{:02X}{:02X}{:02X}".format(*rgb),
                "rgb": list(rgb),
                "percent": round(100 * n / total, 1),
            }
        )
    return colours


class Colors(Tool[ColorsArgs]):
    name = "colors"
    description = (
        "List the dominant colours of an image, most common first, each with a colour name, a "
        "hex value and its share of the image in percent."
    )
    Args = ColorsArgs
    uses_images = True

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        found = image_id_from(text, image_ids, known)
        words = without_references(text)
        amount = r"(?<!\d)(\d{1,3}|[一两二三四五六七八九十])"
        match = re.search(amount + r"\s*(?:种|个|main|dominant|top|colou?r)", words)
        match = match or re.search(r"(?:top|前)\s*" + amount, words)
        if match:
            raw = match.group(1)
            number = int(raw) if raw.isdigit() else _CHINESE_NUMBERS[raw]
            found["count"] = max(1, min(MAX_COUNT, number))
        return found

    def run(self, args: ColorsArgs, ctx: ToolContext) -> ToolResult:
        image = ctx.open_image(args.image_id)
        colours = dominant_colours(image, args.count)
        language = language_of(ctx)
        if not colours:
            text = words.say(language, "tools.colors.clear")
            return ToolResult(text=text, data={"image_id": args.image_id, "colors": []})
        # Each colour carries its name in both languages.
        name = "name_zh" if language == "zh" else "name"
        lines = [f"{i}. {c[name]} {c['hex']} {c['percent']:g}%" for i, c in enumerate(colours, 1)]
        text = words.say(language, "tools.colors.head") + "\n" + "\n".join(lines)
        return ToolResult(text=text, data={"image_id": args.image_id, "colors": colours})
