"""Opening a downloaded conversation in the chat, through the panel's handler
(`ui.conversations.reopen.Reopener`) called directly, the browser's storage being the page's
own script in Node (`tests/support/history_browser.py`): the conversation comes back with its
images and the agent's memory, is kept in the browser under an id of its own and listed, and
its next turn uses one of its images; a turn running in the tab ends, as Open ends it; a file
that cannot be opened is one sentence and changes nothing."""

from __future__ import annotations

import asyncio
import json
import shutil
import zipfile
from pathlib import Path

import gradio as gr
import pytest
import segno

from agent.config import Settings
from agent.conversation_file.reader import MAX_STEP_CHARS
from agent.conversation_file.reopen import reopen_conversation
from agent.models import OfflineModel
from tests.support.held_model import Gate, HeldBefore
from tests.support.history_browser import BrowserStorage
from tools import default_tools
from ui.conversations.handlers import History
from ui.conversations.kept import CONVERSATION_BYTES
from ui.conversations.reopen import Reopener, kept_size, stored_form
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


def crafted(download: Path, target: Path, answers: list[int], text: str = "what is 6*7") -> Path:
    """The text-only download `download` with one turn of it made into `len(answers)` turns,
    each answer of the length given, all numbered 1 (the page numbers them itself)."""
    with zipfile.ZipFile(download) as archive:
        data = json.loads(archive.read("conversation.json"))
    (turn,) = data["turns"]
    turns = []
    for length in answers:
        events = [
            {**e, "text": "a" * length} if e["type"] == "answer" else e for e in turn["events"]
        ]
        turns.append({**turn, "text": text, "number": 1, "events": events})
    data["turns"] = turns
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversation.json", json.dumps(data))
    return target


def kept_size_of(path: Path, state, folder: Path) -> int:
    """The size the opened file takes in the browser, as opening it measures it."""
    opened = reopen_conversation(path, folder, state.env)
    return kept_size(stored_form(opened, state.conversation_id, "session-abcdefgh"), state)


async def test_a_file_larger_than_the_browser_keeps_is_refused_and_changes_nothing(
    browser, tools, tmp_path
):
    page, history = panel(tools)
    tab = browser.tab()
    state = await said(page, history, tab, "what is 6*7")
    before, chat = browser.kept(tab), chat_messages(state)
    huge = crafted(Path(state.trace_file), tmp_path / "huge.zip", [10], text="x" * 7_000_000)
    several = crafted(Path(state.trace_file), tmp_path / "several.zip", [MAX_STEP_CHARS] * 20)
    for path in (huge, several):
        with pytest.warns(UserWarning, match="too large to be a conversation download"):
            values = await Reopener(history).open(str(path), state)
        assert values == tuple(gr.skip() for _ in range(7 + len(SETTINGS)))
        assert chat_messages(state) == chat and browser.kept(tab) == before
    state.close()


