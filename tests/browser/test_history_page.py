"""Saved conversations in a real browser: a reload restores the conversation and it goes on;
New conversation, opening and deleting past ones; two tabs each keep their own; a reload the
moment after sending keeps the message and its images; the API key never reaches the
browser's storage; an image the server lost shows as gone; a stored value that does not read
is set aside once.

Each test opens its own browser context, so its own storage. The tests take the two
languages in turn (each works in both): a reload in English, during a turn in Chinese, New
conversation and a lost image in Chinese, the rest in English.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

import app
from agent.models import OfflineModel
from tests.support.held_model import Gate, HeldBefore
from ui.conversations.panel import STORAGE_PREFIX
from ui.labels import UI_TEXT

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
ROOT = Path(app.__file__).resolve().parent
EXAMPLES = ROOT / "assets" / "examples"
LABEL = EXAMPLES / "label.png"
IMAGES = [EXAMPLES / name for name in ("label.png", "receipt.png", "sign.png")]
SIZES = ["1600x1000", "700x900", "900x520"]  # what image_info says of each
KEY = "sk-never-in-the-browser-7f3a9c"
DONE = {"en-US": re.compile(r"model call"), "zh-CN": re.compile(r"次模型调用")}
# The example that asks for a unit, and the answer that finishes it, in each language.
CONVERT = {"en-US": ("convert 5 miles", "km"), "zh-CN": ("换算 5 英里", "公里")}
# What the browser keeps, as one value: this tab's conversation's id, each kept conversation
# in the list's order (newest first), and the page's settings.
_KEPT = """prefix => {
  const read = (key) => { try { return JSON.parse(localStorage.getItem(key)); }
                          catch (error) { return null; } };
  const index = read(prefix + "index") || {conversations: []};
  const conversations = index.conversations.map((e) => read(prefix + "c/" + e.id))
    .filter(Boolean);
  return {current: sessionStorage.getItem(prefix + "current"), conversations,
          prefs: index.prefs || null};
}"""

# Whether the browser keeps at least `turns` turns of the agent's memory of the page's
# conversation.
_REMEMBERED = """([prefix, turns]) => {
  const id = sessionStorage.getItem(prefix + "current");
  try {
    const saved = JSON.parse(localStorage.getItem(prefix + "c/" + id));
    return (saved.history || []).length >= turns;
  } catch (error) { return false; }
}"""


@pytest.fixture
def open_page(open_at):
    def opener(locale: str = "en-US"):
        return open_at(locale=locale)

    return opener


def reload(page) -> None:
    page.reload()
    page.wait_for_selector("#input textarea")


def ask(page, text: str, *images: Path) -> None:
    if images:
        page.set_input_files("#input input[type=file]", [str(i) for i in images])
        page.wait_for_function(
            "n => document.querySelectorAll('#input img').length >= n", arg=len(images)
        )
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def turn_done(page, turns: int, locale: str = "en-US") -> None:
    """Wait until the chat holds `turns` finished turns and the browser has saved them, the
    agent's memory of them included (saved a moment after the turn's last words)."""
    expect(page.locator("#chat .bot-row")).to_have_count(turns)
    expect(page.locator("#run-status")).to_contain_text(DONE[locale])
    wait_saved(page, turns)
    page.wait_for_function(_REMEMBERED, arg=[STORAGE_PREFIX, turns], polling=100)


def wait_saved(page, turns: int, running: bool = False, steps: str | None = None) -> None:
    """Wait until the browser holds the page's conversation with `turns` turns, the last of
    them still running or not, as `running` says (a turn is saved as it goes, then again when
    it ends), and with an event of type `steps` in it when given."""
    deadline = time.monotonic() + 10
    while saved_turns(page, steps) != (turns, running and turns > 0, True):
        assert time.monotonic() < deadline, "the conversation was not saved"
        page.wait_for_timeout(100)


def saved_turns(page, steps: str | None = None) -> tuple[int, bool, bool]:
    """How many turns the browser keeps of the page's conversation, whether the last of them
    was still running when it was saved, and whether it has an event of type `steps`."""
    saved = kept(page)
    current = [c for c in saved["conversations"] if c["id"] == saved["current"]]
    turns = current[0]["turns"] if current else []
    running = bool(turns) and turns[-1]["status"] == "running"
    events = turns[-1].get("events", []) if turns else []
    return len(turns), running, steps is None or any(e["type"] == steps for e in events)


def words(locale: str) -> dict[str, str]:
    return UI_TEXT["zh" if locale.startswith("zh") else "en"]


def past_list(page, locale: str = "en-US"):
    accordion = page.locator("#conversations")
    if not accordion.locator("#past-conversations").is_visible():
        accordion.get_by_text(words(locale)["conversations"]).first.click()
    return page.locator("#past-conversations")


def entry(listed, title: str):
    """The list's entry for the conversation `title`, whatever its turns and time."""
    return listed.locator("label").filter(has_text=re.compile(re.escape(title) + " · "))


