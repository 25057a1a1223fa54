"""The conversations a browser keeps (ui.history): saved, read back, restored and continued."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from tests.conftest import Echo
from tools.convert_units import ConvertUnits
from tools.zoom import Zoom
from ui import history
from ui.handlers import PageHandlers
from ui.page_values import chat_messages, trace_messages

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
KEY = "sk-test-never-in-the-browser-4242"


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


def offline_page(*tools) -> PageHandlers:
    return PageHandlers(lambda prefs: OfflineModel(), Settings(), list(tools))


def through_the_browser(value):
    """What the browser gives back: the value as JSON text, parsed again."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def saved_value(state) -> dict:
    return through_the_browser(
        history.put(history.empty(), history.snapshot(state), state.conversation_id)
    )


async def restored(page: PageHandlers, value: dict):
    """A fresh page state holding the browser's current conversation, as a reload makes it."""
    stored, problem = history.read(value)
    assert not problem
    state = page.new_state()
    history.restore(state, history.find(stored, stored["current"]))
    return state


async def test_a_conversation_comes_back_with_its_chat_trace_and_memory():
    page = offline_page(ConvertUnits())
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    state.prefs.temperature = 0.7
    state.conversation_id = "ab"
    value = saved_value(state)
    again = await restored(page, value)
    assert chat_messages(again) == chat_messages(state)
    assert trace_messages(again) == trace_messages(state)
    assert again.session.history == state.session.history
    assert again.session.task == state.session.task and again.session.task is not None
    assert again.conversation_id == "ab" and again.trace_file
    # The restored task goes on: the unit it asked for finishes the conversion.
    *_, (chat, _, _, _) = await run(page.chat({"text": "km"}, again))
    assert len(chat) == 4 and "8.0" in chat[-1]["content"]
    state.close()
    again.close()


async def test_the_agent_remembers_earlier_turns_after_a_restore():
    def recall(request):
        earlier = [m["content"] for m in request.messages if m["role"] == "user"][:-1]
        return f"Answer: you asked {earlier}"

    page = PageHandlers(
        lambda prefs: ScriptedModel(["Answer: Paris.", recall], name="fake"), Settings(), []
    )
    *_, (_, _, state, _) = await run(page.chat({"text": "capital of France?"}, None))
    state.conversation_id = "a1"
    again = await restored(page, history.put(history.empty(), history.snapshot(state), "a1"))
    page.make_model = lambda prefs: ScriptedModel([recall], name="fake")
    *_, (chat, _, _, _) = await run(page.chat({"text": "what did I ask before?"}, again))
    assert "capital of France?" in chat[-1]["content"]
    state.close()
    again.close()


async def test_images_come_back_and_a_gone_one_says_so_on_the_page_and_to_the_agent():
    page = offline_page(Zoom())
    label = str(EXAMPLES / "label.png")
    *_, (_, _, state, _) = await run(
        page.chat({"text": "Zoom into the top left", "files": [label]}, None)
    )
    state.conversation_id = "b2"
    value = saved_value(state)
    again = await restored(page, value)
    assert [r.id for r in again.turns[0].refs] == ["img_1"]
    assert Path(again.turns[0].refs[0].path).is_file()
    assert Path(again.turns[0].refs[0].path).parent != Path(state.turns[0].refs[0].path).parent
    again.close()

    state.close()  # the server's copies are gone now
    gone = await restored(page, value)
    chat = chat_messages(gone)
    assert chat[0]["content"] == ["Zoom into the top left", "[Image img_1 is no longer available]"]
    assert gone.turns[0].refs == [] and gone.turns[0].gone == ["img_1"]
    remembered = gone.session.history[0]
    assert remembered.image_ids == []
    assert remembered.user_text.endswith("[Images no longer available: img_1]")
    # Asked about it, a tool says the image is gone; a new upload does not take its id.
    *_, (chat, _, _, _) = await run(page.chat({"text": "zoom into img_1"}, gone))
    assert "no longer available" in chat[-1]["content"]
    *_, (_, _, _, _) = await run(page.chat({"text": "zoom in", "files": [label]}, gone))
    assert gone.turns[-1].refs[0].id not in ("img_1", "img_2")
    gone.close()


async def test_a_model_that_calls_a_tool_on_a_gone_image_is_told_it_is_gone():
    page = offline_page(Zoom())
    label = str(EXAMPLES / "label.png")
    *_, (_, _, state, _) = await run(page.chat({"text": "Zoom in", "files": [label]}, None))
    value = saved_value(state)
    state.close()
    gone = await restored(page, value)
    zoom = 'Action: zoom\nAction Input: {"image_id": "img_1", "region": "top left"}'
    model = ScriptedModel([zoom, "Answer: gone."], name="fake")
    page.make_model = lambda prefs: model
    await run(page.chat({"text": "zoom into img_1 again"}, gone))
    seen = json.dumps(model.requests[-1].messages, ensure_ascii=False)
    assert "Image img_1 is no longer available on the server" in seen
    assert "[Images no longer available: img_1]" in seen
    gone.close()


