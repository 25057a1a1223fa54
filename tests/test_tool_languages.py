"""Each tool writes its result in the conversation's language: the same facts, in the words of
the person who asked. Numbers, units, ids and zone names may stay as they are."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from test_tool_image_info import photo_with_exif
from test_tool_scan_code import qr_image

import tools.read_text as read_text
from tests.conftest import png_bytes as png
from tools.base import ToolContext
from tools.calculator import Calculator
from tools.colors import Colors
from tools.convert_units import ConvertUnits
from tools.image_edit import ImageEdit
from tools.image_info import ImageInfo
from tools.scan_code import ScanCode
from tools.world_clock import WorldClock
from tools.zoom import Zoom

ROOT = Path(__file__).resolve().parent.parent
# Latin words of three letters or more; a Chinese result has none but names and units.
ENGLISH_WORD = re.compile(r"\b(?!img_)[A-Za-z]{3,}\b")


def run(tool, store, language, notes=None, **arguments):
    ctx = ToolContext(
        store, progress=notes.append if notes is not None else None, language=language
    )
    return tool.run(tool.Args.model_validate(arguments), ctx)


def english_words(text: str, *allowed: str) -> list[str]:
    return [w for w in ENGLISH_WORD.findall(text) if w not in allowed]


def test_the_context_names_its_language():
    assert ToolContext(None).language == "en"
    assert ToolContext(None, language="zh-CN").language == "zh"
    assert ToolContext(None, language="en-GB").language == "en"


def test_world_clock():
    tool = WorldClock(clock=lambda: datetime(2024, 7, 2, 3, 16, tzinfo=UTC))
    en = run(tool, None, "en", place="北京").text
    zh = run(tool, None, "zh", place="北京").text
    assert en == "In 北京 (Asia/Shanghai) it is 11:16 on Tuesday, 2024-07-02 (UTC+08:00, CST)."
    assert zh == "北京（Asia/Shanghai）现在是 11:16，星期二，2024-07-02（UTC+08:00，CST）。"
    assert (
        run(tool, None, "zh", place="UTC").text
        == "UTC 现在是 03:16，星期二，2024-07-02（UTC+00:00）。"
    )


@pytest.mark.parametrize(
    ("value", "source", "target", "en", "zh"),
    [
        (5, "英里", "公里", "5 mi = 8.04672 km", "5 英里 = 8.04672 公里"),
        (5, "miles", "km", "5 mi = 8.04672 km", "5 英里 = 8.04672 公里"),
        (100, "°F", "°C", "100 °F = 37.77778 °C", "100 华氏度 = 37.77778 摄氏度"),
        (2, "kg", "lb", "2 kg = 4.409245 lb", "2 公斤 = 4.409245 磅"),
        (1, "kWh", "J", "1 kWh = 3600000 J", "1 千瓦时 = 3600000 焦耳"),
    ],
)
def test_convert_units(value, source, target, en, zh):
    tool = ConvertUnits()
    arguments = {"value": value, "from_unit": source, "to_unit": target}
    assert run(tool, None, "en", **arguments).text == en
    assert run(tool, None, "zh", **arguments).text == zh


def test_calculator_writes_the_same_arithmetic_in_both():
    for language in ("en", "zh"):
        assert run(Calculator(), None, language, expression="12*(3+4)").text == "12*(3+4) = 84"


def flag() -> Image.Image:
    image = Image.new("RGB", (400, 200), (0, 40, 200))
    ImageDraw.Draw(image).rectangle((300, 0, 399, 199), fill=(255, 255, 255))
    return image


def test_colors(store):
    source = store.load(png(flag())).id
    en = run(Colors(), store, "en", image_id=source, count=2).text
    zh = run(Colors(), store, "zh", image_id=source, count=2).text
    assert en.startswith("Dominant colours:\n1. blue #") and "\n2. white #" in en
    assert zh.startswith("主要颜色：\n1. 蓝色 #") and "\n2. 白色 #" in zh
    clear = store.load(png(Image.new("RGBA", (8, 8), (0, 0, 0, 0)))).id
    assert run(Colors(), store, "zh", image_id=clear).text == "这张图片完全透明，没有可见的颜色。"


def test_image_info(store):
    photo = store.load(photo_with_exif()).id
    en = run(ImageInfo(), store, "en", image_id=photo).text
    zh = run(ImageInfo(), store, "zh", image_id=photo).text
    assert en.startswith("The image is 3000x2000 pixels, JPEG (RGB); you see it downscaled")
    assert "Camera: Canon EOS R5; lens: RF24-105mm" in en and "taken: 2024-05-01" in en
    assert zh.startswith(
        "这张图片为 3000x2000 像素，JPEG（RGB）；看到的是缩小到 1568x1045 的副本。"
    )
    for words in ("相机：Canon EOS R5", "镜头：RF24-105mm", "拍摄时间：2024-05-01 14:32:10",
                  "曝光：1/125 s，f/2.8，50 mm，ISO 200",
                  "GPS 位置：48.858233, -2.294483，海拔 35 米"):  # fmt: skip
        assert words in zh
    plain = store.load(png(Image.new("RGB", (64, 32), "red"))).id
    assert run(ImageInfo(), store, "zh", image_id=plain).text == (
        "这张图片为 64x32 像素，PNG（RGB）。其中没有相机元数据（EXIF：相机、拍摄时间、曝光、GPS）。"
    )


@pytest.fixture
def fake_ocr(ocr_engine):
    """An engine that reads two lines, the second doubtful, or nothing for a blank image."""
    ocr_engine("TwoLines")


def test_read_text(store, fake_ocr):
    image = Image.new("RGB", (100, 60), "white")
    ImageDraw.Draw(image).rectangle((5, 5, 90, 45), fill="black")
    source = store.load(png(image)).id
    notes: list[str] = []
    zh = run(read_text.ReadText(), store, "zh", notes, image_id=source).text
    assert notes == ["正在加载 OCR 引擎…", "正在识别文字…"]
    assert zh == "识别到的文字（2 行，从上到下；(?) 表示识别得没有把握）：\nOPEN 9:00\n营业中 (?)"
    en = run(read_text.ReadText(), store, "en", image_id=source).text
    head = "Text found (2 lines, top to bottom; (?) marks a doubtful reading):"
    assert en == f"{head}\nOPEN 9:00\n营业中 (?)"
    blank = store.load(png(Image.new("RGB", (100, 60), "white"))).id
    none = run(read_text.ReadText(), store, "zh", image_id=blank).text
    assert none.startswith("图片中没有找到文字（置信度不低于 0.5）。") and not english_words(none)


def test_scan_code(store):
    source = store.load(png(qr_image("https://example.com/menu"))).id
    en = run(ScanCode(), store, "en", image_id=source).text
    zh = run(ScanCode(), store, "zh", image_id=source).text
    assert re.fullmatch(
        r"Found 1 code:\n1\. QR Code at \(\d+,\d+\)-\(\d+,\d+\): https://example\.com/menu", en
    )
    assert re.fullmatch(
        r"找到 1 个码：\n1\. QR Code，位置 \(\d+,\d+\)-\(\d+,\d+\)：https://example\.com/menu", zh
    )
    blank = store.load(png(Image.new("RGB", (64, 64), "white"))).id
    none = run(ScanCode(), store, "zh", image_id=blank).text
    assert none.startswith("图片中没有找到二维码或条形码。") and not english_words(none)


def test_zoom(store):
    source = store.load(png(Image.new("RGB", (400, 200), "white"))).id
    en = run(Zoom(), store, "en", image_id=source, region="bottom-right").text
    zh = run(Zoom(), store, "zh", image_id=source, region="bottom-right").text
    assert en == (
        "Zoomed into the bottom-right region of img_1 (pixels 200,100 to 400,200), enlarged 2x: "
        "new image img_2, 400x200."
    )
    assert (
        zh == "已放大 img_1 的右下角（像素 200,100 到 400,200），放大 2 倍：新图片 img_3，400x200。"
    )
    boxed = run(Zoom(), store, "zh", image_id=source, box=[0, 0, 0.5, 0.5], factor=8).text
    assert boxed.startswith(
        "已放大 img_1 的方框 [0.0, 0.0, 0.5, 0.5] 内的区域（像素 0,0 到 200,100）"
    )
    assert "（受输出尺寸上限限制）" not in boxed and not english_words(boxed)


@pytest.mark.parametrize(
    ("arguments", "en", "zh"),
    [
        ({"operation": "rotate", "degrees": 90}, "rotated 90° clockwise", "已顺时针旋转 90°"),
        (
            {"operation": "rotate", "degrees": -45},
            "rotated 45° counter-clockwise",
            "已逆时针旋转 45°",
        ),
        ({"operation": "flip", "direction": "vertical"}, "flipped vertically", "已上下翻转"),
        ({"operation": "flip"}, "flipped horizontally (mirrored)", "已左右翻转（镜像）"),
        ({"operation": "grayscale"}, "converted to grayscale", "已转为灰度"),
        ({"operation": "autocontrast"}, "contrast stretched", "已拉伸对比度"),
        ({"operation": "sharpen"}, "sharpened", "已锐化"),
    ],
)
def test_image_edit(store, arguments, en, zh):
    source = store.load(png(Image.new("RGB", (40, 20), "white"))).id
    english = run(ImageEdit(), store, "en", image_id=source, **arguments).text
    chinese = run(ImageEdit(), store, "zh", image_id=source, **arguments).text
    assert english.startswith(f"img_1 {en}") and ": new image img_" in english
    assert chinese.startswith(f"img_1 {zh}") and "：新图片 img_" in chinese
    assert not english_words(chinese)


def cli(question: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}  # no key: the offline model answers
    done = subprocess.run(
        [sys.executable, "-m", "agent", question, "--quiet"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_cli_answers_chinese_questions_in_chinese():
    clock = cli("北京现在几点？")
    assert re.fullmatch(
        r"Answer: 北京（Asia/Shanghai）现在是 \d\d:\d\d，星期.，"
        r"\d{4}-\d\d-\d\d（UTC\+08:00，CST）。",
        clock,
    ), clock
    assert cli("把5英里换算成公里") == "Answer: 5 英里 = 8.04672 公里"