def kept(page) -> dict:
    return page.evaluate(_KEPT, STORAGE_PREFIX)


@pytest.mark.parametrize("locale", ["en-US"])
def test_a_reload_restores_the_conversation_and_it_goes_on(open_page, locale):
    page = open_page(locale)
    question, unit = CONVERT[locale]
    ask(page, question)
    turn_done(page, 1, locale)
    asked = page.locator("#chat .bot-row").last.inner_text()
    reload(page)
    chat, trace = page.locator("#chat"), page.locator("#trace")
    expect(chat).to_contain_text(question)
    expect(chat.locator(".bot-row").last).to_have_text(asked)
    expect(trace).to_contain_text("第 1 轮" if locale == "zh-CN" else "Turn 1")
    # The agent remembers what it asked: the unit alone finishes the conversion.
    ask(page, unit)
    expect(chat.locator(".bot-row")).to_have_count(2)
    expect(chat.locator(".bot-row").last).to_contain_text("8.0")
    expect(trace).to_contain_text("第 2 轮" if locale == "zh-CN" else "Turn 2")


def test_a_reload_during_a_turn_keeps_what_it_did_and_shows_it_stopped(open_page, page_model):
    # The turn holds after its zoom, until the reload has been looked at.
    gate = Gate()
    page_model["factory"] = lambda: HeldBefore(OfflineModel(), 2, gate)
    page = open_page("zh-CN")
    try:
        ask(page, "放大左上角，然后读出上面的字", LABEL)
        trace = page.locator("#trace")
        expect(trace).to_contain_text("zoom")
        wait_saved(page, 1, running=True, steps="tool_result")
        reload(page)
        chat = page.locator("#chat")
        expect(chat.locator(".user-row")).to_contain_text("放大左上角，然后读出上面的字")
        expect(chat.locator(".user-row img")).to_have_count(1)
        expect(chat.locator(".bot-row").last).to_contain_text("在完成前被停止")
        expect(trace).to_contain_text("zoom")  # the step it had done stays
        expect(page.locator("#run-status")).not_to_contain_text("正在")
        # Retry runs it again, image and all.
        gate.open()
        page.click("#retry")
        expect(chat.locator(".bot-row").last).to_contain_text("img_1", timeout=20_000)
        expect(chat.locator(".bot-row")).to_have_count(1)
    finally:
        gate.open()


def test_a_reload_the_moment_the_input_empties_keeps_the_words(open_page, page_model):
    gate = Gate()
    page_model["factory"] = lambda: HeldBefore(OfflineModel(), 1, gate)
    page = open_page()
    try:
        ask(page, "what is 6*7")
        expect(page.locator("#input textarea")).to_have_value("")
        reload(page)
        expect(page.locator("#chat .user-row")).to_contain_text("what is 6*7")
        gate.open()
        page.click("#retry")
        expect(page.locator("#chat .bot-row").last).to_contain_text("42", timeout=20_000)
    finally:
        gate.open()


def test_a_message_refused_before_its_turn_saves_nothing(open_page):
    page = open_page()
    ask(page, "what is 2+2")
    turn_done(page, 1)
    # Only an unreadable file: refused in one sentence before any turn starts.
    page.set_input_files(
        "#input input[type=file]",
        files=[{"name": "broken.png", "mimeType": "image/png", "buffer": b"not a png"}],
    )
    page.wait_for_function(
        "() => document.querySelectorAll('#input img, #input .thumbnail-item').length >= 1"
    )
    page.press("#input textarea", "Enter")
    expect(page.locator(".toast-body")).to_be_visible()
    # The message was kept as it left the input, as every message is; the save that follows
    # the refusal takes it back, however long a loaded server takes to send it.
    wait_saved(page, 1)
    reload(page)
    expect(page.locator("#chat .user-row")).to_have_count(1)


