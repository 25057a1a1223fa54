"""Clear and Delete can be undone for a few seconds (ui.conversations.undo), and the list of
past conversations says each one's turns and when it was last used (ui.conversations.listed):
the handlers called directly, the browser's storage being the page's own script in Node
(`tests/support/history_browser.py`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import gradio as gr
import pytest

from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from tests.support.history_browser import CONVERSATION, INDEX, BrowserStorage
from tools.calculator import Calculator
from tools.convert_units import ConvertUnits
from tools.zoom import Zoom
from ui.conversations import undo as undo_module
from ui.conversations.handlers import History
from ui.conversations.kept import Kept
from ui.conversations.listed import browser_zone, entry_label
from ui.conversations.undo import GRACE_SECONDS, UNDO_SECONDS, Undo
from ui.handlers import PageHandlers
from ui.page.values import chat_messages, status_text, trace_messages

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SETTINGS = ["source", "base_url", "model", "api_key", "temperature", "max_steps"]
SETTINGS += ["image_detail", "language", "style"]
# The outputs of Undo Clear: chat, trace, state, status, download, changes, list, settings...,
# then its offer.
CHANGES, LIST = 5, 6


pytestmark = pytest.mark.usefixtures("no_model_env")


@pytest.fixture
def browser():
    with BrowserStorage() as storage:
        yield storage


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


def panel(model: Callable[[], Any] = OfflineModel) -> tuple[PageHandlers, History, Undo]:
    # Many turns a minute: the turn limits are not what these tests are about.
    limits = (
        "AGENT_TURNS_PER_MINUTE",
        "AGENT_CLIENT_TURNS_PER_MINUTE",
        "AGENT_SERVER_TURNS_PER_MINUTE",
    )
    env = Settings(**dict.fromkeys(limits, 0))
    page = PageHandlers(lambda prefs: model(), env, [ConvertUnits(), Calculator(), Zoom()])
    history = History(page, SETTINGS)
    return page, history, Undo(history)


def opened(history: History, page: PageHandlers, tab):
    state = page.new_state()
    tab.apply(history.load(state, tab.payload())[CHANGES])
    return state


async def send(history: History, page: PageHandlers, tab, state, text: str, files=()) -> None:
    """A message sent from `tab` as the page sends it, each change applied in the browser."""
    message = {"text": text, "files": list(files)}
    tab.sending(message)
    _box, taken, state, patch = await history.taking(page.take)(message, state)
    tab.apply(patch)
    async for update in history.saving(page.send)(taken, state):
        tab.apply(update[4])
    tab.apply(history.save(state, tab.lost())[0])


def said(chat: list[dict]) -> list:
    """The chat's words, without where its images are."""
    return [m["content"] if isinstance(m["content"], str) else m["content"][0] for m in chat]


def titles(browser: BrowserStorage, tab) -> list[str]:
    return [c["title"] for c in browser.kept(tab)["conversations"]]


def shown(update) -> bool | None:
    """Whether an offer's update shows it (None: left as it is)."""
    return update.get("visible") if isinstance(update, dict) else None


def aged(state, kept: Kept, seconds: float) -> None:
    """What Clear or Delete kept, as if it had been `seconds` ago."""
    if state.aside is not None:
        state.aside.at -= seconds
    kept.deleted = [(entry, at - seconds) for entry, at in kept.deleted]


# -- Clear ------------------------------------------------------------------------------------


async def test_undo_clear_gives_back_everything_and_the_browser_keeps_it_again(browser):
    page, history, undo = panel()
    tab, other = browser.tab("one"), browser.tab("two")
    state = opened(history, page, tab)
    await send(history, page, tab, state, "convert 5 miles")
    await send(history, page, tab, state, "zoom in", [EXAMPLES / "label.png"])
    before = (chat_messages(state), trace_messages(state), state.trace_file)
    memory, images = state.session.history, state.session.images.refs()
    first = state.conversation_id
    saved_at = browser.kept(tab)["conversations"][0]["saved_at"]
    *values, saved, _ = history.clear(state)
    tab.apply(saved)
    assert values[0] == [] and titles(browser, tab) == []
    assert Path(before[2] or "").exists() and Path(images[0].path).exists()  # kept a moment
    clear_row, delete_row, _, timer = undo.offer(state)
    assert shown(clear_row) is True and shown(delete_row) is False and timer.active
    assert shown(undo.tick(state)[1]) is None  # still offered a second later
    out = undo.undo_clear(state)
    tab.apply(out[CHANGES])
    assert shown(out[-1]) is False and state.conversation_id == first
    assert (out[0], out[1], state.trace_file) == before
    assert state.session.history is memory and state.session.images.refs() == images
    assert out[4].interactive  # the download is back
    kept = browser.kept(tab)
    assert kept["current"] == first and titles(browser, tab) == ["convert 5 miles"]
    assert kept["conversations"][0]["saved_at"] == saved_at  # last used when it was
    assert len(kept["conversations"][0]["turns"]) == 2
    # Another tab's list and a reload have it back.
    assert json.loads(other.index())["conversations"][0]["id"] == first
    tab.reload()
    again = opened(history, page, tab)
    assert said(chat_messages(again)) == said(before[0])  # its images copied again
    assert again.session.history == memory
    assert [r.id for r in again.session.images.refs()] == [r.id for r in images]
    # The offer has ended: the timer stops.
    assert undo.tick(state)[3].active is False
    state.close()
    again.close()


