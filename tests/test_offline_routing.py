"""Which tool the offline model's words go to: a question about what an image shows written
(boarding, a gate, the hours, a total) is not a question for the clock; image details, sizes and
EXIF go to image_info; 换成/转换成 a unit is a conversion; a misspelt key word still counts."""

from __future__ import annotations

import pytest

from agent.models.offline import picking
from agent.models.offline.routing import rank_tools
from tools import default_tools

TOOLS = default_tools()


def first(question: str, has_images: bool = True) -> str:
    ranked = rank_tools(question, TOOLS, has_images)
    return ranked[0].name if ranked else ""


@pytest.mark.parametrize(
    "question",
    ["image info", "what size is this image?", "how big is it?", "图片多大？",
     "这张照片的EXIF信息", "show me the EXIF data", "图片信息", "图片的大小"],
)  # fmt: skip
def test_image_details_go_to_image_info(question):
    assert first(question) == "image_info"


@pytest.mark.parametrize("question", ["把3英里换成公里", "3英里转换成公里", "5公斤换算成磅"])
def test_a_unit_to_change_into_is_a_conversion(question):
    assert first(question, has_images=False) == "convert_units"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what time is boarding?", "boarding"),
        ("几点登机？", "boarding"),
        ("几点开始登机？", "boarding"),
        ("登机口几点关？", "closes"),
        ("星期六几点开？", "hours"),
        ("周日开门吗？", "hours"),
        ("周日营业吗", "hours"),
        ("这张小票的金额是多少？", "total"),
        ("金额是多少", "total"),
        ("whats the totla?", "total"),
        ("when is boardng?", "boarding"),
    ],
)
def test_questions_about_what_an_image_shows(question, kind):
    assert picking.asks(question)[0] == kind
    assert picking.about_the_text(question)


@pytest.mark.parametrize(
    "question", ["what time is it in London?", "What time is it?", "几点了", "东京现在几点？"]
)
def test_the_clock_is_still_the_clock(question):
    assert not picking.about_the_text(question)
    assert first(question) == "world_clock"


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("read the barcode", "scan_code"),
        ("Read the QR code please", "scan_code"),
        ("what does the barcode say?", "scan_code"),
        ("what does the QR code mean", "scan_code"),
        ("读一下条形码", "scan_code"),
        ("识别这个二维码", "scan_code"),
        ("read the text", "read_text"),
        ("what does the sign say?", "read_text"),
        ("读一下上面的字", "read_text"),
    ],
)
def test_reading_a_code_is_scanning_it(question, tool):
    """ "read the barcode" read the image's text, and never said no code was there."""
    assert first(question) == tool
