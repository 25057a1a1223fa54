"""Which image a person means, by id, position, pointer or content, and every image tool's
extractor agreeing on it; zoom regions and edit operations said in a phrase."""

from __future__ import annotations

import pytest

from agent.models.offline.tool_hints import hints_for
from tools.colors import Colors
from tools.image_edit import ImageEdit
from tools.image_info import ImageInfo
from tools.image_refs import ImageIds, content_of, names_an_image, resolve_image
from tools.read_text import ReadText
from tools.scan_code import ScanCode
from tools.zoom import Zoom

# Uploads img_1 and img_2; img_3 is a zoom of img_1; img_4 was uploaded after it, this turn.
IDS = ImageIds(
    ["img_1", "img_2", "img_3", "img_4"],
    uploads=["img_1", "img_2", "img_4"],
    turn_uploads=["img_4"],
    focus="img_1",
)
# Three uploads and a zoom result; nothing new this turn.
LATER = ImageIds(
    ["img_1", "img_2", "img_3", "img_4"], uploads=["img_1", "img_2", "img_3"], focus="img_2"
)


@pytest.mark.parametrize(
    ("text", "image_id", "way"),
    [
        ("read the text in the first image", "img_1", "position"),
        ("rotate the second image", "img_2", "position"),
        ("the third picture", "img_4", "position"),
        ("Read the text in the FIRST image。", "img_1", "position"),
        ("scan the qr code in the 2nd picture please", "img_2", "position"),
        ("the 3rd photo", "img_4", "position"),
        ("the last image", "img_4", "position"),
        ("the last one", "img_4", "position"),
        ("the second-to-last image", "img_2", "position"),
        ("the latest upload", "img_4", "position"),
        ("show me the details of image 3", "img_4", "position"),
        ("picture 2", "img_2", "position"),
        ("Image #2", "img_2", "position"),
        ("image two", "img_2", "position"),
        ("第一张", "img_1", "position"),
        ("第二张图", "img_2", "position"),
        ("第２张", "img_2", "position"),
        ("第3幅图片", "img_4", "position"),
        ("最后一张", "img_4", "position"),
        ("倒数第二张", "img_2", "position"),
        ("图3", "img_4", "position"),
        ("图片 2", "img_2", "position"),
        ("img_3", "img_3", "id"),
        ("IMG 3", "img_3", "id"),
        ("zoom into img3", "img_3", "id"),
        ("zoom into the top left of that image", "img_1", "pointer"),
        ("the same picture again", "img_1", "pointer"),
        ("这张图", "img_1", "pointer"),
        ("那张照片", "img_1", "pointer"),
        # "it" is the image the conversation is about (img_1 here), not the newest.
        ("what colors are in it?", "img_1", "pointer"),
        ("what does it say?", "img_1", "pointer"),
        ("read the text", "img_4", "newest"),
        # A number with a unit after it is an angle or a factor, not an image.
        ("Rotate the image 90 degrees", "img_4", "newest"),
        ("rotate the picture 45°", "img_4", "newest"),
        ("enlarge the picture 3 times", "img_4", "newest"),
        ("把图片旋转90度", "img_4", "newest"),
        ("rotate image 2 90 degrees", "img_2", "position"),
    ],
)
def test_resolves_the_image_meant(text, image_id, way):
    choice = resolve_image(text, IDS)
    assert (choice.image_id, choice.way) == (image_id, way)


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("scan the QR code", "code"),
        ("SCAN THE QR CODE!!!", "code"),
        ("read the barcode", "code"),
        ("扫一下二维码", "code"),
        ("what does the receipt say", "receipt"),
        ("小票上的总价", "receipt"),
        ("read the sign", "sign"),
        ("what does the label say?", "label"),
        ("when was the photo taken", "photo"),
        ("this photo", None),
        ("read the text", None),
    ],
)
def test_content_words(text, content):
    assert content_of(text) == content