@pytest.mark.parametrize("locale", ["zh-CN"])
def test_new_conversation_then_open_the_past_one_and_go_on(open_page, locale):
    page = open_page(locale)
    question, unit = CONVERT[locale]
    ask(page, question)
    turn_done(page, 1, locale)
    page.click("#new-conversation")
    chat = page.locator("#chat")
    expect(chat.locator(".bot-row")).to_have_count(0)
    wait_saved(page, 0)
    reload(page)  # the fresh conversation is the one a reload shows
    chat = page.locator("#chat")
    listed = past_list(page, locale)
    expect(entry(listed, question)).to_have_count(1)
    expect(chat.locator(".bot-row")).to_have_count(0)
    entry(listed, question).click()
    page.click("#open-conversation")
    expect(chat).to_contain_text(question)
    expect(chat.locator(".bot-row")).to_have_count(1)
    ask(page, unit)
    expect(chat.locator(".bot-row").last).to_contain_text("8.0")
    # The opened conversation is the page's own now, not in the list of past ones.
    expect(entry(listed, question)).to_have_count(0)


def test_a_past_conversation_can_be_deleted_for_good(open_page):
    page = open_page()
    ask(page, "what is 6*7")
    turn_done(page, 1)
    page.click("#new-conversation")
    # Until New has emptied the chat, the first conversation's answer would count as done.
    expect(page.locator("#chat .user-row")).to_have_count(0)
    ask(page, "convert 5 miles")
    turn_done(page, 1)
    listed = past_list(page)
    entry(listed, "what is 6*7").click()
    page.click("#delete-conversation")
    expect(entry(listed, "what is 6*7")).to_have_count(0)
    reload(page)
    expect(page.locator("#chat")).to_contain_text("convert 5 miles")
    listed = past_list(page)
    expect(entry(listed, "what is 6*7")).to_have_count(0)
    titles = [c["title"] for c in kept(page)["conversations"]]
    assert titles == ["convert 5 miles"]


def test_the_api_key_is_never_in_the_browsers_storage(open_page):
    page = open_page()
    page.locator("#settings").get_by_text("Settings").first.click()
    key_field = page.locator("#api-key input, #api-key textarea").first
    key_field.fill(KEY)
    key_field.press("Tab")
    ask(page, "what is 6*7")
    turn_done(page, 1)
    page.locator("#settings input[type=range]").first.fill("0.5")  # a change saves again
    deadline = time.monotonic() + 10
    while kept(page)["conversations"][0]["prefs"]["temperature"] != 0.5:
        assert time.monotonic() < deadline, "the change of settings was not saved"
        page.wait_for_timeout(100)
    raw = page.evaluate(
        "() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])"
    )
    assert KEY not in raw
    value = kept(page)
    text = json.dumps(value, ensure_ascii=False)
    assert "what is 6*7" in text and KEY not in text and "api_key" not in text
    reload(page)
    page.locator("#settings").get_by_text("Settings").first.click()
    expect(page.locator("#api-key input, #api-key textarea").first).to_have_value("")
    expect(page.locator("#settings input[type=range]").first).to_have_value("0.5")


def test_settings_chosen_before_any_message_survive_a_reload(open_page):
    page = open_page()
    page.locator("#settings").get_by_text("Settings").first.click()
    page.locator("#protocol").get_by_text("ReAct text", exact=True).click()
    page.locator("#style").get_by_text("Plugin task", exact=True).click()
    page.locator("#settings input[type=range]").first.fill("0.7")
    deadline = time.monotonic() + 10
    while (kept(page)["prefs"] or {}).get("temperature") != 0.7:
        assert time.monotonic() < deadline, "the settings were not saved"
        page.wait_for_timeout(100)
    reload(page)
    page.locator("#settings").get_by_text("Settings").first.click()
    expect(page.locator("#protocol input[value=react]")).to_be_checked()
    expect(page.locator("#style input[value=plugin-task]")).to_be_checked()
    expect(page.locator("#settings input[type=range]").first).to_have_value("0.7")
    # and a conversation's own settings come back with it, its tool protocol among them
    ask(page, "what is 6*7")
    turn_done(page, 1)
    reload(page)
    page.locator("#settings").get_by_text("Settings").first.click()
    expect(page.locator("#protocol input[value=react]")).to_be_checked()


