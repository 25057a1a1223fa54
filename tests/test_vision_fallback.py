"""A model that takes text only, over real HTTP against the local OpenAI-compatible server: a
refusal naming images, or an empty reply to a request with images, makes the call again once
without them, says so once, and is remembered; a vision model is sent the same messages in one
request; `off` never sends image parts and `on` never falls back."""

from __future__ import annotations

import pytest

from agent.messages import user_message
from agent.models import ModelError, ModelRequest
from agent.models.vision import VisionMemory, text_only
from tests.support.openai_fixtures import make_model, serve, stopping
from tests.support.openai_replies import Fail
from tests.support.text_only_server import (
    EMPTY,
    LLAMA_CPP_REFUSAL,
    OPENAI_REFUSAL,
    image_parts,
)
from tests.support.text_only_server import text_only as text_only_replies

__all__ = ["serve", "stopping"]  # fixtures


@pytest.fixture
def image(store, png):
    return store.load(png)


def asking(image, notices: list[str] | None = None, language: str = "en") -> ModelRequest:
    message = user_message("What does it say?", [image], "auto")
    request = ModelRequest(
        messages=[{"role": "system", "content": "Answer."}, message], language=language
    )
    if notices is not None:
        request.on_retry = notices.append
    return request


async def reply(model, request) -> str:
    return "".join([piece async for piece in model.stream(request)])


@pytest.mark.parametrize(
    "refusal", [LLAMA_CPP_REFUSAL, OPENAI_REFUSAL, EMPTY], ids=["llama.cpp", "openai", "empty"]
)
async def test_a_text_only_model_is_asked_again_without_images_and_remembered(
    serve, image, refusal
):
    server = serve(text_only_replies(["Answer: one", "Answer: two"], refusal))
    model = make_model(server)
    notices: list[str] = []

    assert await reply(model, asking(image, notices)) == "Answer: one"
    assert await reply(model, asking(image, notices)) == "Answer: two"

    first, again, later = server.requests
    assert image_parts(first) and not image_parts(again) and not image_parts(later)
    # The second turn sent no images at all: one request, not a refusal and a retry.
    assert len(server.requests) == 3
    assert len(notices) == 1 and "cannot take images" in notices[0]
    assert "'test-model'" in notices[0]
    assert model.vision_state() == "text"
    note = again["messages"][-1]["content"]
    assert isinstance(note, str) and "img_1 (64x32 PNG image)" in note
    await model.aclose()


async def test_the_notice_is_said_in_the_conversations_language(serve, image):
    server = serve(text_only_replies(["回答：好"]))
    model = make_model(server)
    notices: list[str] = []

    await reply(model, asking(image, notices, language="zh"))

    assert len(notices) == 1 and "无法接收图片" in notices[0]
    await model.aclose()


async def test_an_empty_reply_that_stays_empty_without_images_is_not_blamed_on_them(serve, image):
    server = serve(["", ""])
    model = make_model(server)
    notices: list[str] = []

    with pytest.raises(ModelError) as caught:
        await reply(model, asking(image, notices))

    assert caught.value.key == "empty_reply"
    assert notices == [] and model.vision_state() == ""
    await model.aclose()


async def test_a_vision_model_gets_the_same_messages_in_one_request(serve, image):
    server = serve(["Answer: red", Fail(400, "Invalid content: image_url not allowed here.")])
    model = make_model(server)
    notices: list[str] = []
    request = asking(image, notices)

    assert await reply(model, request) == "Answer: red"
    assert len(server.requests) == 1
    assert server.requests[0]["messages"] == request.messages
    assert notices == [] and model.vision_state() == "sees"
    # Known to take images: a later refusal is the turn's error, not a reason to drop them.
    with pytest.raises(ModelError):
        await reply(model, asking(image, notices))
    assert len(server.requests) == 2 and notices == []
    await model.aclose()


async def test_off_never_sends_image_parts(serve, image):
    server = serve(["Answer: a", "Answer: b"])
    model = make_model(server, vision="off")
    notices: list[str] = []

    await reply(model, asking(image, notices))
    await reply(model, asking(image, notices))

    assert [bool(image_parts(body)) for body in server.requests] == [False, False]
    assert notices == [] and model.vision_state() == "off"
    await model.aclose()


@pytest.mark.parametrize(
    ("refusal", "key"), [(LLAMA_CPP_REFUSAL, "images_refused"), (EMPTY, "empty_reply")]
)
async def test_on_never_falls_back(serve, image, refusal, key):
    server = serve([refusal, "Answer: never asked"])
    model = make_model(server, vision="on")
    notices: list[str] = []

    with pytest.raises(ModelError) as caught:
        await reply(model, asking(image, notices))

    assert caught.value.key == key and len(server.requests) == 1
    assert notices == [] and model.vision_state() == "on"
    if key == "images_refused":
        assert "does not take images (400)" in str(caught.value)
        assert "不接受图片" in caught.value.sentence("zh")
    await model.aclose()


async def test_a_session_remembers_each_model_once_for_all_its_model_objects(serve, image):
    server = serve(text_only_replies(["Answer: one", "Answer: two"]))
    memory = VisionMemory()
    first = make_model(server, vision_memory=memory)
    notices: list[str] = []
    await reply(first, asking(image, notices))
    await first.aclose()

    # Made again (its settings changed and changed back): what was learned still holds.
    again = make_model(server, vision_memory=memory)
    assert again.vision_state() == "text"
    await reply(again, asking(image, notices))
    assert len(server.requests) == 3 and len(notices) == 1
    await again.aclose()


def test_the_note_names_each_image_by_id_size_and_kind_and_the_tools_that_look(image, store):
    made = store.load(image.path)  # the same image again: the same id
    messages = [user_message("Compare img_1 with this", [image], "auto")]
    messages.append({"role": "assistant", "content": "Thought: zoom"})
    messages.append(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Images the tools made: img_1 from call c1 (zoom)"},
                {"type": "image_url", "image_url": {"url": made.data_url()}},
            ],
        }
    )

    changed = text_only(messages, ["read_text", "zoom", "calculator"])

    assert messages[0]["content"][1]["type"] == "image_url"  # the original is left alone
    first, _, third = changed
    assert first["content"].startswith("Compare img_1 with this\n[Images: img_1 (64x32)]")
    assert "text only: img_1 (64x32 PNG image)" in first["content"]
    assert "read_text reads its text" in first["content"] and "zoom enlarges" in first["content"]
    assert "scan_code" not in first["content"]  # not among this turn's tools
    assert "img_1 (64x32 PNG image)" in third["content"]
    assert changed[1] is messages[1]
