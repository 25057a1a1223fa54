import io
import sys

import numpy as np
import pytest
import segno
import zxingcpp
from PIL import Image
from pydantic import ValidationError

from tests.conftest import png_bytes as png
from tools.base import ToolContext, ToolInputError
from tools.scan_code import ScanCode

TOOL = ScanCode()


def qr_image(text: str, scale: int = 8) -> Image.Image:
    buffer = io.BytesIO()
    segno.make_qr(text, error="m").save(buffer, kind="png", scale=scale, border=4)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def ean13_image() -> Image.Image:
    barcode = zxingcpp.create_barcode("400638133393", zxingcpp.BarcodeFormat.EAN13)
    drawn = Image.fromarray(np.asarray(barcode.to_image(scale=3))).convert("RGB")
    canvas = Image.new("RGB", (drawn.width + 80, drawn.height + 80), "white")
    canvas.paste(drawn, (40, 40))
    return canvas


def run(store, **arguments):
    return TOOL.run(ScanCode.Args.model_validate(arguments), ToolContext(store))


def test_reads_a_qr_code_with_its_position(store):
    url = "https://example.org/menu?table=12&lang=zh-CN 你好"
    source = store.load(png(qr_image(url))).id
    result = run(store, image_id=source)
    (code,) = result.data["codes"]
    assert code["type"] == "QR Code" and code["text"] == url
    x0, y0, x1, y1 = code["box"]
    assert 20 <= x0 < x1 and 20 <= y0 < y1 and len(code["polygon"]) == 4
    assert url in result.text and "QR Code" in result.text


def test_reads_a_barcode_and_a_qr_code_side_by_side(store):
    canvas = Image.new("RGB", (900, 500), "white")
    canvas.paste(qr_image("hello", scale=6), (20, 20))
    canvas.paste(ean13_image(), (420, 250))
    source = store.load(png(canvas)).id
    result = run(store, image_id=source)
    found = {code["type"]: code["text"] for code in result.data["codes"]}
    assert found == {"QR Code": "hello", "EAN-13": "4006381333931"}
    assert result.text.startswith("Found 2 codes")
    # Listed top to bottom: the QR code sits higher.
    assert result.data["codes"][0]["type"] == "QR Code"


def test_small_code_is_found_on_a_second_look(store):
    small = qr_image("tiny", scale=1)  # one pixel per module
    source = store.load(png(small)).id
    assert run(store, image_id=source).data["codes"][0]["text"] == "tiny"


def test_no_code_is_a_sentence_not_an_error(store):
    source = store.load(png(Image.new("RGB", (300, 200), "white"))).id
    result = run(store, image_id=source)
    assert result.data["codes"] == []
    assert result.text.startswith("No QR code or barcode was found")


def test_one_pixel_image(store):
    source = store.load(png(Image.new("RGB", (1, 1), "black"))).id
    assert run(store, image_id=source).data["codes"] == []


def test_long_content_is_shortened_for_the_model(store):
    text = "A" * 1500
    source = store.load(png(qr_image(text, scale=3))).id
    result = run(store, image_id=source)
    assert result.data["codes"][0]["text"] == text
    assert "1500 characters" in result.text and len(result.text) < 1300


def test_bad_arguments():
    with pytest.raises(ValidationError) as caught:
        ScanCode.Args.model_validate({})
    assert "image_id" in str(caught.value)


def test_unknown_or_path_like_ids_are_refused(store, tmp_path):
    store.load(png(qr_image("x")))
    (tmp_path / "code.png").write_bytes(png(qr_image("secret")))
    for hostile in ("img_2", "../code.png", str(tmp_path / "code.png")):
        with pytest.raises(ToolInputError) as caught:
            run(store, image_id=hostile)
        assert "Known image ids: img_1" in str(caught.value)


@pytest.mark.parametrize(
    "text",
    ["what does this QR code say?", "scan the barcode", "帮我识别这个二维码", "条形码是多少"],
)
def test_extract_defaults_to_the_latest_image(text):
    assert TOOL.extract(text, ["img_1", "img_2"], {}) == {"image_id": "img_2"}
    assert TOOL.extract(text + " img_1", ["img_1", "img_2"], {}) == {"image_id": "img_1"}


def test_a_decoder_that_cannot_load_is_explained(store, monkeypatch):
    monkeypatch.setitem(sys.modules, "zxingcpp", None)
    source = store.load(png(qr_image("https://example.com"))).id
    with pytest.raises(ToolInputError) as caught:
        TOOL.run(ScanCode.Args.model_validate({"image_id": source}), ToolContext(store))
    assert str(caught.value).startswith("Code scanning is unavailable on this server")