async def test_one_at_the_browsers_bound_survives_a_reload_numbered_one_to_n(
    browser, tools, tmp_path
):
    page, history = panel(tools)
    tab = browser.tab()
    state = await said(page, history, tab, "what is 6*7")
    download = Path(state.trace_file)
    answers = [60_000] * 16
    measure = page.new_state()
    size = kept_size_of(crafted(download, tmp_path / "m.zip", answers), measure, tmp_path / "m")
    # Each character of an answer is a byte: spread what is left over them all.
    share, rest = divmod(CONVERSATION_BYTES - size, len(answers))
    answers = [length + share for length in answers]
    answers[-1] += rest
    at_bound = crafted(download, tmp_path / "at.zip", answers)
    assert kept_size_of(at_bound, measure, tmp_path / "a") == CONVERSATION_BYTES
    answers[-1] += 1
    past = crafted(download, tmp_path / "past.zip", answers)
    with pytest.warns(UserWarning, match="too large to be a conversation download"):
        await Reopener(history).open(str(past), state)
    values = await Reopener(history).open(str(at_bound), state)
    tab.apply(values[5])
    opened = values[2]
    assert [record.view.number for record in opened.turns] == list(range(1, 17))
    tab.reload()
    again = page.new_state()
    _, _, again, *_ = history.load(again, tab.payload())
    assert again.conversation_id == opened.conversation_id
    assert [record.view.number for record in again.turns] == list(range(1, 17))
    assert [len(record.view.answer) for record in again.turns] == [*answers[:-1], answers[-1] - 1]
    kept = {c["id"]: c for c in browser.kept(tab)["conversations"]}[opened.conversation_id]
    assert [turn["number"] for turn in kept["turns"]] == list(range(1, 17))
    # It goes on past the browser's room: the browser keeps its latest turns, and a turn after
    # a reload is numbered after the last one, never as one the page has.
    again = await said(page, history, tab, "what is 2+2", again)
    assert again.turns[-1].view.number == 17
    tab.reload()
    last = page.new_state()
    history.load(last, tab.payload())
    numbers = [record.view.number for record in last.turns]
    assert numbers[0] > 1 and numbers[-1] == 17
    last = await said(page, history, tab, "what is 3+3", last)
    assert [record.view.number for record in last.turns] == [*numbers, 18]
    for done in (state, measure, again, last):
        done.close()


def rewritten(download: Path, target: Path, change) -> Path:
    """The zip `download` with its conversation.json changed by `change(data)`."""
    with zipfile.ZipFile(download) as old, zipfile.ZipFile(target, "w") as new:
        data = json.loads(old.read("conversation.json"))
        change(data)
        for info in old.infolist():
            if info.filename != "conversation.json":
                new.writestr(info, old.read(info))
        new.writestr("conversation.json", json.dumps(data))
    return target


async def test_an_image_that_does_not_match_its_entry_is_left_out_and_said_gone(
    browser, tools, qr, tmp_path
):
    page, history = panel(tools)
    tab = browser.tab()
    files = [EXAMPLES / "sign.png", qr, EXAMPLES / "receipt.png"]
    state = await said(page, history, tab, "what size is this?", files=files)
    download = tmp_path / "conversation.zip"
    shutil.copyfile(state.trace_file, download)

    def mismatched(data: dict) -> None:
        one, two, three = data["images"]
        one["file"] = two["file"]  # img_1's entry names img_2's picture
        three["width"] += 1  # img_3's entry says another size than its picture's
        data["turns"][0]["images"].append("img_9")  # a turn names an image the file lacks

    changed = rewritten(download, tmp_path / "changed.zip", mismatched)
    # Left out, and said so once: not only as gone in its turn.
    with pytest.warns(UserWarning, match=r"Opened without the image\(s\) img_1, img_3, img_9"):
        values = await Reopener(history).open(str(changed), state)
    tab.apply(values[5])
    chat, state = values[0], values[2]
    gone = [f"[Image {i} is no longer available]" for i in ("img_1", "img_3", "img_9")]
    (question, *_), *_ = shown(chat)
    assert shown(chat)[0][-3:] == gone and question == "what size is this?"
    assert [ref.id for ref in state.turns[0].refs] == ["img_2"]
    assert [ref.id for ref in state.session.images.refs()] == ["img_2"]
    # The agent is told they are gone, and a new image is numbered after every id named.
    (remembered,) = state.session.history
    assert remembered.image_ids == ["img_2"] and "img_1, img_3" in remembered.user_text
    state = await said(page, history, tab, "what size is this?", state, [EXAMPLES / "label.png"])
    assert [ref.id for ref in state.turns[-1].refs] == ["img_10"]
    # A reload says the same.
    tab.reload()
    again = page.new_state()
    chat, _, again, *_ = history.load(again, tab.payload())
    assert shown(chat)[0][-3:] == gone
    for done in (state, again):
        done.close()