@pytest.mark.parametrize("locale", ["zh-CN"])
def test_an_image_the_server_lost_shows_as_gone(open_page, locale):
    page = open_page(locale)
    ask(page, "Zoom into the top left" if locale == "en-US" else "放大左上角", LABEL)
    turn_done(page, 1, locale)
    expect(page.locator("#chat .user-row img")).to_have_count(1)
    reload(page)  # while the server has it, the image comes back
    expect(page.locator("#chat .user-row img")).to_have_count(1)
    for folder in app.sessions_root().iterdir():
        shutil.rmtree(folder, ignore_errors=True)  # as after a restart, or an idle sweep
    reload(page)
    gone = words(locale)["image_gone"].format(id="img_1")
    chat = page.locator("#chat")
    expect(chat).to_contain_text(gone)
    expect(chat.locator(".user-row img")).to_have_count(0)
    ask(page, "zoom into img_1" if locale == "en-US" else "放大 img_1")
    expect(chat.locator(".bot-row")).to_have_count(2)
    answer = "no longer available" if locale == "en-US" else "已不在服务器上"
    expect(chat.locator(".bot-row").last).to_contain_text(answer)


def test_a_stored_value_that_does_not_read_is_set_aside_with_one_notice(open_page):
    page = open_page()
    page.evaluate("key => localStorage.setItem(key, 'not:json at all')", STORAGE_PREFIX + "index")
    reload(page)
    notice = UI_TEXT["en"]["history_unreadable"]
    expect(page.get_by_text(notice)).to_have_count(1, timeout=15_000)  # a busy machine's load
    ask(page, "what is 6*7")
    turn_done(page, 1)
    expect(page.locator("#chat .bot-row").last).to_contain_text("42")
    assert kept(page)["conversations"][0]["title"] == "what is 6*7"


def test_two_tabs_each_keep_their_own_and_list_the_other(open_page):
    one = open_page()
    two = one.context.new_page()  # the same browser: one localStorage, a sessionStorage each
    two.goto(one.url)
    two.wait_for_selector("#input textarea")
    ask(one, "what is 6*7")
    turn_done(one, 1)
    ask(two, "what is 2+2")
    turn_done(two, 1)
    ask(one, "what is 3+3")
    turn_done(one, 2)
    for page, own, other in ((one, "3+3", "what is 2+2"), (two, "2+2", "what is 6*7")):
        reload(page)
        expect(page.locator("#chat")).to_contain_text(own)
        expect(entry(past_list(page), other)).to_have_count(1)
    expect(one.locator("#chat .user-row")).to_have_count(2)
    expect(two.locator("#chat .user-row")).to_have_count(1)


# Newer conversations, as copies of the first one kept (the list's bound is ten).
_NEWER = """([prefix, count]) => {
  const index = JSON.parse(localStorage.getItem(prefix + "index"));
  const first = index.conversations[0];
  const text = localStorage.getItem(prefix + "c/" + first.id);
  for (let i = 0; i < count; i += 1) {
    const id = "abc" + i.toString(16).padStart(4, "0");
    const copy = JSON.parse(text);
    if ("id" in copy) copy.id = id;
    copy.saved_at = (first.saved_at || 0) + 1 + i;
    localStorage.setItem(prefix + "c/" + id, JSON.stringify(copy));
    index.conversations.push({...first, id, saved_at: copy.saved_at});
  }
  localStorage.setItem(prefix + "index", JSON.stringify(index));
}"""


def test_a_conversation_open_in_a_tab_is_not_pushed_out_by_another_tabs(open_page):
    one = open_page()
    ask(one, "what is 6*7")
    turn_done(one, 1)
    two = one.context.new_page()
    two.goto(one.url)
    two.wait_for_selector("#input textarea")
    two.evaluate(_NEWER, [STORAGE_PREFIX, 10])
    ask(two, "what is 2+2")  # its save makes room: the oldest goes, unless a tab shows it
    turn_done(two, 1)
    two.wait_for_function(
        "p => JSON.parse(localStorage.getItem(p + 'index')).conversations.length === 10",
        arg=STORAGE_PREFIX,
    )
    reload(one)
    expect(one.locator("#chat")).to_contain_text("what is 6*7")


