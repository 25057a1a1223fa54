"""The saved conversations' handlers (ui.conversations.handlers) called directly, without a
page; the browser's storage is the page's own script in Node
(`tests/support/history_browser.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import gradio as gr
import pytest

from agent.config import Settings
from agent.models import OfflineModel
from tests.support.history_browser import INDEX, BrowserStorage
from tools.calculator import Calculator
from tools.convert_units import ConvertUnits
from tools.zoom import Zoom
from ui.conversations.handlers import History
from ui.conversations.snapshot import stored_prefs
from ui.handlers import PageHandlers
from ui.page.values import chat_messages

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SETTINGS = ["source", "base_url", "model", "api_key", "temperature", "max_steps"]
SETTINGS += ["image_detail", "language", "style"]


pytestmark = pytest.mark.usefixtures("no_model_env")


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


@pytest.fixture
def browser():
    with BrowserStorage() as storage:
        yield storage


def panel() -> tuple[PageHandlers, History]:
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits(), Calculator()])
    return page, History(page, SETTINGS)


async def test_a_reload_restores_the_settings_but_never_a_key(browser):
    page, panel_ = panel()
    tab = browser.tab()
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    state.prefs.api_key = "sk-secret"
    state.prefs.temperature = 0.6
    state.prefs.language = "zh"
    tab.apply(panel_.save(state)[0])
    assert "sk-secret" not in json.dumps(browser.local())
    tab.reload()
    fresh = page.new_state()
    chat, _, again, _, download, _, listed, *settings = panel_.load(fresh, tab.payload())
    assert chat == chat_messages(state) and again is fresh
    assert again.prefs.temperature == 0.6 and again.prefs.language == "zh"
    assert again.prefs.api_key == ""
    shown = dict(zip(SETTINGS, settings, strict=True))
    assert shown["temperature"] == 0.6 and shown["language"] == "zh"
    assert download.interactive and listed.choices == []
    state.close()
    fresh.close()


async def test_new_puts_the_conversation_in_the_list_and_open_brings_it_back(browser):
    page, panel_ = panel()
    tab = browser.tab()
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    first = state.conversation_id
    chat, _, state, _, _, saved, listed, *_ = panel_.new(state)
    tab.apply(saved)
    assert chat == [] and state.conversation_id != first
    assert browser.kept(tab)["current"] == state.conversation_id
    assert [value for _, value in listed.choices] == [first]
    *_, (_, _, state, _) = await run(page.chat({"text": "what is 6*7"}, state))
    second = state.conversation_id
    chat, _, state, _, _, saved, listed, *_ = panel_.open(first, state, tab.conversation(first))
    tab.apply(saved)
    assert chat[0]["content"] == ["convert 5 miles"] and state.conversation_id == first
    assert [value for _, value in listed.choices] == [second]
    *_, (chat, _, _, _) = await run(page.chat({"text": "km"}, state))
    assert "8.0" in chat[-1]["content"]
    saved, listed = panel_.delete(second, state)
    tab.apply(saved)
    kept = browser.kept(tab)
    assert listed.choices == [] and [c["id"] for c in kept["conversations"]] == [first]
    assert kept["current"] == first
    state.close()


async def test_clear_forgets_the_conversation_in_the_browser_too(browser):
    page, panel_ = panel()
    tab = browser.tab()
    *_, (_, _, state, _) = await run(page.chat({"text": "what is 6*7"}, None))
    tab.apply(panel_.save(state)[0])
    assert len(browser.kept(tab)["conversations"]) == 1
    *_, saved, _ = panel_.clear(state)
    tab.apply(saved)
    assert browser.kept(tab)["conversations"] == [] and state.turns == []


async def test_an_unreadable_value_starts_afresh_and_is_replaced(browser):
    page, panel_ = panel()
    tab = browser.tab()
    browser.set(INDEX, "not:json at all")
    fresh = page.new_state()
    with pytest.warns(UserWarning, match="could not be read and was set aside"):
        chat, _, state, _, _, saved, _, *settings = panel_.load(fresh, tab.payload())
    tab.apply(saved)
    kept = browser.kept(tab)
    assert chat == [] and kept["conversations"] == []
    assert kept["current"] == state.conversation_id
    assert kept["prefs"] == stored_prefs(state.prefs)  # the page's settings, afresh
    assert all(s is not None for s in settings)  # no setting changes
    fresh.close()


async def test_retry_after_a_restore_reruns_the_last_turn_without_doubling_the_memory(browser):
    page, panel_ = panel()
    tab = browser.tab()
    *_, (_, _, state, _) = await run(page.chat({"text": "what is 6*7"}, None))
    *_, (_, _, state, _) = await run(page.chat({"text": "what is 2+2"}, state))
    tab.apply(panel_.save(state)[0])
    tab.reload()
    fresh = page.new_state()
    panel_.load(fresh, tab.payload())
    *_, (chat, _, again, _) = await run(page.retry(fresh))
    assert len(chat) == 4 and "4" in chat[-1]["content"]
    assert [t.user_text for t in again.session.history] == ["what is 6*7", "what is 2+2"]
    state.close()
    fresh.close()


async def test_a_past_conversation_keeps_its_images_until_the_page_closes(browser):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [Zoom()])
    panel_ = History(page, SETTINGS)
    tab = browser.tab()
    message = {"text": "Zoom into the top left", "files": [str(EXAMPLES / "label.png")]}
    *_, (_, _, state, _) = await run(page.chat(message, None))
    first = state.conversation_id
    old_folder = Path(state.turns[0].refs[0].path).parent
    tab.apply(panel_.new(state)[5])
    assert old_folder.is_dir() and old_folder in state.folders()
    panel_.open(first, state, tab.conversation(first))
    assert state.turns[0].gone == [] and Path(state.turns[0].refs[0].path).is_file()
    state.close()
    assert not old_folder.exists() and state.folders() == []


async def test_a_message_is_saved_as_it_is_taken_and_its_turn_as_each_step_ends(browser):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [Zoom()])
    panel_ = History(page, SETTINGS)
    tab = browser.tab()
    state = page.new_state()
    take = panel_.taking(page.take)
    _box, taken, state, saved = await take({"text": "Zoom into the top left", "files": []}, state)
    tab.apply(saved)
    turns = browser.kept(tab)["conversations"][0]["turns"]
    assert [(t["text"], t["status"]) for t in turns] == [("Zoom into the top left", "running")]
    # The turn itself, with an image: saved as it starts and after each step, with the image.
    taken["files"] = [str(EXAMPLES / "label.png")]
    updates = await run(panel_.saving(page.send)(taken, state))
    copies = []
    for update in updates:
        if update[4] != gr.skip():
            tab.apply(update[4])
            copies.append(browser.kept(tab)["conversations"][0])
    assert len(copies) >= 3  # the start, the zoom's result, the answer's step
    first = copies[0]
    assert first["turns"][0]["images"] == ["img_1"] and first["turns"][0]["status"] == "running"
    during = [c["turns"][0]["events"] for c in copies]
    assert any(any(e["type"] == "tool_result" for e in events) for events in during)
    # Held back while a turn runs: nothing is saved for it, and the browser forgets it.
    state.running += 1
    (patch,) = (await take({"text": "again", "files": []}, state))[3:]
    assert json.loads(patch)["ops"] == [{"op": "untaken"}]
    state.running -= 1
    state.close()


async def test_a_page_load_after_a_message_was_taken_restores_nothing_over_it(browser):
    # The first message can be taken before the page's load has run; the browser may then
    # hand the load the copy that message was just saved in.
    page, panel_ = panel()
    tab = browser.tab()
    state = page.new_state()
    _box, taken, state, saved = await panel_.taking(page.take)(
        {"text": "what is 2+2", "files": []}, state
    )
    tab.apply(saved)
    panel_.load(state, tab.payload())
    assert state.turns == []  # nothing restored in the way of the turn about to start
    *_, (chat, _, state, status) = await run(page.send(taken, state))
    assert len(state.turns) == 1 and "4" in str(chat[-1]) and status
    state.close()


async def test_a_question_is_saved_with_its_pending_task_by_the_turn_itself(browser):
    # A reload right after the question, before the save that follows the turn, keeps the
    # task it asks for: the turn's own last save carries it.
    page, panel_ = panel()
    tab = browser.tab()
    state = page.new_state()
    _box, taken, state, saved = await panel_.taking(page.take)(
        {"text": "Convert 5 miles", "files": []}, state
    )
    tab.apply(saved)
    for update in await run(panel_.saving(page.send)(taken, state)):
        if update[4] != gr.skip():
            tab.apply(update[4])
    kept = browser.kept(tab)["conversations"][0]
    assert kept["task"]["tool"] == "convert_units" and kept["task"]["missing"] == ["to_unit"]
    tab.reload()
    again = page.new_state()
    panel_.load(again, tab.payload())
    *_, (chat, _, _, _) = await run(page.chat({"text": "km"}, again))
    assert "8.04672 km" in chat[-1]["content"]
    state.close()
    again.close()


async def test_a_list_another_tab_changed_is_shown_again_and_a_bad_one_changes_nothing(browser):
    page, panel_ = panel()
    one, two = browser.tab("one"), browser.tab("two")
    *_, (_, _, a, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    one.apply(panel_.save(a)[0])
    b = page.new_state()
    two.apply(panel_.load(b, two.payload())[5])
    *_, (_, _, b, _) = await run(page.chat({"text": "what is 6*7"}, b))
    two.apply(panel_.save(b)[0])
    listed = panel_.relist(None, a, one.index())
    assert [value for _, value in listed.choices] == [b.conversation_id]
    # Nothing new: nothing sent; the choice stays while it is listed.
    assert isinstance(panel_.relist(None, a, one.index()), type(gr.skip()))
    a.saved.shown = None
    assert panel_.relist(b.conversation_id, a, one.index()).value == b.conversation_id
    nested = '{"format": "multimodal-react-agent/history", "version": 2, "conversations": '
    nested += "[" * 100_000 + "]" * 100_000 + "}"
    for bad in (None, 7, "", "{", "x" * 10_000_000, nested, '{"conversations": "aliased"}'):
        assert isinstance(panel_.relist(None, a, bad), type(gr.skip()))
    # The page's own conversation stays listed as the server knows it, whatever is sent.
    assert [e["id"] for e in a.saved.index] == [a.conversation_id, b.conversation_id]
    a.close()
    b.close()


async def test_a_call_waiting_for_approval_and_an_always_survive_a_reload(browser):
    from agent.models import ScriptedModel
    from tests.test_approval import ORDER, SENT, Order
    from ui import approval_panel

    SENT.clear()
    queue = [[ORDER], ["Answer: ordered."], [ORDER, "Answer: again."]]

    def model(prefs):  # a model per turn, with that turn's replies
        return ScriptedModel(queue.pop(0) if queue else [], name="fake")

    page = PageHandlers(model_factory=model, env=Settings(), tools=[Order(), Calculator()])
    panel_ = History(page, SETTINGS)
    tab = browser.tab()
    *_, (_, _, state, _) = await run(page.chat({"text": "order tea"}, None))
    tab.apply(panel_.save(state)[0])
    tab.reload()
    fresh = page.new_state()
    tab.apply(panel_.load(fresh, tab.payload())[5])
    group, call, code, _ = approval_panel.refresh(fresh)
    assert group["visible"] is True and "**order**" in call
    approve = approval_panel.decide(page, "approve")
    *_, (chat, _, fresh, _) = await run(approve(fresh, code, True))
    assert SENT == [{"item": "tea", "count": 2}] and chat[-1]["content"] == "ordered."
    tab.apply(panel_.save(fresh)[0])
    tab.reload()
    again = page.new_state()
    tab.apply(panel_.load(again, tab.payload())[5])
    assert again.session.allowed_tools == ["order"]
    *_, (chat, _, again, _) = await run(page.chat({"text": "order tea again"}, again))
    assert chat[-1]["content"] == "again." and len(SENT) == 2  # not asked again
    for each in (state, fresh, again):
        each.close()


def test_a_forged_waiting_call_whose_steps_do_not_read_is_no_call():
    from ui.conversations.stored import StoredConversation

    pending = {"call_id": "c1", "tool": "order", "arguments": {}, "task": {"tool": "order"}}
    kept = {"id": "abc", "turns": [], "approval": {**pending, "steps": [{"nonsense": 1}]}}
    assert StoredConversation.model_validate(kept).approval is None
    kept["allowed_tools"] = ["../../etc"]
    with pytest.raises(ValueError):
        StoredConversation.model_validate(kept)


async def test_a_base_url_that_is_no_url_is_said_again_after_a_reload(browser):
    page, panel_ = panel()
    tab = browser.tab()
    state = page.new_state()
    page.set_pref("base_url")("abc", state)
    tab.apply(panel_.save(state)[0])
    tab.reload()
    fresh = page.new_state()
    panel_.load(fresh, tab.payload())
    assert fresh.prefs.base_url == "abc"
    # The field's change, as the restored value reaches it, says it under the fields.
    page.set_pref("base_url")("abc", fresh)
    notice = page.settings_notice(again=True)(fresh)
    assert notice.visible and "http://" in notice.value
