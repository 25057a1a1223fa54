"""In a Chinese conversation the tools answer in Chinese, and the offline model still reads what
they found: nothing, a code, lines of text, a photo's camera. Real images through the agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SIGN, RECEIPT, LABEL = EXAMPLES / "sign.png", EXAMPLES / "receipt.png", EXAMPLES / "label.png"


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture(scope="module")
def blank(tmp_path_factory):
    path = tmp_path_factory.mktemp("images") / "blank.png"
    Image.new("RGB", (400, 300), "white").save(path)
    return path


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    exif = Image.Exif()
    exif[0x010F] = "Canon"
    exif[0x0110] = "EOS R5"
    path = tmp_path_factory.mktemp("images") / "photo.jpg"
    Image.new("RGB", (300, 200), (30, 90, 200)).save(path, exif=exif.tobytes())
    return path


async def ask(tools, question, *images):
    events = await collect(Agent(OfflineModel(), tools, language="zh"), question, images, Session())
    calls = [(e.tool, e.arguments.get("image_id")) for e in events if e.type == "tool_call"]
    results = [e.text for e in events if e.type == "tool_result"]
    return events[-1].text, calls, results


async def test_text_not_in_the_newest_image_is_read_in_another(tools, blank):
    answer, calls, results = await ask(tools, "识别图片上的文字", SIGN, blank)
    assert calls == [("read_text", "img_2"), ("read_text", "img_1")]
    assert results[0].startswith("图片中没有找到文字") and results[1].startswith("识别到的文字（")
    assert answer.startswith("img_1 中的文字：\nCITY LIBRARY") and "img_2 中没有找到" in answer


async def test_no_code_anywhere_says_where_it_looked(tools, blank):
    answer, calls, _ = await ask(tools, "扫一下条形码", SIGN, blank)
    assert [image for _, image in calls] == ["img_2", "img_1"]
    assert answer.startswith("在 img_2 或 img_1 中没有找到二维码或条形码。")


async def test_the_receipt_is_found_by_what_it_says(tools):
    answer, calls, _ = await ask(tools, "小票上写了什么？", RECEIPT, SIGN, LABEL)
    assert [tool for tool, _ in calls] == ["read_text"] * 3
    assert answer.startswith("img_1 中的文字：") and "TOTAL" in answer
    assert "img_1 看起来是小票" in answer


async def test_the_photo_is_found_by_its_camera_data(tools, photo):
    answer, calls, results = await ask(tools, "把照片旋转90度", photo, SIGN)
    assert calls == [("image_info", "img_2"), ("image_info", "img_1"), ("image_edit", "img_1")]
    assert "相机：Canon EOS R5" in results[1]
    assert "img_1 已顺时针旋转 90°：新图片 img_3" in answer and "img_1 看起来是照片" in answer


@pytest.mark.parametrize("question", ["计算2480的12.5%", "2480 的 12.5% 是多少"])
async def test_a_share_asked_in_chinese_is_answered_in_chinese(tools, question):
    answer, calls, _ = await ask(tools, question)
    assert [tool for tool, _ in calls] == ["calculator"]
    assert answer == "2480 的 12.5% = 310"
