import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from pydantic import ValidationError

from agent.models.offline.tool_hints import hints_for
from tests.conftest import png_bytes as png
from tools.base import ToolContext, ToolInputError
from tools.read_text import ReadText, reading_order
from tools.zoom import Zoom

pytestmark = pytest.mark.real_ocr

TOOL = ReadText()
EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


def cjk_font() -> str | None:
    if not shutil.which("fc-list"):
        return None
    listed = subprocess.run(
        ["fc-list", ":lang=zh", "file"], capture_output=True, text=True, check=False
    ).stdout
    files = [line.split(":")[0].strip() for line in listed.splitlines() if line.strip()]
    return files[0] if files else None


@pytest.fixture(scope="module")
def engine():
    """The OCR workers, loaded once for the whole module: loading takes seconds."""
    ReadText().warm_up()


def run(store, notes=None, **arguments):
    ctx = ToolContext(store, progress=(notes.append if notes is not None else None))
    return TOOL.run(ReadText.Args.model_validate(arguments), ctx)


def sign() -> Image.Image:
    image = Image.new("RGB", (760, 260), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=48)
    draw.text((420, 30), "RIGHT", fill="black", font=font)  # drawn first, read second
    draw.text((30, 30), "HELLO 2026", fill="black", font=font)
    draw.text((30, 160), "second line", fill="black", font=font)
    return image


def test_reads_lines_in_reading_order(store, engine):
    source = store.load(png(sign())).id
    notes: list[str] = []
    result = run(store, notes, image_id=source)
    lines = result.data["lines"]
    assert [line["text"] for line in lines] == ["HELLO 2026 RIGHT", "second line"]
    first = lines[0]
    assert first["confidence"] > 0.8 and len(first["pieces"]) == 2
    x0, y0, x1, y1 = first["box"]
    assert x0 < 60 and 20 < y0 < y1 < 100 and x1 > 500
    assert "HELLO 2026 RIGHT\nsecond line" in result.text
    assert notes[-1] == "reading text…"


def test_progress_mentions_loading_only_the_first_time(store, ocr_engine):
    ocr_engine("Hi")
    source = store.load(png(sign())).id
    notes: list[str] = []
    assert run(store, notes, image_id=source).data["lines"][0]["text"] == "hi"
    assert notes == ["loading OCR engine…", "reading text…"]
    notes.clear()
    run(store, notes, image_id=source)
    assert notes == ["reading text…"]


def test_reads_chinese(store, engine):
    font_file = cjk_font()
    if font_file is None:
        pytest.skip("no font with Chinese glyphs on this machine (fc-list :lang=zh is empty)")
    image = Image.new("RGB", (700, 160), "white")
    font = ImageFont.truetype(font_file, 56)
    ImageDraw.Draw(image).text((30, 40), "你好世界 2026", fill="black", font=font)
    result = run(store, image_id=store.load(png(image)).id)
    assert "你好世界" in result.data["lines"][0]["text"]


def test_text_on_a_long_strip_is_read(store, engine):
    strip = Image.new("RGB", (1400, 70), "white")
    ImageDraw.Draw(strip).text((10, 5), "RECEIPT TOTAL 42.50", fill="black",
                               font=ImageFont.load_default(size=48))  # fmt: skip
    lines = run(store, image_id=store.load(png(strip)).id).data["lines"]
    assert [line["text"] for line in lines] == ["RECEIPT TOTAL 42.50"]


def test_min_confidence_filters(store, engine):
    source = store.load(png(sign())).id
    assert run(store, image_id=source, min_confidence=1.0).data["lines"] == []


def test_blank_tiny_and_strip_images_have_no_text(store, engine):
    started = time.perf_counter()
    for image in (
        Image.new("RGB", (300, 200), "white"),
        Image.new("RGB", (1, 1), "black"),
        Image.new("RGBA", (8, 1500), (0, 0, 0, 0)),
    ):
        result = run(store, image_id=store.load(png(image)).id)
        assert result.data["lines"] == []
        assert result.text.startswith("No text was found")
    # A thin strip once made the detector work on a 736x100000 image for over a minute.
    assert time.perf_counter() - started < 30


def test_reading_order_groups_boxes_on_one_line():
    pieces = [
        {"text": "世界", "confidence": 0.9, "box": [120, 12, 200, 48]},
        {"text": "below", "confidence": 0.7, "box": [10, 80, 90, 110]},
        {"text": "你好", "confidence": 0.95, "box": [10, 10, 100, 50]},
        {"text": "2026", "confidence": 0.99, "box": [220, 8, 300, 46]},
    ]
    lines = reading_order(pieces)
    assert [line["text"] for line in lines] == ["你好世界 2026", "below"]
    assert lines[0]["box"] == [10, 8, 300, 50] and lines[0]["confidence"] == 0.9


