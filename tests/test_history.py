"""The conversations a browser keeps (ui.conversations): saved, read back, restored and
continued."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from tests.conftest import Echo
from tools.convert_units import ConvertUnits
from tools.zoom import Zoom
from ui.conversations import kept as kept_module
from ui.conversations import restore as restore_module
from ui.conversations.kept import Kept
from ui.conversations.restore import restore, stored_file, uploaded_file
from ui.conversations.snapshot import snapshot, title_of, turn_data
from ui.conversations.stored import (
    FORMAT,
    TITLE_CHARS,
    VERSION,
    Loaded,
    read_conversation,
    read_loaded,
    size_of,
)
from ui.handlers import PageHandlers
from ui.page.values import chat_messages, trace_messages

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
KEY = "sk-test-never-in-the-browser-4242"


pytestmark = pytest.mark.usefixtures("no_model_env")


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


def offline_page(*tools) -> PageHandlers:
    return PageHandlers(lambda prefs: OfflineModel(), Settings(), list(tools))


def through_the_browser(value):
    """What the browser gives back: the value as JSON text, parsed again."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def saved_value(state) -> dict:
    """The page's conversation as the browser keeps it."""
    return through_the_browser(snapshot(state))


async def restored(page: PageHandlers, value: dict):
    """A fresh page state holding the browser's conversation, as a reload makes it."""
    conversation = read_conversation(json.dumps(value, ensure_ascii=False))
    assert conversation is not None
    state = page.new_state()
    restore(state, conversation)
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
    again = await restored(page, saved_value(state))
    page.make_model = lambda prefs: ScriptedModel([recall], name="fake")
    *_, (chat, _, _, _) = await run(page.chat({"text": "what did I ask before?"}, again))
    assert "capital of France?" in chat[-1]["content"]
    state.close()
    again.close()


async def test_a_stopped_turn_is_remembered_once_and_retry_after_a_reload_replaces_it():
    page = PageHandlers(
        lambda prefs: ScriptedModel(["Answer: Paris."], name="fake"), Settings(), []
    )
    *_, (_, _, state, _) = await run(page.chat({"text": "capital of France?"}, None))
    state.conversation_id = "a2"
    page.make_model = lambda prefs: ScriptedModel(["Answer: Rome."], delay=30.0, name="fake")
    stream = page.send({"text": "and of Italy?", "files": []}, state)
    async for _ in stream:
        if any(e.type == "run_started" for e in state.turns[-1].events):
            break
    await page.stop(state)
    await run(stream)
    kept = [(t.user_text, t.outcome) for t in state.session.history]
    assert kept == [("capital of France?", "answered"), ("and of Italy?", "stopped")]
    again = await restored(page, saved_value(state))
    assert again.session.history == state.session.history
    page.make_model = lambda prefs: ScriptedModel(["Answer: Rome."], name="fake")
    await run(page.retry(again))
    kept = [(t.user_text, t.outcome) for t in again.session.history]
    assert kept == [("capital of France?", "answered"), ("and of Italy?", "answered")]
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
    restore(again, read_conversation(json.dumps(value, ensure_ascii=False)))
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
    assert snapshot(state)["prefs"]["base_url"] == "https://example.com/v1"
    state.close()


def payload(**parts) -> str:
    """What the page sends as it loads (`assets/history.js`), with `parts` in it."""
    value = {"format": FORMAT, "version": VERSION, **parts}
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"unreadable": True}),
        "not a history",
        json.dumps(["a", "list"]),
        json.dumps({"format": "something else", "version": 2}),
        json.dumps({"format": FORMAT, "version": 99}),
        payload(index={"format": FORMAT, "version": 2, "conversations": "nope"}),
        payload(index="x" * 2_000_000),
        payload(unreadable=True),
    ],
)
def test_a_value_that_does_not_read_is_set_aside_and_flagged(text):
    loaded = read_loaded(text)
    assert loaded.problem and loaded.index == [] and loaded.current is None


def test_nothing_stored_is_no_problem():
    assert read_loaded("") == Loaded()
    assert read_loaded(payload()) == Loaded()


async def test_one_bad_conversation_goes_and_the_others_stay():
    page = offline_page(ConvertUnits())
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    good = snapshot(state)
    entry = {"id": good["id"], "title": good["title"], "saved_at": 2.0, "turns": 1}
    index = {"format": FORMAT, "version": 2, "conversations": [entry, {"id": "../x"}, 7]}
    loaded = read_loaded(payload(index=index, current_id=good["id"], current=good))
    assert loaded.problem
    assert [e["id"] for e in loaded.index] == [good["id"]] and loaded.current == good
    # The tab's conversation, with an event of no known type, is set aside, to be forgotten.
    bad_event = {**good, "turns": [{**good["turns"][0], "events": [{"type": "?"}]}]}
    loaded = read_loaded(payload(index=index, current_id=good["id"], current=bad_event))
    assert loaded.problem and loaded.current is None and loaded.unreadable == [good["id"]]
    assert [e["id"] for e in loaded.index] == [good["id"]]
    state.close()


