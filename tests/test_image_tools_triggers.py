"""The image tools are found by the registry, and their trigger phrases do not steal requests
from one another: for each request, the tool meant has the most matching triggers."""

import re

import pytest

from agent.models.offline.tool_hints import hints_for
from tools import default_tools
from tools.base import Tool
from tools.colors import Colors
from tools.image_edit import ImageEdit
from tools.image_info import ImageInfo
from tools.read_text import ReadText
from tools.scan_code import ScanCode
from tools.zoom import Zoom

IMAGE_TOOLS: list[type[Tool]] = [Colors, ImageEdit, ImageInfo, ReadText, ScanCode, Zoom]


def hits(tool: type[Tool], text: str) -> int:
    return sum(1 for pattern in hints_for(tool).triggers if re.search(pattern, text, re.IGNORECASE))


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("zoom into the top left corner", Zoom),
        ("can you enlarge the small print?", Zoom),
        ("放大左上角", Zoom),
        ("read the text in this picture", ReadText),
        ("What does the sign say?", ReadText),
        ("extract the words from the screenshot", ReadText),
        ("图片上写了什么", ReadText),
        ("识别一下图中的文字", ReadText),
        ("what does this QR code say?", ScanCode),
        ("scan the barcode", ScanCode),
        ("识别这个二维码", ScanCode),
        ("条形码是多少", ScanCode),
        ("what colours are in this picture?", Colors),
        ("what color is the car", Colors),
        ("图片的主要颜色是什么", Colors),
        ("when was this photo taken", ImageInfo),
        ("where was it taken? check the GPS", ImageInfo),
        ("what camera took this?", ImageInfo),
        ("how big is this picture", ImageInfo),
        ("这张照片是什么时候拍摄的", ImageInfo),
        ("这张图的分辨率是多少", ImageInfo),
        ("rotate it 90 degrees", ImageEdit),
        ("make it black and white", ImageEdit),
        ("顺时针旋转90度", ImageEdit),
        ("把图片水平翻转", ImageEdit),
    ],
)
def test_the_tool_meant_matches_best(text, meant):
    scores = {tool: hits(tool, text) for tool in IMAGE_TOOLS}
    assert scores[meant] > 0, f"{meant.name} does not recognise {text!r}"
    best = scores[meant]
    rivals = {tool.name: n for tool, n in scores.items() if tool is not meant and n >= best}
    assert not rivals, f"{text!r} is claimed as much by {rivals}"


@pytest.mark.parametrize(
    "text", ["convert 5 km to miles", "what time is it in Tokyo", "hello there", "计算 3+4"]
)
def test_unrelated_requests_match_no_image_tool(text):
    assert all(hits(tool, text) == 0 for tool in IMAGE_TOOLS)


def test_image_producing_tools_run_first_when_combined():
    text = "zoom into the bottom right and read the text"
    assert hits(Zoom, text) and hits(ReadText, text)
    assert hints_for(Zoom).stage < hints_for(ReadText).stage
    assert hints_for(ImageEdit).stage < hints_for(ReadText).stage


def test_registry_lists_every_image_tool():
    names = {tool.name for tool in default_tools()}
    assert {tool.name for tool in IMAGE_TOOLS} <= names


@pytest.mark.parametrize("tool", IMAGE_TOOLS, ids=lambda t: t.name)
def test_declarations_are_complete(tool):
    assert tool.uses_images and tool.description.endswith(".")
    schema = tool.schema()
    assert tool.required_fields() == ["image_id"] or "operation" in tool.required_fields()
    for name, field in schema["properties"].items():
        assert field.get("description"), f"{tool.name}.{name} has no description"