def test_engine_loads_once_per_worker_under_concurrent_first_use(store, ocr_engine):
    pool = ocr_engine("SlowToLoad", size=2)
    source = store.load(png(sign())).id
    got = []
    threads = [
        threading.Thread(target=lambda: got.append(run(store, image_id=source))) for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each worker process built its engine once, however many calls it took.
    assert [result.data["lines"][0]["text"] for result in got] == ["made 1"] * 6
    assert len(pool.pids()) == pool.size


def test_arguments():
    assert ReadText.Args.model_validate({"image_id": "img_1"}).min_confidence == 0.5
    assert (
        ReadText.Args.model_validate({"image_id": "img_1", "min_confidence": "80%"}).min_confidence
        == 0.8
    )
    for bad in (150, -0.1, "high"):
        with pytest.raises(ValidationError) as caught:
            ReadText.Args.model_validate({"image_id": "img_1", "min_confidence": bad})
        assert "min_confidence" in str(caught.value)
    assert ReadText.timeout >= 60  # the first call loads the models


def test_unknown_or_path_like_ids_are_refused(store, tmp_path):
    store.load(png(sign()))
    for hostile in ("img_3", "../img_1", str(tmp_path), "~/.ssh/id_rsa"):
        with pytest.raises(ToolInputError) as caught:
            run(store, image_id=hostile)
        assert "Known image ids: img_1" in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "read the text in this picture",
        "What does the sign say?",
        "OCR this please",
        "图片上写了什么",
        "识别一下图中的文字",
        "帮我把这段文本提取出来",
    ],
)
def test_extract_and_triggers(text):
    assert TOOL.extract(text, ["img_1", "img_2"], {}) == {"image_id": "img_2"}
    assert any(re.search(p, text, re.IGNORECASE) for p in hints_for(ReadText).triggers)


def test_small_print_zoomed_in_reads_as_words(store, engine):
    label = store.load(EXAMPLES / "label.png").id
    zoomed = Zoom().run(
        Zoom.Args.model_validate({"image_id": label, "region": "bottom-right"}), ToolContext(store)
    )
    lines = run(store, image_id=zoomed.images[0].id).data["lines"]
    texts = [line["text"] for line in lines]
    assert "BEST BEFORE 2027-03-14" in texts and "STORE IN A DRY PLACE" in texts, texts
    assert "LOT 4471-B" in texts, texts


def drawn(text: str, font_file: str | None, size: int, enlarged: int = 1) -> Image.Image:
    font = ImageFont.truetype(font_file, size) if font_file else ImageFont.load_default(size=size)
    width = round(font.getlength(text))
    image = Image.new("RGB", (width + 4 * size, 5 * size), "white")
    ImageDraw.Draw(image).text((2 * size, 2 * size), text, fill="#333333", font=font)
    return image.resize((image.width * enlarged, image.height * enlarged), Image.Resampling.LANCZOS)


DEJAVU_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
DEJAVU_SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


@pytest.mark.parametrize(
    ("text", "font_file", "size", "enlarged"),
    [
        ("BEST BEFORE 2027-03-14", None, 14, 3),
        ("STORE IN A DRY PLACE", None, 36, 1),
        ("EXIT 42 NORTH", DEJAVU_BOLD, 14, 3),
        ("EXIT 42 NORTH", DEJAVU_SERIF, 14, 3),
        ("RECEIPT TOTAL 42.50", DEJAVU_BOLD, 36, 1),
    ],
)
def test_enlarged_text_keeps_its_word_spaces(store, engine, text, font_file, size, enlarged):
    if font_file and not Path(font_file).is_file():
        pytest.skip(f"{font_file} is not installed")
    image = drawn(text, font_file, size, enlarged)
    lines = run(store, image_id=store.load(png(image)).id).data["lines"]
    assert [line["text"] for line in lines] == [text]


@pytest.mark.parametrize(("size", "enlarged"), [(16, 3), (48, 1)])
def test_chinese_is_not_split_into_spaced_characters(store, engine, size, enlarged):
    font_file = cjk_font()
    if font_file is None:
        pytest.skip("no font with Chinese glyphs on this machine (fc-list :lang=zh is empty)")
    image = drawn("欢迎光临 营业时间", font_file, size, enlarged)
    lines = run(store, image_id=store.load(png(image)).id).data["lines"]
    text = " ".join(line["text"] for line in lines)
    assert "欢迎光临" in text and "营业时间" in text, text


def test_lines_are_still_read_when_character_boxes_fail(store, ocr_engine):
    ocr_engine("Boxless")
    source = store.load(png(sign())).id
    assert run(store, image_id=source).data["lines"][0]["text"] == "EXIT 42"
