"""Questions about what an image shows, asked of the offline agent with real images drawn here
(the CJK font the page's machines have) and read by the OCR: the answer is the line asked for,
whatever the OCR split, whichever tool the words could also mean."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tests.test_offline_answers_images import drawn
from tools import default_tools

RECEIPT = [
    (60, 30, "CORNER SHOP"), (60, 120, "Milk"), (560, 120, "1.29"), (60, 190, "Coffee beans"),
    (560, 190, "10.05"), (60, 260, "TOTAL"), (560, 260, "11.34"), (60, 350, "THANK YOU"),
]  # fmt: skip


PASS_EN = [
    (40, 30, "BOARDING PASS"), (40, 110, "FLIGHT BA 117"), (40, 180, "GATE 22"),
    (420, 180, "SEAT 23A"), (40, 250, "BOARDING 18:45"), (40, 320, "GATE CLOSES 19:15"),
]  # fmt: skip
PASS_ZH = [
    (40, 30, "登机牌"), (40, 110, "航班 CA1234"), (40, 180, "登机口 B17"), (420, 180, "座位 23A"),
    (40, 250, "登机时间 09:10"), (40, 320, "登机口关闭 09:40"),
]  # fmt: skip
HOURS_ZH = [
    (60, 40, "营业时间"), (60, 140, "周一至周五 9:00-21:00"), (60, 220, "周六 10:00-16:00"),
    (60, 300, "周日休息"),
]  # fmt: skip
HOURS_EN = [
    (60, 40, "OPENING HOURS"), (60, 140, "Mon-Fri 9:00-18:00"), (60, 220, "Saturday 10:00-16:00"),
    (60, 300, "Sunday closed"),
]  # fmt: skip
RECEIPT_ZH = [
    (60, 30, "便利店小票"), (60, 120, "牛奶"), (560, 120, "12.50"), (60, 190, "面包"),
    (560, 190, "23.30"), (60, 260, "合计"), (560, 260, "35.80"),
]  # fmt: skip


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("questions")
    rows = {
        "receipt": RECEIPT, "pass_en": PASS_EN, "pass_zh": PASS_ZH, "hours_zh": HOURS_ZH,
        "hours_en": HOURS_EN, "receipt_zh": RECEIPT_ZH,
    }  # fmt: skip
    found = {name: drawn(folder, f"{name}.png", drawn_rows) for name, drawn_rows in rows.items()}
    # A yellow disc on blue, which the OCR reads as "O" with little confidence.
    disc = Image.new("RGB", (200, 200), (30, 60, 200))
    ImageDraw.Draw(disc).ellipse((50, 50, 150, 150), fill=(255, 220, 0))
    disc.save(folder / "disc.png")
    return {**found, "disc": folder / "disc.png"}


async def ask(tools, text, image, language="en", session=None):
    agent = Agent(OfflineModel(), tools, language=language)
    events = await collect(agent, text, [image] if image else [], session or Session())
    return events[-1].text


async def test_a_total_the_ocr_split_is_the_total(tools, images):
    # The OCR reads this TOTAL as "TOTAL 1 1.34".
    answer = await ask(tools, "what's the total?", images["receipt"])
    assert answer == "The total is 11.34 (img_1: “TOTAL 11.34”)."


@pytest.mark.parametrize(
    ("image", "question", "language", "answer"),
    [
        ("pass_en", "what time is boarding?", "en", "Boarding 18:45 (img_1: “BOARDING 18:45”)."),
        ("pass_zh", "几点登机？", "zh", "09:10 开始登机（img_1：“登机时间 09:10”）。"),
        ("pass_zh", "几点开始登机？", "zh", "09:10 开始登机（img_1：“登机时间 09:10”）。"),
        ("pass_zh", "登机口几点关？", "zh", "09:40 关闭（img_1：“登机口关闭 09:40”）。"),
        ("hours_zh", "星期六几点开？", "zh", "周六 10:00-16:00（img_1：“周六 10:00-16:00”）。"),
        ("receipt_zh", "这张小票的金额是多少？", "zh", "合计 35.80（img_1：“合计 35.80”）。"),
        ("receipt_zh", "金额是多少", "zh", "合计 35.80（img_1：“合计 35.80”）。"),
        ("receipt", "whats the totla?", "en", "The total is 11.34 (img_1: “TOTAL 11.34”)."),
    ],
)
async def test_what_the_image_shows_is_read_not_the_clock(
    tools, images, image, question, language, answer
):
    assert await ask(tools, question, images[image], language) == answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("image info", "900x560 pixels"),
        ("what size is this image?", "900x560 pixels"),
        ("图片多大？", "900x560 像素"),
        ("这张照片的EXIF信息", "900x560 像素"),
    ],
)
async def test_image_details_are_image_info(tools, images, question, expected):
    language = "en" if question.isascii() else "zh"
    assert expected in await ask(tools, question, images["receipt"], language)


async def test_a_unit_to_change_into_with_an_image_attached(tools, images):
    assert await ask(tools, "把3英里换成公里", images["receipt"], "zh") == "3 英里 = 4.828032 公里"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("周日开门吗？", "周日休息（img_1：“Sunday closed”）。"),
        ("周六几点开门？", "周六 10:00-16:00（img_1：“Saturday 10:00-16:00”）。"),
        ("周日营业吗", "周日休息（img_1：“Sunday closed”）。"),
        ("Are they open on Sunday?", "Sunday: closed (img_1: “Sunday closed”)."),
    ],
)
async def test_follow_ups_about_the_hours_in_either_language(tools, images, question, answer):
    session = Session()
    language = "en" if question.isascii() else "zh"
    await ask(tools, "When does it open on Saturday?", images["hours_en"], "en", session)
    assert await ask(tools, question, None, language, session) == answer


@pytest.mark.parametrize(
    ("first", "second", "back", "language"),
    [
        ("how big is this image?", "and this one?", "and the image from before?", "en"),
        ("read this", "and this one?", "and the one before?", "en"),
        ("这张图多大？", "这张呢？", "上一张呢？", "zh"),
    ],
)
async def test_a_follow_up_of_a_follow_up_asks_the_first_question_of_the_image_before(
    tools, images, first, second, back, language
):
    session = Session()
    first_answer = await ask(tools, first, images["hours_en"], language, session)
    await ask(tools, second, images["pass_en"], language, session)
    again = await ask(tools, back, None, language, session)
    # The first request again, on img_1: it says what it said the first time.
    assert first_answer.split("\n")[0] in again


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("what's the seat on img_1?", "Seat 23A (img_1: “GATE 22 SEAT 23A”)."),
        ("img_1 的座位是多少？", "座位 23A（img_1：“GATE 22 SEAT 23A”）。"),
        ("which gate is on img_1?", "Gate 22 (img_1: “GATE 22 SEAT 23A”)."),
    ],
)
async def test_an_earlier_image_named_by_id_answers_what_is_asked(tools, images, question, answer):
    session = Session()
    await ask(tools, "what does it say?", images["pass_en"], "en", session)
    language = "en" if question.isascii() else "zh"
    assert await ask(tools, question, None, language, session) == answer


@pytest.mark.parametrize(
    ("question", "language", "answer"),
    [
        ("what does it say?", "en", "I found no text in img_1."),
        ("上面写了什么？", "zh", "在 img_1 中没有找到文字。"),
    ],
)
async def test_a_shape_read_as_one_doubtful_letter_is_no_text(
    tools, images, question, language, answer
):
    said = await ask(tools, question, images["disc"], language)
    assert said.startswith(answer)
    assert "(?)" not in said


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_same_file_twice_is_said_once(tools, images, language):
    session = Session()
    await ask(tools, "what does it say?", images["pass_en"], language, session)
    agent = Agent(OfflineModel(), tools, language=language)
    question = "read the text" if language == "en" else "读一下上面的文字"
    hours = images["hours_en"]
    answer = (await collect(agent, question, [hours, hours], session))[-1].text
    assert "img_2" in answer and ("same picture" in answer or "同一张图片" in answer)
    assert "last image you sent" not in answer and "您刚发的图片" not in answer
