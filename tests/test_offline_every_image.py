""" "Read all three images", "both", "每张": the offline agent calls a one-image tool once per
image, in the order they were sent, and the answer covers each image by its id. Real images
through the whole agent."""

from __future__ import annotations

from pathlib import Path

import pytest
import segno
from PIL import Image

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools
from tools.image_refs import ImageIds, every_image

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SIGN, LABEL, RECEIPT = EXAMPLES / "sign.png", EXAMPLES / "label.png", EXAMPLES / "receipt.png"
WORDS = {"img_1": "CITY LIBRARY", "img_2": "MOUNTAIN TEA", "img_3": "CORNER CAFE"}


@pytest.fixture(scope="module")
def tools():
    return default_tools()


async def turn(tools, text, images, language="en", session=None):
    agent = Agent(OfflineModel(), tools, language=language)
    events = await collect(agent, text, images, session or Session())
    calls = [(e.tool, e.arguments.get("image_id")) for e in events if e.type == "tool_call"]
    return events[-1], calls


EVERY_OF_THREE = [
    "read all three images",
    "READ ALL 3 IMAGES!!!",
    "what do each of the pictures say?",
    "read every image please",
    "read them all",
    "读一下这三张图片",
    "所有图片上写了什么",
    "每张图都读一下",
]


@pytest.mark.parametrize("text", EVERY_OF_THREE)
def test_each_phrasing_means_every_image_in_order(text):
    ids = ImageIds(["img_1", "img_2", "img_3"], turn_uploads=["img_1", "img_2", "img_3"])
    assert every_image(text, ids) == ["img_1", "img_2", "img_3"]


# Real OCR on three images is seconds a turn: one phrasing without a reading word (the
# fallback to reading), one with, in each language.
@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("read them all", "en"),
        ("what do each of the pictures say?", "en"),
        ("所有图片上写了什么", "zh"),
    ],
)
async def test_three_images_are_each_read_in_order(tools, text, language):
    answer, calls = await turn(tools, text, [SIGN, LABEL, RECEIPT], language)
    assert calls == [("read_text", "img_1"), ("read_text", "img_2"), ("read_text", "img_3")]
    for image, words in WORDS.items():
        assert image in answer.text and words in answer.text
    assert answer.text.index("img_1") < answer.text.index("img_2") < answer.text.index("img_3")


@pytest.mark.parametrize(
    ("text", "language"),
    [("read both images", "en"), ("read the two pictures", "en"), ("这两张图片写了什么", "zh")],
)
async def test_two_images_are_each_read(tools, text, language):
    answer, calls = await turn(tools, text, [SIGN, LABEL], language)
    assert calls == [("read_text", "img_1"), ("read_text", "img_2")]
    assert "CITY LIBRARY" in answer.text and "MOUNTAIN TEA" in answer.text


async def test_both_of_three_means_the_last_two(tools):
    _answer, calls = await turn(tools, "read both images", [SIGN, LABEL, RECEIPT])
    assert calls == [("read_text", "img_2"), ("read_text", "img_3")]


async def test_a_named_tool_runs_on_each_image_and_says_where_it_found_nothing(tools, tmp_path):
    qr = tmp_path / "qr.png"
    segno.make("https://example.org/menu", error="m").save(qr, scale=8)
    answer, calls = await turn(tools, "scan both images for a QR code", [SIGN, qr])
    assert calls == [("scan_code", "img_1"), ("scan_code", "img_2")]
    assert "img_1" in answer.text and "https://example.org/menu" in answer.text
    answer, calls = await turn(tools, "扫描每张图片的二维码", [SIGN, qr], "zh")
    assert calls == [("scan_code", "img_1"), ("scan_code", "img_2")]
    assert "没有找到二维码" in answer.text


async def test_earlier_uploads_count_when_this_turn_has_none(tools):
    session = Session()
    await turn(tools, "what does the sign say?", [SIGN], session=session)
    await turn(tools, "and this label?", [LABEL], session=session)
    _answer, calls = await turn(tools, "now read both images again", [], session=session)
    assert calls == [("read_text", "img_1"), ("read_text", "img_2")]


@pytest.mark.parametrize(
    "text", ["read the first image", "read the text", "第三张图片写了什么", "倒数第二张", "read it"]
)
async def test_one_image_requests_still_use_one_image(tools, text):
    ids = ImageIds(["img_1", "img_2", "img_3"], turn_uploads=["img_1", "img_2", "img_3"])
    assert every_image(text, ids) == []
    _answer, calls = await turn(tools, text, [SIGN, LABEL, RECEIPT])
    assert len({image for _, image in calls}) == 1


async def test_all_images_with_only_one_reads_it_once(tools):
    _answer, calls = await turn(tools, "read all the images", [SIGN])
    assert calls[0] == ("read_text", "img_1") and len([c for c in calls if c[1]]) <= 2


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("zoom into the small print, then read it, for all three images", "en"),
        ("每张图都放大，然后读出上面的字", "zh"),
    ],
)
async def test_a_chain_of_tools_runs_on_each_image(tools, text, language):
    answer, calls = await turn(tools, text, [SIGN, LABEL, RECEIPT], language)
    assert calls == [
        ("zoom", "img_1"),
        ("read_text", "img_4"),
        ("zoom", "img_2"),
        ("read_text", "img_5"),
        ("zoom", "img_3"),
        ("read_text", "img_6"),
    ]
    assert answer.type == "answer"
    for made in ("img_4", "img_5", "img_6"):
        assert made in answer.text
    assert answer.text.index("img_1") < answer.text.index("img_2") < answer.text.index("img_3")


async def test_a_chain_on_more_images_than_one_turn_holds_says_which_were_left(tools, tmp_path):
    fourth = tmp_path / "plain.png"
    Image.new("RGB", (300, 200), "white").save(fourth)
    images = [SIGN, LABEL, RECEIPT, fourth]
    answer, calls = await turn(tools, "zoom into each image, then read it", images)
    assert [c[0] for c in calls] == ["zoom", "read_text"] * 3
    assert answer.type == "answer" and "img_4" in answer.text.split("\n\n")[-1]


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("read img_3, img_1 and img_2", ["img_3", "img_1", "img_2"]),
        ("read all the images: img_2 and img_3", ["img_2", "img_3"]),
        ("读一下所有图片：img_2 和 img_3", ["img_2", "img_3"]),
        ("what does img_2 say?", []),  # one image named: that one, not each
        ("read img_2 and img_9", []),  # img_9 is not there: only one image is named
    ],
)
def test_images_named_by_id_are_each_meant_in_the_order_named(text, meant):
    ids = ImageIds(["img_1", "img_2", "img_3"], turn_uploads=["img_1", "img_2", "img_3"])
    assert every_image(text, ids) == meant


async def test_the_message_offered_for_the_images_left_over_reads_them(tools, tmp_path):
    images = []
    for n in range(1, 8):
        path = tmp_path / f"sheet{n}.png"
        Image.new("RGB", (40 + n, 30), "white").save(path)
        images.append(path)
    session = Session()
    answer, calls = await turn(tools, "read all the images", images, session=session)
    assert [image for _, image in calls] == [f"img_{n}" for n in range(1, 7)]
    offered = answer.text.split("\u201c")[-1].split("\u201d")[0]
    assert offered == "read all the images: img_7"
    # One image left: the offered message reads that one.
    _, calls = await turn(tools, offered, [], session=session)
    assert calls[0] == ("read_text", "img_7")
