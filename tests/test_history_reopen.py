"""Opening a downloaded conversation in the chat, through the panel's handler
(`ui.conversations.reopen.Reopener`) called directly, the browser's storage being the page's
own script in Node (`tests/support/history_browser.py`): the conversation comes back with its
images and the agent's memory, is kept in the browser under an id of its own and listed, and
its next turn uses one of its images; a turn running in the tab ends, as Open ends it; a file
that cannot be opened is one sentence and changes nothing."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import gradio as gr
import pytest
import segno

from agent.config import Settings
from agent.models import OfflineModel
from tests.support.held_model import Gate, HeldBefore
from tests.support.history_browser import BrowserStorage
from tools import default_tools
from ui.conversations.handlers import History
from ui.conversations.reopen import Reopener
from ui.handlers import PageHandlers
from ui.page.values import chat_messages

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SETTINGS = ["source", "base_url", "model", "api_key", "temperature", "max_steps"]
SETTINGS += ["image_detail", "language", "style"]
URL = "https://example.org/menu"


pytestmark = pytest.mark.usefixtures("no_model_env")


@pytest.fixture
def browser():
    with BrowserStorage() as storage:
        yield storage


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture
def qr(tmp_path):
    path = tmp_path / "menu.png"
    segno.make(URL, error="m").save(path, scale=8)
    return path


def panel(tools) -> tuple[PageHandlers, History]:
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), tools)
    return page, History(page, SETTINGS)


async def said(page, history, tab, text, state=None, files=()):
    """A turn, the download after it, and the browser's copy saved as the page saves it."""
    async for update in page.chat({"text": text, "files": [str(f) for f in files]}, state):
        state = update[2]
    page.turn_ended(state)
    tab.apply(history.save(state)[0])
    return state


def shown(chat: list[dict]) -> list:
    """The chat's messages, an image by its file's name (a copy has the same)."""
    return [
        [Path(part["path"]).name if isinstance(part, dict) else part for part in m["content"]]
        if isinstance(m["content"], list)
        else m["content"]
        for m in chat
    ]


def tool_calls(state) -> list[tuple[str, str]]:
    events = state.turns[-1].events
    return [(e.tool, e.arguments.get("image_id")) for e in events if e.type == "tool_call"]


async def test_it_opens_is_kept_and_its_next_turn_uses_its_image(browser, tools, qr, tmp_path):
    page, history = panel(tools)
    tab = browser.tab()
    first = await said(page, history, tab, "what size is this?", files=[EXAMPLES / "sign.png", qr])
    download = tmp_path / "conversation.zip"
    shutil.copyfile(first.trace_file, download)
    downloaded = first.conversation_id
    # Another conversation is on the page when the file is opened.
    _, _, state, _, _, saved, *_ = history.new(first)
    tab.apply(saved)
    state = await said(page, history, tab, "what is 6*7", state)
    other = state.conversation_id
    values = await Reopener(history).open(str(download), state)
    chat, _, state, _, button, saved, listed, *settings = values
    assert settings == [gr.skip()] * len(SETTINGS)  # the settings stay as they are
    tab.apply(saved)
    opened = state.conversation_id
    assert opened not in (downloaded, other)
    assert chat[0]["content"][0] == "what size is this?" and len(state.turns) == 1
    assert button.interactive  # its own download, memory and all
    kept = browser.kept(tab)
    assert kept["current"] == opened and kept["conversations"][0]["id"] == opened
    assert [value for _, value in listed.choices] == [other, downloaded]
    assert [ref.id for ref in state.session.images.refs()] == ["img_1", "img_2"]
    # The next turn means the same picture by the same id.
    state = await said(page, history, tab, "scan the QR code in img_2", state)
    assert tool_calls(state) == [("scan_code", "img_2")]
    assert URL in state.turns[-1].view.final.text
    # A reload gives back the opened conversation, as the browser kept it.
    tab.reload()
    fresh = page.new_state()
    chat, _, again, *_ = history.load(fresh, tab.payload())
    assert again.conversation_id == opened and shown(chat) == shown(chat_messages(state))
    assert again.session.history == state.session.history
    for done in (first, state, fresh):
        done.close()


async def test_a_file_that_cannot_be_opened_changes_nothing(browser, tools, tmp_path):
    page, history = panel(tools)
    tab = browser.tab()
    state = await said(page, history, tab, "what is 6*7")
    before, shown, conversation = browser.kept(tab), chat_messages(state), state.conversation_id
    state.prefs.temperature = 0.7
    bad = tmp_path / "notes.zip"
    bad.write_bytes(b"a note, not a zip")
    with pytest.warns(UserWarning, match=r"notes\.zip: This is not a conversation downloaded"):
        values = await Reopener(history).open(str(bad), state)
    assert values == tuple(gr.skip() for _ in range(7 + len(SETTINGS)))
    assert state.conversation_id == conversation and chat_messages(state) == shown
    assert state.prefs.temperature == 0.7 and browser.kept(tab) == before
    state.close()


async def test_a_turn_running_in_the_tab_ends_as_open_ends_it(browser, tools, qr, tmp_path):
    page, history = panel(tools)
    tab = browser.tab()
    done = await said(page, history, tab, "what size is this?", files=[qr])
    download = tmp_path / "conversation.zip"
    shutil.copyfile(done.trace_file, download)
    done.close()
    gate = Gate()
    held = PageHandlers(lambda prefs: HeldBefore(OfflineModel(), 1, gate), Settings(), tools)
    history, tab = History(held, SETTINGS), browser.tab("another")
    state = held.new_state()
    running = asyncio.ensure_future(said(held, history, tab, "what is 6*7", state))
    for _ in range(3000):  # until the turn runs, held before its model's first word
        if state.running and state.turns:
            break
        await asyncio.sleep(0.02)
    left = state.conversation_id
    values = await Reopener(history).open(str(download), state)
    tab.apply(values[5])
    await running  # the turn ended at once, stopped, before its model was let go
    assert not gate.is_open and state.running == 0
    assert [turn.text for turn in state.turns] == ["what size is this?"]
    assert left in [value for _, value in values[6].choices]
    kept = {c["id"]: c for c in browser.kept(tab)["conversations"]}
    assert kept[left]["turns"][0]["status"] == "stopped"
    state.close()