def test_restore_refuses_a_conversation_of_the_wrong_shape():
    page = offline_page()
    state = page.new_state()
    with pytest.raises(ValueError):
        restore(state, {"id": "zz-not-hex", "turns": []})
    assert state.turns == []


def test_a_forged_file_name_is_never_looked_for():
    assert stored_file("session-abc", "../../etc/passwd") is None
    assert stored_file("..", "img_1-00112233.png") is None
    assert stored_file("session-abc/../x", "img_1-00112233.png") is None
    assert stored_file("session-nothere", "img_1-00112233.png") is None


def test_an_upload_is_looked_for_only_in_gradios_upload_folder(tmp_path, monkeypatch):
    uploads = tmp_path / "uploads"
    (uploads / "abc").mkdir(parents=True)
    (uploads / "abc" / "photo.png").write_bytes(b"x")
    (tmp_path / "secret.png").write_bytes(b"x")
    monkeypatch.setattr(restore_module, "get_upload_folder", lambda: str(uploads))
    assert uploaded_file(str(uploads / "abc" / "photo.png")) is not None
    assert uploaded_file(str(uploads / "abc" / ".." / ".." / "secret.png")) is None
    assert uploaded_file(str(tmp_path / "secret.png")) is None
    assert uploaded_file("abc/photo.png") is None  # relative: from where?
    assert uploaded_file(str(uploads)) is None
    assert uploaded_file("/etc/passwd") is None


async def test_the_list_keeps_the_newest_ten_and_a_conversation_fits_its_size(monkeypatch):
    page = offline_page(ConvertUnits())
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    kept = Kept()
    for number in range(12):
        state.conversation_id = f"{number:x}"
        kept.changes(state, now=float(number))
    assert [e["id"] for e in kept.index] == [f"{n:x}" for n in range(11, 1, -1)]
    assert kept.past("b")[0] == ("convert 5 miles · 1 turn · Jan 1, 1970 UTC", "a")
    # A conversation larger than a browser keeps of one leaves out its oldest turns.
    for text in ("km", "what is 6*7", "what is 2+2"):
        *_, (_, _, state, _) = await run(page.chat({"text": text}, state))
    sizes = [size_of(turn_data(r)) for r in state.turns]
    rest = size_of({**snapshot(state), "turns": []})  # its memory and all
    monkeypatch.setattr(kept_module, "CONVERSATION_BYTES", rest + sum(sizes[-2:]) + 10)
    state.conversation_id = "c0"
    (put,) = kept.changes(state)
    *_, items = put["lists"]["turns"]
    assert [t["text"] for t in items] == ["what is 6*7", "what is 2+2"]
    # The next turn sends itself alone, and the oldest turns kept make room for it.
    *_, (_, _, state, _) = await run(page.chat({"text": "what is 3+3"}, state))
    (put,) = kept.changes(state)
    cut, _, items = put["lists"]["turns"]
    assert cut >= 1 and [t["text"] for t in items] == ["what is 3+3"]
    # An empty conversation leaves the list.
    state.turns = []
    assert kept.changes(state) == [{"op": "drop", "id": "c0"}]
    assert kept.find("c0") is None
    state.close()


def test_titles_come_from_the_first_message():
    assert title_of("  what   is this?\n", "en") == "what is this?"
    assert title_of("", "zh") == "仅图片"
    long = title_of("word " * 40, "en")
    assert len(long) == TITLE_CHARS and long.endswith("…")


async def test_image_ids_of_a_shape_the_server_never_makes_are_refused():
    page = offline_page(Zoom())
    label = str(EXAMPLES / "label.png")
    *_, (_, _, state, _) = await run(page.chat({"text": "Zoom in", "files": [label]}, None))
    good = snapshot(state)
    forged = {**good, "images": [{**good["images"][0], "id": "../../x"}]}
    loaded = read_loaded(payload(current_id=good["id"], current=forged))
    assert loaded.problem and loaded.current is None
    with pytest.raises(ValueError):
        restore(page.new_state(), forged)
    state.close()


def test_every_setting_but_the_key_comes_back_from_the_browser():
    """ "Images to the model" was saved and dropped as it was read back, so a reload set it
    to Automatic again."""
    from dataclasses import fields

    from ui.conversations.snapshot import stored_prefs
    from ui.conversations.stored import valid_prefs
    from ui.page.state import Prefs

    chosen = Prefs(
        source="openai",
        base_url="https://example.com/v1",
        model="m",
        api_key="sk-secret",
        temperature=0.7,
        max_steps=7,
        image_detail="high",
        language="zh",
        style="plugin-task",
        tool_protocol="native",
        vision="off",
    )
    back = valid_prefs(json.loads(json.dumps(stored_prefs(chosen))))
    assert back == {f.name: getattr(chosen, f.name) for f in fields(Prefs) if f.name != "api_key"}
