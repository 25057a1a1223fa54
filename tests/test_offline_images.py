"""With several images, the offline agent uses the one the person means: by position among
their uploads, by id, by pointing back, or by what it shows; a tool that finds nothing tries the
others, and the answer says which image it used. Real images through the whole agent."""

from __future__ import annotations

from pathlib import Path

import pytest
import segno
from PIL import Image

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SIGN, LABEL, RECEIPT = EXAMPLES / "sign.png", EXAMPLES / "label.png", EXAMPLES / "receipt.png"
URL = "https://example.org/menu"


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture(scope="module")
def qr(tmp_path_factory):
    path = tmp_path_factory.mktemp("images") / "qr.png"
    segno.make(URL, error="m").save(path, scale=8)
    return path


@pytest.fixture(scope="module")
def blank(tmp_path_factory):
    path = tmp_path_factory.mktemp("images") / "blank.png"
    Image.new("RGB", (400, 300), "white").save(path)
    return path


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    image = Image.new("RGB", (300, 200), (30, 90, 200))
    exif = Image.Exif()
    exif[0x010F] = "Canon"
    exif[0x0110] = "EOS R5"
    path = tmp_path_factory.mktemp("images") / "photo.jpg"
    image.save(path, exif=exif.tobytes())
    return path


class Chat:
    def __init__(self, tools, style="react", language="en"):
        self.session = Session()
        self.agent = Agent(OfflineModel(), tools, style=style, language=language)

    async def say(self, text, *images):
        self.events = await collect(self.agent, text, list(images), self.session)
        return self.events[-1]

    def calls(self):
        return [(e.tool, e.arguments.get("image_id")) for e in self.events if e.type == "tool_call"]


@pytest.mark.parametrize(
    "question",
    ["scan the QR code", "SCAN THE QR CODE!!!", "can you scan the qr code, please?"],
)
async def test_a_code_not_in_the_newest_image_is_found_in_another(tools, qr, question):
    chat = Chat(tools)
    answer = await chat.say(question, SIGN, qr, LABEL)
    assert chat.calls() == [("scan_code", "img_3"), ("scan_code", "img_2")]
    assert answer.text.startswith(f"The QR code in img_2 says: {URL}")
    assert "nothing in img_3" in answer.text


async def test_chinese_code_request_answers_in_chinese(tools, qr):
    chat = Chat(tools, language="zh")
    answer = await chat.say("扫一下二维码", SIGN, qr, LABEL)
    assert answer.text.startswith(f"img_2 中的二维码内容是：{URL}")


async def test_an_earlier_upload_is_scanned_after_the_new_one(tools, qr, blank):
    chat = Chat(tools)
    await chat.say("what colours are in these?", qr, SIGN)
    answer = await chat.say("scan the QR code", blank)
    assert chat.calls() == [("scan_code", "img_3"), ("scan_code", "img_2"), ("scan_code", "img_1")]
    assert answer.text.startswith(f"The QR code in img_1 says: {URL}")


async def test_no_code_anywhere_says_where_it_looked(tools, blank):
    chat = Chat(tools)
    answer = await chat.say("scan the barcode", SIGN, blank)
    assert [c[1] for c in chat.calls()] == ["img_2", "img_1"]
    assert answer.text.startswith("I found no QR code or barcode in img_2 or img_1.")


@pytest.mark.parametrize(
    "question",
    [
        "read the text in the first image",
        "Read the text in the FIRST image。",
        "read the text in image 1",
        "what does picture #1 say?",
        "read the 1st one",
    ],
)
async def test_the_first_image_is_the_first_upload(tools, question):
    chat = Chat(tools)
    answer = await chat.say(question, SIGN, LABEL, RECEIPT)
    assert chat.calls() == [("read_text", "img_1")]
    assert "LIBRARY" in answer.text and "(img_1 is the first image you uploaded.)" in answer.text


async def test_the_second_image_is_an_upload_not_a_zoom_result(tools, qr):
    chat = Chat(tools)
    await chat.say("zoom into the top left", SIGN, qr)
    assert chat.calls() == [("zoom", "img_2")]  # the zoom result is img_3
    answer = await chat.say("rotate the second image")
    assert chat.calls() == [("image_edit", "img_2")]
    assert "img_2 is the second image you uploaded" in answer.text


async def test_image_n_counts_what_the_person_uploaded(tools, qr):
    chat = Chat(tools)
    await chat.say("zoom into the top left", SIGN)  # img_2 is the zoom
    await chat.say("what colours are in these pictures?", LABEL, qr)  # img_3 and img_4
    answer = await chat.say("show me the details of image 3")
    assert chat.calls() == [("image_info", "img_4")]
    assert "img_4 is the third image you uploaded" in answer.text


@pytest.mark.parametrize(("words", "image_id"), [("第二张图", "img_2"), ("最后一张", "img_3")])
async def test_chinese_positions(tools, qr, words, image_id):
    chat = Chat(tools, language="zh")
    answer = await chat.say(f"把{words}旋转90度", SIGN, qr, LABEL)
    assert chat.calls() == [("image_edit", image_id)]
    assert f"{image_id} 是您上传的" in answer.text