def test_by_content_tries_what_was_just_sent_then_older_uploads():
    choice = resolve_image("scan the QR code", IDS)
    assert choice.way == "content" and choice.content == "code"
    assert choice.candidates == ["img_4", "img_2", "img_1"]


def test_without_a_new_upload_the_newest_image_comes_first():
    # The zoom result the person just saw, then their uploads from the newest.
    assert resolve_image("scan the QR code", LATER).candidates == [
        "img_4",
        "img_3",
        "img_2",
        "img_1",
    ]
    assert resolve_image("read the text", LATER).candidates == ["img_4", "img_3", "img_2", "img_1"]


@pytest.mark.parametrize(
    "text",
    [
        "and the image from before?",
        "the previous picture",
        "what about the earlier photo",
        "the one before",
        "上一张呢？",
        "之前那张图",
        "前一张",
    ],
)
def test_the_previous_image_is_the_upload_before_the_newest_or_before_this_turns(text):
    # With img_4 sent this turn, the one before it; with nothing new, the one before the last.
    assert (resolve_image(text, IDS).image_id, resolve_image(text, LATER).image_id) == (
        "img_2",
        "img_2",
    )
    assert names_an_image(text)
    only = resolve_image(text, ImageIds(["img_1"]))
    assert only.image_id is None and only.position == -2 and only.unknown


def test_a_specific_image_has_no_alternatives():
    assert resolve_image("the second image", LATER).candidates == ["img_2"]
    assert resolve_image("that one", LATER).candidates == ["img_2"]


@pytest.mark.parametrize(
    ("text", "position", "unknown"),
    [
        ("read the fifth image", 5, "fifth image"),
        ("the 10th picture", 10, "10th picture"),
        ("第五张", 5, "第五张"),
        ("倒数第五张", -5, "倒数第五张"),
    ],
)
def test_a_position_beyond_the_uploads_is_unknown(text, position, unknown):
    choice = resolve_image(text, LATER)
    assert choice.image_id is None and choice.candidates == []
    assert (choice.position, choice.unknown, choice.uploads) == (position, unknown, 3)


def test_image_n_beyond_the_uploads_may_be_the_id_the_trace_shows():
    # Three uploads; "image 4" can only be the zoom result img_4.
    choice = resolve_image("show me image 4", LATER)
    assert (choice.image_id, choice.way) == ("img_4", "id")


def test_an_unknown_id_is_named_as_written():
    choice = resolve_image("zoom into img_9", LATER)
    assert choice.image_id is None and choice.unknown == "img_9"


def test_a_plain_list_counts_every_image_as_an_upload():
    choice = resolve_image("the second image", ["img_1", "img_2", "img_3"])
    assert choice.image_id == "img_2"
    assert resolve_image("zoom in", ["img_1", "img_2"]).image_id == "img_2"
    assert resolve_image("the first image", []).image_id is None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("the second one", True),
        ("img_2", True),
        ("第二张", True),
        ("that one", True),
        ("to kilometers", False),
        ("the first thing to do", False),
        ("second thoughts", False),
    ],
)
def test_names_an_image(text, named):
    assert names_an_image(text) is named


# -- every image tool's extractor agrees --------------------------------------------------------

IMAGE_TOOLS = [Colors(), ImageEdit(), ImageInfo(), ReadText(), ScanCode(), Zoom()]


@pytest.mark.parametrize("tool", IMAGE_TOOLS, ids=lambda t: t.name)
@pytest.mark.parametrize(
    ("text", "image_id"),
    [
        ("the second image", "img_2"),
        ("第一张", "img_1"),
        ("that image", "img_1"),
        ("img_3", "img_3"),
        ("picture 3", "img_4"),
        ("the last one", "img_4"),
    ],
)
def test_every_image_extractor_resolves_the_same_way(tool, text, image_id):
    assert tool.extract(text, IDS, {})["image_id"] == image_id


@pytest.mark.parametrize("tool", IMAGE_TOOLS, ids=lambda t: t.name)
def test_a_reference_that_names_nothing_gives_no_image(tool):
    assert "image_id" not in tool.extract("the fifth image", IDS, {})