async def test_undo_clear_brings_back_a_call_waiting_for_approval(browser):
    from tests.test_approval import ORDER, SENT, Order
    from ui import approval_panel

    SENT.clear()
    page = PageHandlers(lambda prefs: ScriptedModel([ORDER]), Settings(), [Order()])
    history = History(page, SETTINGS)
    undo = Undo(history)
    tab = browser.tab()
    state = opened(history, page, tab)
    await send(history, page, tab, state, "order tea")
    pending = state.session.approval
    assert pending is not None
    tab.apply(history.clear(state)[-2])
    assert approval_panel.refresh(state)[0]["visible"] is False
    tab.apply(undo.undo_clear(state)[CHANGES])
    assert state.session.approval is pending
    assert approval_panel.refresh(state)[0]["visible"] is True
    tab.reload()
    again = opened(history, page, tab)
    assert again.session.approval == pending  # the browser's copy has it too
    assert SENT == []
    state.close()
    again.close()


async def test_undo_clear_twice_or_after_the_window_says_so_and_changes_nothing(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state = opened(history, page, tab)
    await send(history, page, tab, state, "what is 6*7")
    tab.apply(history.clear(state)[-2])
    tab.apply(undo.undo_clear(state)[CHANGES])
    first = state.conversation_id
    with pytest.warns(UserWarning, match="can no longer be brought back"):
        out = undo.undo_clear(state)
    assert out[CHANGES] == gr.skip() and state.conversation_id == first
    assert len(state.turns) == 1 and titles(browser, tab) == ["what is 6*7"]
    # Cleared again, and too late: it stays cleared, and its files go.
    tab.apply(history.clear(state)[-2])
    folder = Path(state.aside.folders[1] or "") if state.aside else None
    aged(state, history.kept(state), UNDO_SECONDS + GRACE_SECONDS)
    with pytest.warns(UserWarning, match="can no longer be brought back"):
        out = undo.undo_clear(state)
    assert out[0] == [] and state.turns == [] and titles(browser, tab) == []
    assert state.aside is None and folder is not None and not folder.exists()
    state.close()


async def test_the_offer_leaves_the_page_after_its_seconds_and_the_kept_files_after_the_grace(
    browser,
):
    page, history, undo = panel()
    tab = browser.tab()
    state = opened(history, page, tab)
    await send(history, page, tab, state, "zoom in", [EXAMPLES / "label.png"])
    image = Path(state.session.images.refs()[0].path)
    tab.apply(history.clear(state)[-2])
    aged(state, history.kept(state), UNDO_SECONDS)
    _, clear_row, _, timer = undo.tick(state)
    assert shown(clear_row) is False and timer == gr.skip() and image.exists()
    aged(state, history.kept(state), GRACE_SECONDS)
    _, clear_row, _, timer = undo.tick(state)
    assert timer.active is False and not image.exists() and state.aside is None
    state.close()


async def test_once_the_tab_has_gone_on_clear_is_no_longer_undone(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state = opened(history, page, tab)
    await send(history, page, tab, state, "what is 6*7")
    tab.apply(history.clear(state)[-2])
    await send(history, page, tab, state, "what is 2+2")
    assert shown(undo.tick(state)[1]) is False
    with pytest.warns(UserWarning, match="can no longer be brought back"):
        undo.undo_clear(state)
    assert [c["title"] for c in browser.kept(tab)["conversations"]] == ["what is 2+2"]
    assert chat_messages(state)[0]["content"] == ["what is 2+2"]
    # Another conversation opened in the tab: the same.
    first = state.conversation_id
    tab.apply(history.new(state)[CHANGES])
    await send(history, page, tab, state, "what is 3+3")
    tab.apply(history.clear(state)[-2])
    tab.apply(history.open(first, state, tab.conversation(first))[CHANGES])
    assert state.aside is None  # let go of at once
    with pytest.warns(UserWarning, match="can no longer be brought back"):
        out = undo.undo_clear(state)
    assert state.conversation_id == first and chat_messages(state) == out[0]
    assert titles(browser, tab) == ["what is 2+2"]
    state.close()


async def test_a_turn_cleared_while_it_runs_ends_at_once_and_comes_back_stopped(browser):
    reply = "Thought: I will take my time with this one.\nAnswer: late"
    page, history, undo = panel(lambda: ScriptedModel([reply], delay=0.05))
    tab = browser.tab()
    state = opened(history, page, tab)
    message = {"text": "anything", "files": []}
    _box, taken, state, patch = await history.taking(page.take)(message, state)
    tab.apply(patch)
    turn = history.saving(page.send)(taken, state)
    tab.apply((await anext(turn))[4])
    *values, saved, _ = history.clear(state)
    tab.apply(saved)
    assert values[0] == [] and state.turns == []  # as before: the page empties at once
    async for update in turn:  # the turn ends, stopped, and shows nothing of itself
        assert update[0] == [] or update[0] == gr.skip()
        tab.apply(update[4])
    tab.apply(history.save(state)[0])
    assert titles(browser, tab) == []
    out = undo.undo_clear(state)
    tab.apply(out[CHANGES])
    assert out[0][-1] == {"role": "assistant", "content": "Stopped before it finished."}
    assert browser.kept(tab)["conversations"][0]["turns"][-1]["status"] == "stopped"
    state.close()


# -- Delete -----------------------------------------------------------------------------------


async def delete_second(history, page, tab, browser):
    """A tab with two past conversations and its own; the older one deleted."""
    state = opened(history, page, tab)
    for text in ("what is 6*7", "what is 2+2", "what is 3+3"):
        if state.turns:
            tab.apply(history.new(state)[CHANGES])
        await send(history, page, tab, state, text)
    victim = next(e["id"] for e in history.kept(state).index if e["title"] == "what is 6*7")
    saved, listed = history.delete(victim, state, "")
    tab.apply(saved)
    assert [value for _, value in listed.choices] != [] and victim not in str(listed.choices)
    assert titles(browser, tab) == ["what is 3+3", "what is 2+2"]
    return state, victim


async def test_undo_delete_puts_it_back_in_every_tabs_list_and_after_a_reload(browser):
    page, history, undo = panel()
    tab, other = browser.tab("one"), browser.tab("two")
    state, victim = await delete_second(history, page, tab, browser)
    assert victim not in other.index()
    _, delete_row, said_, timer = undo.offer(state)
    assert shown(delete_row) is True and timer.active and said_ == "Deleted “what is 6*7”."
    saved, listed, row, _ = undo.undo_delete(state)
    tab.apply(saved)
    assert shown(row) is False and victim in [value for _, value in listed.choices]
    assert titles(browser, tab) == ["what is 3+3", "what is 2+2", "what is 6*7"]
    assert victim in other.index()
    tab.reload()
    again = opened(history, page, tab)
    assert victim in [e["id"] for e in history.kept(again).index]
    opened_again = history.open(victim, again, tab.conversation(victim))
    assert opened_again[0][0]["content"] == ["what is 6\\*7"]
    # Undone twice: said, and nothing changes.
    with pytest.warns(UserWarning, match="can no longer be brought back"):
        saved, *_ = undo.undo_delete(state)
    assert saved == gr.skip()
    state.close()
    again.close()


async def test_undo_delete_after_the_window_is_refused_and_the_conversation_goes(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state, victim = await delete_second(history, page, tab, browser)
    assert CONVERSATION + victim in browser.local()  # kept a moment, out of the list
    aged(state, history.kept(state), UNDO_SECONDS + GRACE_SECONDS)
    with pytest.warns(UserWarning, match="can no longer be brought back"):
        saved, *_ = undo.undo_delete(state)
    tab.apply(saved)
    assert CONVERSATION + victim not in browser.local()
    assert titles(browser, tab) == ["what is 3+3", "what is 2+2"]
    state.close()


async def test_the_timer_lets_deleted_conversations_go_once_their_seconds_have_passed(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state, victim = await delete_second(history, page, tab, browser)
    second = next(e["id"] for e in history.kept(state).index if e["title"] == "what is 2+2")
    saved, _ = history.delete(second, state, "")
    tab.apply(saved)
    local = browser.local()
    assert CONVERSATION + victim in local and CONVERSATION + second in local
    aged(state, history.kept(state), UNDO_SECONDS + GRACE_SECONDS)
    saved, _, delete_row, timer = undo.tick(state)
    tab.apply(saved)
    assert shown(delete_row) is False and timer.active is False
    assert CONVERSATION + second not in browser.local()
    assert CONVERSATION + victim not in browser.local()
    assert titles(browser, tab) == ["what is 3+3"]
    state.close()


async def test_a_reload_during_the_window_keeps_the_delete_and_mends_nothing_back(browser):
    page, history, _ = panel()
    tab, other = browser.tab("one"), browser.tab("two")
    state, victim = await delete_second(history, page, tab, browser)
    # Another tab's page loads meanwhile: the deleted one is not mended back into the list,
    # and stays for the tab that can still undo it.
    other.reload()
    listed = json.loads(other.payload())["index"]["conversations"]
    assert victim not in [e["id"] for e in listed] and CONVERSATION + victim in browser.local()
    # The deleting tab reloads: its offer has gone with its page, and so has the conversation.
    tab.reload()
    tab.payload()
    assert CONVERSATION + victim not in browser.local()
    assert not any(key.endswith(victim) for key in browser.local())
    state.close()


async def test_a_full_storage_lets_deleted_conversations_go_first(browser):
    page, history, _ = panel()
    tab = browser.tab()
    state, victim = await delete_second(history, page, tab, browser)
    used = sum(len(k) + len(v) for k, v in browser.local().items())
    browser.set(INDEX + "-filler", "x" * (5_000_000 - used - 1000))  # the site's room nearly full
    await send(history, page, tab, state, "what is 4+4")
    local = browser.local()
    assert CONVERSATION + victim not in local
    assert titles(browser, tab) == ["what is 3+3", "what is 2+2"]
    state.close()


# -- One action after another, and the page's language ------------------------------------


async def test_clear_then_delete_each_keep_their_undo(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state, victim = await delete_second(history, page, tab, browser)
    tab.apply(undo.undo_delete(state)[0])
    tab.apply(history.clear(state)[-2])
    undo.offer(state)
    # Most of Clear's seconds go by before the Delete: each Clear, Delete or Undo gives the
    # offers still standing their seconds again.
    aged(state, history.kept(state), UNDO_SECONDS - 1)
    tab.apply(history.delete(victim, state, "")[0])
    clear_row, delete_row, _, _ = undo.offer(state)
    assert shown(clear_row) is True and shown(delete_row) is True
    aged(state, history.kept(state), UNDO_SECONDS - 1)
    saved, _, row, _ = undo.undo_delete(state)
    tab.apply(saved)
    assert shown(row) is False
    aged(state, history.kept(state), UNDO_SECONDS - 1)
    out = undo.undo_clear(state)
    tab.apply(out[CHANGES])
    assert said(out[0]) == ["what is 3+3", "3+3 = 6"]
    assert titles(browser, tab) == ["what is 3+3", "what is 2+2", "what is 6*7"]
    state.close()


async def test_two_deletes_are_undone_one_by_one_the_latest_first(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state, first = await delete_second(history, page, tab, browser)
    second = next(e["id"] for e in history.kept(state).index if e["title"] == "what is 2+2")
    tab.apply(history.delete(second, state, "")[0])
    _, delete_row, said_, _ = undo.offer(state)
    assert shown(delete_row) is True
    assert said_ == (
        "Deleted “what is 2+2” and 1 more; Undo brings them back one at a time, the latest first."
    )
    saved, _, row, said_ = undo.undo_delete(state)
    tab.apply(saved)
    assert shown(row) is True and said_ == "Deleted “what is 6*7”."
    assert titles(browser, tab) == ["what is 3+3", "what is 2+2"]
    saved, listed, row, _ = undo.undo_delete(state)
    tab.apply(saved)
    assert shown(row) is False and first in [value for _, value in listed.choices]
    assert titles(browser, tab) == ["what is 3+3", "what is 2+2", "what is 6*7"]
    assert CONVERSATION + first in browser.local() and CONVERSATION + second in browser.local()
    state.close()


async def test_a_second_clear_of_the_emptied_page_keeps_the_first_undoable(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state = opened(history, page, tab)
    await send(history, page, tab, state, "what is 6*7")
    tab.apply(history.clear(state)[-2])
    tab.apply(history.clear(state)[-2])
    assert shown(undo.offer(state)[0]) is True
    out = undo.undo_clear(state)
    tab.apply(out[CHANGES])
    assert said(out[0]) == ["what is 6\\*7", "6*7 = 42"]
    assert titles(browser, tab) == ["what is 6*7"]
    state.close()


async def test_undo_clear_draws_the_conversation_in_the_pages_language(browser):
    page, history, undo = panel()
    tab = browser.tab()
    state = opened(history, page, tab)
    await send(history, page, tab, state, "convert 5 miles")
    english = status_text(state)
    tab.apply(history.clear(state)[-2])
    state.prefs.language = "zh"  # the Settings' language, changed while it was cleared
    out = undo.undo_clear(state)
    trace, status = out[1], out[3]
    assert trace[0]["metadata"]["title"].startswith("第 1 轮")
    assert status != english and "次模型调用" in status
    # And back in English, the same.
    tab.apply(history.clear(state)[-2])
    state.prefs.language = "en"
    out = undo.undo_clear(state)
    assert out[1][0]["metadata"]["title"].startswith("Turn 1") and out[3] == english
    state.close()


# -- The list's words ----------------------------------------------------------------------


NOON = datetime(2025, 3, 12, 12, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("saved", "language", "zone", "label"),
    [
        (NOON - 3 * 3600, "en", UTC, "Receipt total · 3 turns · 09:00"),
        (NOON - 3 * 3600, "zh", UTC, "Receipt total · 3 轮 · 09:00"),
        (NOON - 86400, "en", UTC, "Receipt total · 3 turns · Mar 11"),
        (NOON - 86400, "zh", UTC, "Receipt total · 3 轮 · 3月11日"),
        (NOON - 400 * 86400, "en", UTC, "Receipt total · 3 turns · Feb 6, 2024"),
        (NOON - 400 * 86400, "zh", UTC, "Receipt total · 3 轮 · 2024年2月6日"),
        (NOON - 3 * 3600, "en", None, "Receipt total · 3 turns · 09:00 UTC"),
        (NOON - 3 * 3600, "zh", None, "Receipt total · 3 轮 · 09:00（UTC 时间）"),
        # Shanghai is 8 hours ahead: 09:00 UTC is 17:00 there, the same day.
        (NOON - 3 * 3600, "en", ZoneInfo("Asia/Shanghai"), "Receipt total · 3 turns · 17:00"),
        # Los Angeles (daylight time, 7 hours behind): 01:00 UTC on the 12th is the 11th there.
        (
            NOON - 11 * 3600,
            "en",
            ZoneInfo("America/Los_Angeles"),
            "Receipt total · 3 turns · Mar 11",
        ),
    ],
)
def test_the_list_says_turns_and_when_each_was_last_used(saved, language, zone, label):
    entry = {"id": "ab", "title": "Receipt total", "saved_at": saved, "turns": 3}
    assert entry_label(entry, language, zone, NOON) == label


def test_one_turn_no_time_and_a_time_no_clock_gives():
    entry = {"id": "ab", "title": "", "saved_at": 0.0, "turns": 1}
    assert entry_label(entry, "en", UTC, NOON) == "ab · 1 turn"
    for forged in (1e300, float("nan"), -5.0):
        entry = {"id": "ab", "title": "x", "saved_at": forged, "turns": 0}
        assert entry_label(entry, "en", UTC, NOON) == "x"


@pytest.mark.parametrize(
    ("name", "offset", "zone"),
    [
        ("Europe/Paris", 60, ZoneInfo("Europe/Paris")),
        ("Mars/Olympus_Mons", 330, timezone(timedelta(minutes=330))),
        ("../../etc/passwd", -300, timezone(timedelta(minutes=-300))),
        ("x" * 5000, None, None),
        (None, 24 * 60 * 7, None),
        ({"zone": 1}, True, None),
        (None, None, None),
    ],
)
def test_the_browser_zone_is_its_name_else_its_offset_else_none(name, offset, zone):
    assert browser_zone(name, offset) == zone


async def test_the_page_sends_its_zone_and_the_list_shows_turns_and_times(browser):
    page, history, _ = panel()
    tab = browser.tab()
    state = opened(history, page, tab)
    await send(history, page, tab, state, "what is 6*7")
    await send(history, page, tab, state, "what is 2+2")
    tab.apply(history.new(state)[CHANGES])
    assert json.loads(tab.payload())["offset"] is not None
    tab.reload()
    again = page.new_state()
    out = history.load(again, tab.payload())
    assert history.kept(again).zone is not None
    ((label, _),) = out[LIST].choices
    assert label.startswith("what is 6*7 · 2 turns · ") and "UTC" not in label
    # The language changes: the list says it again in Chinese (the save after a setting).
    again.prefs.language = "zh"
    _, listed = history.save(again)
    assert listed.choices[0][0].startswith("what is 6*7 · 2 轮 · ")
    state.close()
    again.close()


def test_the_undo_window_is_a_few_seconds():
    assert 5 <= undo_module.UNDO_SECONDS <= 10