async def test_that_image_after_a_zoom_is_the_one_talked_about(tools):
    chat = Chat(tools)
    await chat.say("zoom into the bottom right of the first image", SIGN, LABEL)
    assert chat.calls() == [("zoom", "img_1")]
    answer = await chat.say("Zoom into the top left of that image")
    assert chat.calls() == [("zoom", "img_1")]
    assert "(I used img_1, the image we were talking about.)" in answer.text


async def test_the_receipt_is_found_by_what_it_says(tools):
    chat = Chat(tools)
    answer = await chat.say("What does the receipt say?", RECEIPT, SIGN, LABEL)
    assert chat.calls() == [("read_text", "img_3"), ("read_text", "img_2"), ("read_text", "img_1")]
    assert answer.text.startswith("The text in img_1 reads:") and "TOTAL" in answer.text
    assert "(img_1 looks like the receipt.)" in answer.text


async def test_the_photo_is_found_by_its_camera_data(tools, photo):
    chat = Chat(tools)
    answer = await chat.say("rotate the photo", photo, SIGN)
    assert chat.calls() == [
        ("image_info", "img_2"),
        ("image_info", "img_1"),
        ("image_edit", "img_1"),
    ]
    assert "(img_1 looks like the photo.)" in answer.text


async def test_text_not_in_the_newest_image_is_read_in_another(tools, blank):
    chat = Chat(tools)
    answer = await chat.say("read the text", SIGN, blank)
    assert chat.calls() == [("read_text", "img_2"), ("read_text", "img_1")]
    assert answer.text.startswith("The text in img_1 reads:") and "nothing in img_2" in answer.text


@pytest.mark.parametrize(
    ("question", "language", "needles"),
    [
        ("what does the fifth image say?", "en", ["uploaded 2 images", "no fifth one"]),
        ("Read the 10th picture!", "en", ["uploaded 2 images", "no tenth one"]),
        ("rotate the third image", "en", ["uploaded 2 images", "no third one"]),
        ("read the 0th image", "en", ["uploaded 2 images", "no 0th one"]),
        ("show me image 1000", "en", ["uploaded 2 images", "no 1000th one"]),
        ("第五张图写了什么？", "zh", ["上传了 2 张图片", "没有第 5 张"]),
        ("倒数第三张是什么", "zh", ["上传了 2 张图片", "没有倒数第 3 张"]),
        ("img_0 的颜色", "zh", ["没有 img_0", "img_1 和 img_2"]),
        ("zoom into img_9", "en", ["There is no img_9", "img_1 and img_2"]),
    ],
)
async def test_an_image_that_is_not_there_is_named_with_what_there_is(
    tools, question, language, needles
):
    chat = Chat(tools, language=language)
    await chat.say("what colours are in these?", SIGN, LABEL)
    answer = await chat.say(question)
    assert answer.type == "answer" and chat.calls() == []
    assert all(needle in answer.text for needle in needles), answer.text


async def test_a_bare_reference_after_that_continues_the_request(tools, qr):
    chat = Chat(tools)
    await chat.say("what colours are in these?", SIGN, qr)
    await chat.say("scan the code in the fifth image")
    answer = await chat.say("the second one")
    assert chat.calls() == [("scan_code", "img_2")]
    assert answer.text.startswith(f"The QR code in img_2 says: {URL}")


@pytest.mark.parametrize("question", ["rotate the second image", "scan the QR code"])
async def test_without_images_it_asks_for_one(tools, question):
    answer = await Chat(tools).say(question)
    assert answer.type == "answer" and "attach the image" in answer.text


async def test_plugin_task_style_names_the_image_too(tools, qr):
    chat = Chat(tools, style="plugin-task")
    answer = await chat.say("scan the QR code", qr)
    assert answer.text == f"The QR code in img_1 says: {URL}"


async def test_a_name_that_fits_no_image_does_not_change_the_one_talked_about(tools):
    chat = Chat(tools)
    await chat.say("what colours are in these?", SIGN, LABEL)
    await chat.say("zoom into the first image")
    await chat.say("read the fifth image")
    await chat.say("zoom into img_9")
    answer = await chat.say("rotate that image")
    assert chat.calls() == [("image_edit", "img_1")]
    assert "the image we were talking about" in answer.text


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("rotate it by 45 degrees", {"image_id": "img_1", "operation": "rotate", "degrees": 45.0}),
        (
            "flip it vertically",
            {"image_id": "img_1", "operation": "flip", "direction": "vertical"},
        ),
        ("make it grayscale", {"image_id": "img_1", "operation": "grayscale"}),
    ],
)
async def test_an_edit_call_carries_only_the_arguments_its_operation_uses(tools, question, shown):
    """A rotation showed the flip's default direction among its arguments, as if it mattered."""
    chat = Chat(tools)
    await chat.say(question, SIGN)
    calls = [e.arguments for e in chat.events if e.type == "tool_call"]
    assert calls == [shown]
