"""An image refused for its size, sent with a question about it: the reply says the image was
refused and why, in the conversation's language, and never asks to attach it as if nothing had
been sent. Real images, the real store limits, the offline model and the page's handlers."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from PIL import Image

from agent import Agent, Session
from agent.config import Settings
from agent.images.store import ImageStore
from agent.models import OfflineModel
from agent.models.offline import reading
from tests.conftest import collect
from tools import default_tools
from ui.handlers import PageHandlers

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"
ATTACH = ("attach the image first", "请先上传图片")


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    """A plain picture far over the pixel limit, small on disk."""
    path = tmp_path_factory.mktemp("images") / "huge.png"
    Image.new("RGB", (12_000, 10_000), "white").save(path)
    return path


@pytest.fixture(scope="module")
def heavy(tmp_path_factory):
    """A picture over the byte limit of the store below (1 MB): a 1.08 MB bitmap."""
    path = tmp_path_factory.mktemp("images") / "heavy.bmp"
    Image.new("RGB", (600, 600), "white").save(path)
    return path


def small_store() -> ImageStore:
    return ImageStore(max_bytes=1_000_000)


async def ask(tools, text, images, language, session=None):
    session = session or Session(images=small_store())
    agent = Agent(OfflineModel(), tools, language=language)
    return await collect(agent, text, images, session)


@pytest.mark.parametrize(
    ("text", "language", "said"),
    [
        ("what is in this image?", "en", "was refused"),
        ("WHAT IS IN THIS IMAGE???", "en", "was refused"),
        ("read the text", "en", "was refused"),
        ("scan the qr code", "en", "was refused"),
        ("这张图片里有什么？", "zh", "被拒绝"),
        ("识别一下文字", "zh", "被拒绝"),
        ("图里写了啥", "zh", "被拒绝"),
    ],
)
@pytest.mark.parametrize("upload", ["huge", "heavy"])
async def test_a_refused_image_is_named_in_the_reply(tools, request, text, language, said, upload):
    path = request.getfixturevalue(upload)
    events = await ask(tools, text, [path], language)
    answer = events[-1]
    assert answer.type == "answer"
    assert said in answer.text and path.name in answer.text
    assert not any(words in answer.text for words in ATTACH)
    assert not any(e.type == "tool_call" for e in events)
    notices = [e.message for e in events if e.type == "notice"]
    assert len(notices) == 1 and path.name in notices[0]


async def test_the_reason_is_in_chinese_with_the_limit(tools, heavy):
    events = await ask(tools, "这张图片里有什么？", [heavy], "zh")
    assert "可接受的图片最大为 1 MB" in events[-1].text
    assert "accepted" not in events[-1].text


async def test_pixels_over_the_limit_are_said_with_the_size(tools, huge):
    events = await ask(tools, "what is in this image?", [huge], "en")
    assert "12000x10000 pixels" in events[-1].text
    events = await ask(tools, "这是什么图", [huge], "zh")
    assert "12000×10000 像素" in events[-1].text


async def test_an_older_image_is_not_read_in_place_of_the_refused_one(tools, huge):
    session = Session(images=small_store())
    await ask(tools, "what does the sign say?", [SIGN], "en", session)
    events = await ask(tools, "and what is in this image?", [huge], "en", session)
    assert "was refused" in events[-1].text
    assert not any(e.type == "tool_call" for e in events)
    # Named by its position, the older image is still read.
    events = await ask(tools, "read the first image", [huge], "en", session)
    assert any(e.type == "tool_call" and e.arguments["image_id"] == "img_1" for e in events)
    assert "not used" in events[-1].text and "huge.png" in events[-1].text


async def test_a_request_that_needs_no_image_still_answers_and_notes_the_refusal(tools, huge):
    events = await ask(tools, "convert 5 miles to km", [huge], "en")
    assert "8.04672 km" in events[-1].text and "huge.png" in events[-1].text
    events = await ask(tools, "把5英里换算成公里", [huge], "zh")
    assert "8.04672 公里" in events[-1].text and "未被使用" in events[-1].text


@pytest.mark.parametrize(
    ("language", "text", "said"),
    [("en", "what is in this image?", "was refused"), ("zh", "这张图片里有什么？", "被拒绝")],
)
async def test_on_the_page_the_reply_says_the_image_was_refused(tools, huge, language, text, said):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), tools)
    state = page.new_state()
    state.prefs.language = language
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the page also warns in a toast
        updates = [u async for u in page.chat({"text": text, "files": [str(huge)]}, state)]
    chat, trace, *_ = updates[-1]
    reply = chat[-1]["content"]
    assert said in reply and "huge.png" in reply
    assert not any(words in reply for words in ATTACH)
    # The trace tells it once, not once from the page and again from the run.
    notices = [m for m in trace if "huge.png" in str(m.get("content", ""))]
    assert len(notices) == 1
    state.close()


@pytest.mark.parametrize(
    ("language", "text", "note"),
    [("en", "what is in this image?", "Not received"), ("zh", "图里是什么", "未收到")],
)
async def test_a_hosted_model_is_told_what_was_refused(huge, language, text, note):
    from agent.models import ScriptedModel

    model = ScriptedModel(["Thought: say so.\nAnswer: ok"], name="hosted")
    agent = Agent(model, [], language=language)
    await collect(agent, text, [huge], Session(images=small_store()))
    (request,) = model.requests
    said = str(request.messages[-1]["content"])
    assert (
        said.startswith(text) and note in said and ("12000x10000" in said or "12000×10000" in said)
    )
    # The offline model reads the same note from the same message.
    reasons = reading.read(request).facts.refused_images
    assert len(reasons) == 1 and "huge.png" in reasons[0]


QUESTIONS = {
    "en": ("what is in this image?", "what is in these images?"),
    "zh": ("这张图片里有什么？", "这些图片里有什么？"),
}


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "The file you sent was refused", "The files you sent were refused"),
        ("zh", "您发送的文件被拒绝了", "您发送的这些文件被拒绝了"),
    ],
)
async def test_one_refused_file_and_several_are_said_as_such(
    tools, huge, heavy, language, one, many
):
    # A PDF is refused as a file too: the reply does not call what was sent an image.
    single, several = QUESTIONS[language]
    events = await ask(tools, single, [huge], language)
    assert one in events[-1].text
    events = await ask(tools, several, [huge, heavy], language)
    assert many in events[-1].text