@pytest.mark.parametrize("locale", ["zh-CN"])
def test_a_tabs_list_follows_what_another_tab_saves_and_deletes(open_page, locale):
    one = open_page(locale)
    two = one.context.new_page()
    two.goto(one.url)
    two.wait_for_selector("#input textarea")
    listed = past_list(two, locale)
    ask(one, "what is 6*7")
    turn_done(one, 1, locale)
    expect(entry(listed, "what is 6*7")).to_have_count(1)
    ask(two, "what is 2+2")
    turn_done(two, 1, locale)
    gone = entry(past_list(one, locale), "what is 2+2")
    expect(gone).to_have_count(1)
    # Tab one opens two's conversation (a copy: two still shows it), then deletes its own
    # first one from the list; tab two's list loses it too, with no reload.
    one.locator("#new-conversation").click()
    expect(entry(listed, "what is 6*7")).to_have_count(1)
    entry(past_list(one, locale), "what is 6*7").click()
    one.locator("#delete-conversation").click()
    expect(entry(listed, "what is 6*7")).to_have_count(0)
    expect(two.locator("#chat .user-row")).to_have_count(1)


@pytest.mark.parametrize("seconds", [0.1, 0.3, 0.8, 1.5])
def test_a_reload_soon_after_sending_keeps_the_question_and_its_images(
    open_page, page_model, seconds
):
    # The turn holds before its model is called, so it is still under way at the reload.
    gate = Gate()
    page_model["factory"] = lambda: HeldBefore(OfflineModel(), 1, gate)
    page = open_page()
    try:
        ask(page, "How big is each image?", *IMAGES)
        page.wait_for_timeout(seconds * 1000)  # the moment under test, not a wait for the page
        reload(page)
        chat = page.locator("#chat")
        expect(chat.locator(".user-row")).to_contain_text("How big is each image?")
        expect(chat.locator(".user-row img")).to_have_count(3)
        gate.open()
        page.click("#retry")
        answer = chat.locator(".bot-row").last
        for size in SIZES:
            expect(answer).to_contain_text(size, timeout=20_000)
        expect(chat.locator(".user-row")).to_have_count(1)
        expect(chat.locator(".user-row img")).to_have_count(3)
    finally:
        gate.open()


def test_what_another_hand_wrote_in_the_storage_costs_one_notice_at_most(open_page):
    page = open_page()
    ask(page, "what is 6*7")
    turn_done(page, 1)
    page.locator("#new-conversation").click()
    ask(page, "what is 2+2")
    turn_done(page, 1)
    page.evaluate(
        """prefix => {
          const index = JSON.parse(localStorage.getItem(prefix + 'index'));
          index.conversations.push(null, 7, {id: '../../etc'});
          localStorage.setItem(prefix + 'index', JSON.stringify(index));
          localStorage.setItem(prefix + 'c/' + 'f'.repeat(32), 'x'.repeat(1_600_000));
        }""",
        STORAGE_PREFIX,
    )
    reload(page)
    expect(page.locator("#chat")).to_contain_text("2+2")
    expect(entry(past_list(page), "what is 6*7")).to_have_count(1)
    ask(page, "what is 3+3")
    turn_done(page, 2)
    page.evaluate(
        "p => sessionStorage.setItem(p + 'current', 'z'.repeat(3_000_000))", STORAGE_PREFIX
    )
    reload(page)
    ask(page, "what is 5*5")
    turn_done(page, 1)
    assert all(len(key) < 200 for key in page.evaluate("Object.keys(localStorage)"))


def test_a_duplicated_tab_goes_on_with_a_copy_of_its_own(open_page):
    one = open_page()
    ask(one, "what is 6*7")
    turn_done(one, 1)
    with one.context.expect_page() as opened:
        one.evaluate("window.open(location.href)")  # a copy of this tab's sessionStorage
    two = opened.value
    two.wait_for_selector("#input textarea")
    expect(two.locator("#chat")).to_contain_text("what is 6*7")
    ask(two, "what is 2+2")
    turn_done(two, 2)
    ask(one, "what is 3+3")
    turn_done(one, 2)
    for page, own, other in ((one, "3+3", "2+2"), (two, "2+2", "3+3")):
        reload(page)
        expect(page.locator("#chat")).to_contain_text(own)
        expect(page.locator("#chat")).not_to_contain_text(other)
        # Each turn once, none of them stopped: the copy was kept before its first change.
        expect(page.locator("#chat .user-row")).to_have_count(2)
        expect(page.locator("#chat")).not_to_contain_text("Stopped before it finished.")


def test_opening_with_nothing_picked_says_so(open_page):
    page = open_page()
    past_list(page)
    page.locator("#open-conversation").click()
    expect(page.locator(".toast-body")).to_contain_text(words("en-US")["pick_conversation"])
