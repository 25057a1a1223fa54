"""Keeping conversations costs what changed: tabs of one browser each keep their own, a save
carries only what is new in the conversation that changed, and a message whose turn had not
started when the page went comes back with its images. The handlers are called directly; the
browser's storage is the page's own script in Node (`tests/support/history_browser.py`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.config import Settings
from agent.models import OfflineModel
from tests.support.history_browser import CONVERSATION, INDEX, BrowserStorage
from tools.calculator import Calculator
from tools.image_info import ImageInfo
from ui.conversations import restore as restore_module
from ui.conversations.handlers import History
from ui.conversations.restore import restore
from ui.conversations.snapshot import snapshot
from ui.conversations.stored import read_loaded
from ui.handlers import PageHandlers

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
IMAGES = ["label.png", "receipt.png", "sign.png"]
SIZES = ["1600x1000", "700x900", "900x520"]  # what image_info says of each
SETTINGS = ["source", "base_url", "model", "api_key", "temperature", "max_steps"]


pytestmark = pytest.mark.usefixtures("no_model_env")


@pytest.fixture
def browser():
    with BrowserStorage() as storage:
        yield storage


@pytest.fixture
def uploads(tmp_path, monkeypatch):
    """The example images as the page would have uploaded them (in Gradio's upload folder)."""
    folder = tmp_path / "gradio"
    monkeypatch.setattr(restore_module, "get_upload_folder", lambda: str(folder))
    paths = []
    for name in IMAGES:
        (folder / name[:4]).mkdir(parents=True)
        paths.append(str(shutil.copy(EXAMPLES / name, folder / name[:4] / name)))
    return paths


def offline() -> tuple[PageHandlers, History]:
    # Many turns a minute: the turn limits are not what these tests are about.
    limits = {"AGENT_TURNS_PER_MINUTE": 0, "AGENT_CLIENT_TURNS_PER_MINUTE": 0}
    env = Settings(**limits, AGENT_SERVER_TURNS_PER_MINUTE=0)
    page = PageHandlers(lambda prefs: OfflineModel(), env, [Calculator(), ImageInfo()])
    return page, History(page, SETTINGS)


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


async def send(panel: History, page: PageHandlers, tab, state, text: str, files=()) -> list[str]:
    """A message sent from `tab` as the page sends it; returns the changes the browser got."""
    message = {"text": text, "files": list(files)}
    tab.sending(message)
    _box, taken, state, patch = await panel.taking(page.take)(message, state)
    patches = [patch]
    tab.apply(patch)
    async for update in panel.saving(page.send)(taken, state):
        patches.append(update[4])
        tab.apply(update[4])
    patches.append(panel.save(state, tab.lost())[0])
    tab.apply(patches[-1])
    return [p for p in patches if isinstance(p, str)]


def titles(choices: list[tuple[str, str]]) -> list[str]:
    """The titles of the list's entries, without their turns and times."""
    return [label.split(" · ")[0] for label, _ in choices]


def opened(page: PageHandlers, panel: History, tab):
    """The page opened (or reloaded) in `tab`: its state, its chat and its list."""
    state = page.new_state()
    shown = panel.load(state, tab.payload())
    tab.apply(shown[5])
    return state, shown[0], shown[6]


async def test_each_tab_after_a_reload_shows_its_own_and_the_other_in_the_list(browser):
    page, panel = offline()
    one, two = browser.tab("one"), browser.tab("two")
    first, *_ = opened(page, panel, one)
    second, *_ = opened(page, panel, two)
    await send(panel, page, one, first, "what is 6*7")
    await send(panel, page, two, second, "what is 2+2")
    await send(panel, page, one, first, "what is 3+3")
    shown = {}
    for name, tab in (("one", one), ("two", two)):
        tab.reload()
        state, chat, listed = opened(page, panel, tab)
        shown[name] = ([m["content"] for m in chat if m["role"] == "user"], listed.choices)
        state.close()
    assert shown["one"][0] == [["what is 6\\*7"], ["what is 3+3"]]  # shown as typed
    assert titles(shown["one"][1]) == ["what is 2+2"]
    assert shown["two"][0] == [["what is 2+2"]]
    assert titles(shown["two"][1]) == ["what is 6*7"]
    first.close()
    second.close()


async def test_a_save_carries_what_is_new_in_its_conversation_and_nothing_else(browser):
    page, panel = offline()
    tab = browser.tab("old")
    state, *_ = opened(page, panel, tab)
    # Ten conversations of six turns each, kept by this browser.
    for number in range(10):
        for turn in range(6):
            await send(panel, page, tab, state, f"what is {number}*{turn + 7}")
        if number < 9:
            panel.new(state)
    kept = sum(len(v) for k, v in browser.local().items() if k.startswith(CONVERSATION))
    # A new tab: what it sends up as it loads is the list, not the conversations.
    fresh = browser.tab("new")
    up = fresh.payload()
    assert len(up) < 3_000 < kept
    state, chat, listed = opened(page, panel, fresh)
    assert chat == [] and len(listed.choices) == 10
    others = {e["id"] for e in read_loaded(up).index}
    patches = await send(panel, page, fresh, state, "what is 50*3")
    assert all(conversation not in p for p in patches for conversation in others)
    # Each change carries the conversation's small fields and what is new, however much the
    # browser keeps: far less than one of the conversations it keeps.
    assert sum(len(p.encode()) for p in patches) < kept / 10
    # A second turn sends the first again in none of its changes.
    patches = await send(panel, page, fresh, state, "what is 60*3")
    sent = [op for p in patches for op in json.loads(p)["ops"] if op["op"] == "put"]
    turns = {t["text"] for op in sent for t in op["lists"]["turns"][2]}
    memory = {t["user_text"] for op in sent for t in op["lists"]["history"][2]}
    assert turns == memory == {"what is 60*3"}
    state.close()


async def test_a_message_the_server_never_said_it_took_comes_back_with_its_images(browser, uploads):
    page, panel = offline()
    tab = browser.tab()
    state, *_ = opened(page, panel, tab)
    await send(panel, page, tab, state, "what is 6*7")
    # Sent with three images; the page went before the server's answer came.
    tab.sending({"text": "How big is each image?", "files": uploads})
    tab.reload()
    again, chat, _ = opened(page, panel, tab)
    assert chat[2]["content"][0] == "How big is each image?"
    assert [len(r.refs) for r in again.turns] == [0, 3] and again.turns[-1].view.stopped
    # The browser keeps it now as the server does: a second reload shows it again, and the
    # message is no longer waiting in the tab.
    tab.reload()
    assert json.loads(tab.payload())["pending"] is None
    third, chat, _ = opened(page, panel, tab)
    assert chat[2]["content"][0] == "How big is each image?"
    assert [len(r.refs) for r in third.turns] == [0, 3]
    # Retry answers about the three of them.
    *_, (chat, _, _, _) = await run(page.retry(third))
    assert all(size in chat[-1]["content"] for size in SIZES)
    for s in (state, again, third):
        s.close()


@pytest.mark.parametrize("moment", ["taken", "started"])
async def test_a_reload_before_the_turn_ends_keeps_the_question_and_its_images(
    browser, uploads, moment
):
    page, panel = offline()
    tab = browser.tab()
    state, *_ = opened(page, panel, tab)
    message = {"text": "How big is each image?", "files": uploads}
    tab.sending(message)
    _box, taken, state, patch = await panel.taking(page.take)(message, state)
    tab.apply(patch)
    if moment == "started":  # the turn has started, its images prepared, and it saved itself
        turn = panel.saving(page.send)(taken, state)
        tab.apply((await anext(turn))[4])
        await turn.aclose()
    tab.reload()
    again, chat, _ = opened(page, panel, tab)
    assert chat[0]["content"][0] == "How big is each image?" and len(again.turns[0].refs) == 3
    *_, (chat, _, _, _) = await run(page.retry(again))
    assert all(size in chat[-1]["content"] for size in SIZES)
    state.close()
    again.close()


async def test_an_upload_outside_gradios_folder_is_never_read(browser, uploads, tmp_path):
    page, panel = offline()
    tab = browser.tab()
    secret = shutil.copy(EXAMPLES / "label.png", tmp_path / "elsewhere.png")
    tab.sending({"text": "How big is each image?", "files": [str(secret), "../" + uploads[0]]})
    tab.reload()
    state, chat, _ = opened(page, panel, tab)
    assert chat[0]["content"] == ["How big is each image?"] and state.turns[0].refs == []
    state.close()


async def test_a_conversation_the_browser_lost_is_sent_whole_at_the_next_save(browser):
    page, panel = offline()
    one, two = browser.tab("one"), browser.tab("two")
    first, *_ = opened(page, panel, one)
    await send(panel, page, one, first, "what is 6*7")
    # Another tab deletes it from the browser while this one still shows it.
    second, *_ = opened(page, panel, two)
    two.apply(panel.delete(first.conversation_id, second)[0])
    assert browser.kept(two)["conversations"] == []
    await send(panel, page, one, first, "what is 2+2")
    kept = browser.kept(one)["conversations"]
    assert [[t["text"] for t in c["turns"]] for c in kept] == [["what is 6*7", "what is 2+2"]]
    first.close()
    second.close()


async def test_when_the_browser_is_full_the_oldest_conversations_make_room():
    page, panel = offline()
    with BrowserStorage(limit=25_000) as browser:
        tab = browser.tab()
        state, *_ = opened(page, panel, tab)
        for number in range(12):
            await send(panel, page, tab, state, f"what is {number}*7")
            await send(panel, page, tab, state, f"what is {number}*8")
            panel.new(state)
        titles = [c["title"] for c in browser.kept(tab)["conversations"]]
        assert titles[0] == "what is 11*7" and 1 < len(titles) < 10
        assert titles == [f"what is {n}*7" for n in range(11, 11 - len(titles), -1)]
        state.close()


async def test_a_conversation_the_list_does_not_name_goes_back_in_it(browser):
    page, panel = offline()
    tab = browser.tab()
    state, *_ = opened(page, panel, tab)
    await send(panel, page, tab, state, "what is 6*7")
    browser.set(INDEX, None)  # as two tabs writing the list at once may leave it
    fresh = browser.tab("new")
    again, chat, listed = opened(page, panel, fresh)
    assert titles(listed.choices) == ["what is 6*7"] and chat == []
    state.close()
    again.close()


def test_only_a_last_turn_saved_before_its_images_were_prepared_prepares_them(uploads):
    page, _ = offline()
    turn = {"text": "How big is each image?", "status": "running", "uploads": uploads * 5}
    data = {"id": "ab", "turns": [{**turn, "number": 1}, {**turn, "number": 2}]}
    state = page.new_state()
    restore(state, data)
    # The first turn's uploads are not looked at; the last one's at most as many as a
    # message may have, each image once.
    assert state.turns[0].refs == [] and len(state.turns[1].refs) == 3
    assert len(state.session.images.refs()) == 3
    state.close()


async def test_the_changes_add_up_to_the_conversation_and_send_each_event_about_once(browser):
    page, panel = offline()
    tab = browser.tab()
    state, *_ = opened(page, panel, tab)
    patches = await send(panel, page, tab, state, "what is 6*7")
    patches += await send(panel, page, tab, state, "How big is this image?", [EXAMPLES / IMAGES[0]])
    kept = browser.kept(tab)["conversations"][0]
    whole = json.loads(json.dumps(snapshot(state), ensure_ascii=False))
    assert {**kept, "saved_at": 0} == {**whole, "saved_at": 0}
    # Each change of a turn carries its new events, and the last it had, which may have grown.
    sent = [
        event
        for patch in patches
        for op in json.loads(patch)["ops"]
        if op["op"] == "put"
        for turn in op["lists"]["turns"][2]
        for event in turn.get("events", [])
    ]
    events = sum(len(turn["events"]) for turn in whole["turns"])
    assert len(sent) <= events + len(patches)
    state.close()


def test_the_benchmark_keeps_conversations_as_the_page_does(browser):
    from bench.history_cost import make_conversations, storage_items

    made, sessions = make_conversations(2, 3)
    items, _ = storage_items(made)
    for key, value in items:
        browser.set(key, value)
    page, panel = offline()
    state, chat, listed = opened(page, panel, browser.tab())
    assert chat == [] and titles(listed.choices) == [c["title"] for c in made]
    tab = browser.tab()
    shown = panel.open(made[1]["id"], state, tab.conversation(made[1]["id"]))
    assert len([m for m in shown[0] if m["role"] == "user"]) == 3
    for s in (state, *sessions):
        s.close()


async def test_a_conversation_another_tab_has_opens_as_a_copy_and_both_keep_their_turns(
    browser,
):
    page, panel = offline()
    one, two = browser.tab("one"), browser.tab("two")
    first, *_ = opened(page, panel, one)
    await send(panel, page, one, first, "what is 11*11")
    kept_id = first.conversation_id
    second, *_ = opened(page, panel, two)
    assert two.held_elsewhere(kept_id) and not one.held_elsewhere(kept_id)
    # Tab two opens tab one's conversation from the list: it gets a copy of its own.
    sent = two.conversation(kept_id)
    opened_values = panel.open(kept_id, second, sent)
    two.apply(opened_values[5])
    assert second.conversation_id != kept_id
    assert [t.text for t in second.turns] == ["what is 11*11"]
    await send(panel, page, two, second, "what is 13*13")
    await send(panel, page, one, first, "what is 14*14")
    shown = {}
    for name, tab in (("one", one), ("two", two)):
        tab.reload()
        state, chat, _ = opened(page, panel, tab)
        shown[name] = [m["content"] for m in chat if m["role"] == "user"]
        state.close()
    assert shown["one"] == [["what is 11\\*11"], ["what is 14\\*14"]]
    assert shown["two"] == [["what is 11\\*11"], ["what is 13\\*13"]]  # nothing lost
    first.close()
    second.close()


async def test_a_conversation_another_tab_has_is_not_deleted_under_it(browser):
    page, panel = offline()
    one, two = browser.tab("one"), browser.tab("two")
    first, *_ = opened(page, panel, one)
    await send(panel, page, one, first, "what time is it in Tokyo")
    tokyo = first.conversation_id
    second, *_ = opened(page, panel, two)
    held = "held" if two.held_elsewhere(tokyo) else ""
    with pytest.warns(UserWarning, match="open in another tab"):
        deleted = panel.delete(tokyo, second, held)
    two.apply(deleted[0])
    await send(panel, page, one, first, "what is 15*15")
    one.reload()
    state, chat, _ = opened(page, panel, one)
    said = [m["content"] for m in chat]
    assert said[0] == ["what time is it in Tokyo"] and "225" in str(said[-1])
    assert "Stopped" not in str(said)
    state.close()
    first.close()
    second.close()
