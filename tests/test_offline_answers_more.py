"""The offline model answers what was asked in the cases it used to miss: "read all of these"
reads every image, a code read as text says what the code holds, an image the server no longer
has is said to be gone, and emoji between words do not hide a unit."""

from __future__ import annotations

import pytest
import segno
from PIL import Image, ImageDraw, ImageFont

from agent import Agent, Session
from agent.models import OfflineModel
from agent.models.offline.texts import plain
from agent.session import Turn, without_images
from tests.conftest import collect
from tools import default_tools
from tools.image_refs import ImageIds, every_image

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
URL = "https://example.org/menu"
FOUR = ImageIds(
    ["img_1", "img_2", "img_3", "img_4"], turn_uploads=["img_1", "img_2", "img_3", "img_4"]
)


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.mark.parametrize(
    "question",
    ["read all of these", "what do these say?", "read them", "what do they say?", "read all",
     "read each of these", "read each one", "全部读一下", "这些写了什么？", "把它们都读一下"],
)  # fmt: skip
def test_a_plural_means_every_image(question):
    assert every_image(question, FOUR) == ["img_1", "img_2", "img_3", "img_4"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [("read these two", ["img_3", "img_4"]), ("read it", []), ("what does this say?", [])],
)
def test_a_count_or_a_single_image_is_kept(question, expected):
    assert every_image(question, FOUR) == expected


async def test_read_all_of_these_reads_all_four(tools, tmp_path):
    paths = []
    for n, word in enumerate(["APPLE", "HOUSE", "RIVER", "TABLE"], 1):
        image = Image.new("RGB", (360, 120), "white")
        ImageDraw.Draw(image).text((20, 30), word, font=ImageFont.truetype(FONT, 48), fill="black")
        paths.append(tmp_path / f"{n}.png")
        image.save(paths[-1])
    agent = Agent(OfflineModel(), tools)
    events = await collect(agent, "read all of these", paths, Session())
    calls = [(e.tool, e.arguments.get("image_id")) for e in events if e.type == "tool_call"]
    assert calls == [("read_text", f"img_{n}") for n in range(1, 5)]
    assert all(word in events[-1].text for word in ["APPLE", "HOUSE", "RIVER", "TABLE"])


async def test_a_code_asked_to_be_read_says_what_it_holds(tools, tmp_path):
    path = tmp_path / "qr.png"
    segno.make(URL, error="m").save(path, scale=8)
    events = await collect(Agent(OfflineModel(), tools), "what does it say?", [path], Session())
    assert events[-1].text == f"The QR code in img_1 says: {URL}"
    assert "(?)" not in events[-1].text


@pytest.mark.parametrize(
    ("question", "language", "expected"),
    [
        ("what's the total on this receipt?", "en",
         "img_1 is no longer available on the server, so I cannot look at it again; please "
         "attach it once more."),
        ("When does it open on Saturday?", "en", "img_1 is no longer available on the server"),
        ("周六几点开门？", "zh", "img_1 已不在服务器上，我无法再查看；请重新上传。"),
    ],
)  # fmt: skip
async def test_an_image_no_longer_on_the_server_is_said_to_be_gone(
    tools, question, language, expected
):
    session = Session()
    session.images.restore([], reserved=["img_1"])
    earlier = Turn(user_text="here it is", image_ids=["img_1"], reply="The text in img_1 reads: x")
    session.history = [without_images(earlier, {"img_1"})]
    agent = Agent(OfflineModel(), tools, language=language)
    events = await collect(agent, question, [], session)
    assert events[-1].type == "answer" and events[-1].text.startswith(expected)
    assert "attach the image first" not in events[-1].text


def test_emoji_between_words_are_left_out():
    assert plain("convert 3 🍕 miles to km") == "convert 3 miles to km"
    assert plain("convert 3 👍🏽 miles to 👉 km") == "convert 3 miles to km"
    assert plain("convert 100 °F to ℃, 5 ㎞") == "convert 100 °F to ℃, 5 ㎞"


@pytest.mark.parametrize("question", ["convert 3 🍕 miles to km", "convert 3 miles to 👉 km"])
async def test_a_unit_after_an_emoji_is_still_read(tools, question):
    events = await collect(Agent(OfflineModel(), tools), question, [], Session())
    call = next(e for e in events if e.type == "tool_call")
    assert call.tool == "convert_units" and call.arguments["from_unit"] == "miles"
    assert events[-1].type == "answer" and "4.828" in events[-1].text


@pytest.fixture
def turned_photo(tmp_path):
    exif = Image.Exif()
    exif[0x0112] = 6  # stored on its side: turned a quarter to stand upright
    path = tmp_path / "turned.jpg"
    Image.new("RGB", (300, 200), (200, 30, 30)).save(path, exif=exif.tobytes())
    return path


@pytest.mark.parametrize(
    ("question", "language", "expected"),
    [
        ("what's the size of this image?", "en",
         "you see it turned upright as its EXIF orientation says, 200x300."),
        ("图片尺寸是多少", "zh", "看到的是按 EXIF 方向转正的副本，200x300。"),
    ],
)  # fmt: skip
async def test_a_photo_turned_by_its_exif_is_rotated_not_downscaled(
    tools, turned_photo, question, language, expected
):
    agent = Agent(OfflineModel(), tools, language=language)
    events = await collect(agent, question, [turned_photo], Session())
    assert expected in events[-1].text
    assert "downscaled" not in events[-1].text and "缩小" not in events[-1].text


async def test_the_same_image_attached_twice_is_used_once_and_said_so(
    tools, turned_photo, tmp_path
):
    copy = tmp_path / "copy.jpg"
    copy.write_bytes(turned_photo.read_bytes())
    agent = Agent(OfflineModel(), tools)
    events = await collect(agent, "what's the size of this image?", [turned_photo, copy], Session())
    said = "copy.jpg is the same picture as img_1, attached again in this message; it is used once."
    assert [e.message for e in events if e.type == "notice"] == [said]
    assert events[-1].text.endswith(f"({said})") and "not used" not in events[-1].text
    started = next(e for e in events if e.type == "run_started")
    assert len(started.images) == 1