async def test_a_chinese_page_says_the_image_is_gone_in_chinese():
    page = offline_page(Zoom())
    label = str(EXAMPLES / "label.png")
    state = page.new_state()
    state.prefs.language = "zh"
    *_, (_, _, state, _) = await run(page.chat({"text": "放大左上角", "files": [label]}, state))
    value = saved_value(state)
    state.close()
    again = page.new_state()
    again.prefs.language = "zh"
    history.restore(again, history.find(*history.read(value)[:1], value["current"]))
    assert chat_messages(again)[0]["content"][-1] == "[图片 img_1 已不可用]"
    again.close()


async def test_the_api_key_and_credentials_are_never_in_the_stored_value():
    page = PageHandlers(
        lambda prefs: ScriptedModel(["Answer: fine."], name="fake"), Settings(), [Echo()]
    )
    state = page.new_state()
    state.prefs.api_key = KEY
    state.prefs.source = "openai"
    state.prefs.base_url = "https://user:secretpass@example.com/v1?token=abc"
    *_, (_, _, state, _) = await run(page.chat({"text": f"my key is not {KEY[:5]}"}, state))
    text = json.dumps(saved_value(state), ensure_ascii=False)
    assert KEY not in text and "api_key" not in text
    assert "secretpass" not in text and "token=abc" not in text
    assert history.snapshot(state)["prefs"]["base_url"] == "https://example.com/v1"
    state.close()


@pytest.mark.parametrize(
    "value",
    [
        {"unreadable": True},
        "not a history",
        ["a", "list"],
        {"format": "something else", "version": 1, "conversations": []},
        {"format": history.FORMAT, "version": 99, "conversations": []},
        {"format": history.FORMAT, "version": 1, "conversations": "nope"},
        {"format": history.FORMAT, "version": 1, "conversations": [], "x": "y" * 2_000_000},
    ],
)
def test_a_value_that_does_not_read_is_set_aside_and_flagged(value):
    stored, problem = history.read(value)
    assert problem and stored == history.empty()


def test_nothing_stored_is_no_problem():
    assert history.read(None) == (history.empty(), False)


async def test_one_bad_conversation_goes_and_the_others_stay():
    page = offline_page(ConvertUnits())
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    good = history.snapshot(state)
    bad_event = {**good, "id": "bad1", "turns": [{**good["turns"][0], "events": [{"type": "?"}]}]}
    bad_shape = {**good, "id": "bad2", "turns": "no"}
    value = {**history.empty(good["id"]), "conversations": [bad_event, good, bad_shape, 7]}
    stored, problem = history.read(through_the_browser(value))
    assert problem
    assert [c["id"] for c in stored["conversations"]] == [good["id"]]
    assert stored["current"] == good["id"]
    state.close()


def test_restore_refuses_a_conversation_of_the_wrong_shape():
    page = offline_page()
    state = page.new_state()
    with pytest.raises(ValueError):
        history.restore(state, {"id": "zz-not-hex", "turns": []})
    assert state.turns == []


def test_a_forged_file_name_is_never_looked_for():
    assert history.stored_file("session-abc", "../../etc/passwd") is None
    assert history.stored_file("..", "img_1-00112233.png") is None
    assert history.stored_file("session-abc/../x", "img_1-00112233.png") is None
    assert history.stored_file("session-nothere", "img_1-00112233.png") is None


async def test_the_list_keeps_the_newest_ten_and_fits_the_size_limit(monkeypatch):
    page = offline_page(ConvertUnits())
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    saved = history.empty()
    for number in range(12):
        state.conversation_id = f"{number:x}"
        saved = history.put(saved, history.snapshot(state), state.conversation_id)
    ids = [c["id"] for c in saved["conversations"]]
    assert ids == [f"{n:x}" for n in range(11, 1, -1)]
    assert history.past(saved, "b")[0] == ("convert 5 miles", "a")
    monkeypatch.setattr(history, "MAX_BYTES", history.size_of(history.snapshot(state)) * 3)
    saved = history.put(saved, history.snapshot(state), "b")
    assert history.size_of(saved) <= history.MAX_BYTES and len(saved["conversations"]) == 2
    assert saved["conversations"][0]["id"] == "b"
    # An empty conversation leaves the list.
    assert history.put(saved, None, "b")["conversations"][0]["id"] != "b"
    assert history.drop(saved, "b")["current"] is None
    state.close()


def test_titles_come_from_the_first_message():
    assert history.title_of("  what   is this?\n", "en") == "what is this?"
    assert history.title_of("", "zh") == "仅图片"
    long = history.title_of("word " * 40, "en")
    assert len(long) == history.TITLE_CHARS and long.endswith("…")


async def test_image_ids_of_a_shape_the_server_never_makes_are_refused():
    page = offline_page(Zoom())
    label = str(EXAMPLES / "label.png")
    *_, (_, _, state, _) = await run(page.chat({"text": "Zoom in", "files": [label]}, None))
    good = history.snapshot(state)
    forged = {**good, "images": [{**good["images"][0], "id": "../../x"}]}
    stored, problem = history.read({**history.empty(good["id"]), "conversations": [forged]})
    assert problem and stored["conversations"] == []
    with pytest.raises(ValueError):
        history.restore(page.new_state(), forged)
    state.close()