def test_a_named_image_replaces_a_known_one_and_a_default_does_not():
    tool = ReadText()
    assert tool.extract("the second image", IDS, {"image_id": "img_1"}) == {"image_id": "img_2"}
    assert tool.extract("read it", IDS, {"image_id": "img_1"}) == {}


@pytest.mark.parametrize(
    ("text", "region"),
    [
        ("the top left one", "top-left"),
        ("top left please", "top-left"),
        ("the UPPER-LEFT corner", "top-left"),
        ("in the bottom right", "bottom-right"),
        ("lower right, please", "bottom-right"),
        ("just the middle", "center"),
        ("左上角", "top-left"),
        ("左上角那块", "top-left"),
        ("右下角的小字", "bottom-right"),
        ("要中间的", "center"),
        ("上半部分吧", "top-half"),
    ],
)
def test_zoom_region_in_a_phrase(text, region):
    assert Zoom().extract(text, ["img_1"], {})["region"] == region


def test_zoom_reads_the_factor_but_not_the_image_number():
    found = Zoom().extract("zoom into image 2 by 3", IDS, {})
    assert found == {"image_id": "img_2", "factor": 3.0}
    assert "factor" not in Zoom().extract("zoom into the 2nd image", IDS, {})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rotate it 90 degrees", {"operation": "rotate", "degrees": 90.0}),
        ("rotate it by 90°", {"operation": "rotate", "degrees": 90.0}),
        ("Rotate it 90 degrees to the left!", {"operation": "rotate", "degrees": -90.0}),
        ("turn it upside down", {"operation": "rotate", "degrees": 180.0}),
        ("rotate the 2nd image", {"operation": "rotate", "degrees": 90.0}),
        ("rotate image 3 by 45 degrees", {"operation": "rotate", "degrees": 45.0}),
        ("逆时针旋转90度", {"operation": "rotate", "degrees": -90.0}),
        ("把第二张图旋转180度", {"operation": "rotate", "degrees": 180.0}),
        ("make it grey", {"operation": "grayscale"}),
        ("make it black and white please", {"operation": "grayscale"}),
        ("变成黑白的", {"operation": "grayscale"}),
        ("mirror it", {"operation": "flip", "direction": "horizontal"}),
        ("flip it vertically", {"operation": "flip", "direction": "vertical"}),
        ("make it sharper", {"operation": "sharpen"}),
        ("more contrast please", {"operation": "autocontrast"}),
    ],
)
def test_image_edit_operation_in_a_phrase(text, expected):
    found = ImageEdit().extract(text, IDS, {})
    found.pop("image_id")
    assert found == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("make it grey", "image_edit"),
        ("turn the photo black and white", "image_edit"),
        ("变成黑白的", "image_edit"),
        ("show me the details of image 3", "image_info"),
        ("info about this picture", "image_info"),
        ("read the receipt", "read_text"),
        ("read this", "read_text"),
    ],
)
def test_phrases_that_name_an_image_tool(text, expected):
    import re

    def hits(tool):
        return sum(1 for p in hints_for(tool).triggers if re.search(p, text, re.IGNORECASE))

    best = max(IMAGE_TOOLS, key=hits)
    assert hits(best) and best.name == expected


def test_colours_count_is_not_the_image_number():
    assert Colors().extract("top 3 colours of image 2", IDS, {}) == {
        "image_id": "img_2",
        "count": 3,
    }
    assert "count" not in Colors().extract("colours of the 2nd image", IDS, {})


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("top 3 colours please", 3),
        ("the 3 main colours, please", 3),
        ("TOP 4 COLORS!", 4),
        ("前3种颜色", 3),
        ("给我5种颜色吧", 5),
        ("列出图1的三种主色", 3),
    ],
)
def test_colours_count_in_a_phrase(text, count):
    assert Colors().extract(text, ["img_1", "img_2"], {})["count"] == count
