"""Clear and Delete undone in a real browser, and kept so: a reload shows what came back; and
the list of past conversations says each one's turns and when it was last used, in the
browser's own time."""

from __future__ import annotations

import pytest

from tests.browser.test_history_page import (
    ask,
    entry,
    kept,
    past_list,
    reload,
    turn_done,
    wait_saved,
)
from tests.browser.test_language_switch import choose
from ui.labels import UI_TEXT

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
TEXT = UI_TEXT["en"]
# When the browser says a moment was, as the list says it for today.
_LOCAL_TIME = """seconds => {
  const at = new Date(seconds * 1000);
  return String(at.getHours()).padStart(2, "0") + ":" + String(at.getMinutes()).padStart(2, "0");
}"""


def test_clear_and_delete_are_undone_and_stay_undone_after_a_reload(open_at):
    page = open_at()
    ask(page, "what is 6*7")
    turn_done(page, 1)
    chat = page.locator("#chat")
    page.click("#clear")
    offer = page.locator("#undo-clear")
    expect(offer).to_contain_text(TEXT["conversation_cleared"])
    expect(chat.locator(".user-row")).to_have_count(0)
    wait_saved(page, 0)
    offer.get_by_role("button", name=TEXT["undo_clear"]).click()
    expect(chat.locator(".bot-row")).to_have_count(1)
    expect(offer).to_be_hidden()
    wait_saved(page, 1)
    reload(page)
    chat = page.locator("#chat")
    expect(chat).to_contain_text("what is 6*7")
    expect(page.locator("#trace")).to_contain_text("Turn 1")
    # A second conversation: the first is in the list, with its turn and its time.
    page.click("#new-conversation")
    # Until New has emptied the chat, the first conversation's answer would count as done.
    expect(chat.locator(".user-row")).to_have_count(0)
    ask(page, "convert 5 miles")
    turn_done(page, 1)
    ask(page, "km")
    turn_done(page, 2)
    listed = past_list(page)
    (saved,) = [c for c in kept(page)["conversations"] if c["title"] == "what is 6*7"]
    hour = page.evaluate(_LOCAL_TIME, saved["saved_at"])
    expect(listed.locator("label")).to_have_text([f"what is 6*7 · 1 turn · {hour}"])
    # Deleted, then undone: back in the list, and after a reload.
    entry(listed, "what is 6*7").click()
    page.click("#delete-conversation")
    expect(entry(listed, "what is 6*7")).to_have_count(0)
    undo = page.locator("#undo-delete")
    expect(undo).to_contain_text(TEXT["conversation_deleted"].format(title="what is 6*7"))
    undo.get_by_role("button", name=TEXT["undo_delete"]).click()
    expect(entry(listed, "what is 6*7")).to_have_count(1)
    expect(undo).to_be_hidden()
    reload(page)
    expect(page.locator("#chat .user-row")).to_have_count(2)
    expect(entry(past_list(page), "what is 6*7")).to_have_count(1)
    # The offer leaves the page on its own after its seconds, and the delete then stands.
    listed = past_list(page)
    entry(listed, "what is 6*7").click()
    page.click("#delete-conversation")
    expect(page.locator("#undo-delete")).to_be_visible()
    expect(page.locator("#undo-delete")).to_be_hidden()
    reload(page)
    expect(entry(past_list(page), "what is 6*7")).to_have_count(0)
    assert [c["title"] for c in kept(page)["conversations"]] == ["convert 5 miles"]


def test_clear_then_two_deletes_are_each_undone(open_at):
    page = open_at()
    for n, question in enumerate(("what is 6*7", "what is 2+2", "what is 3+3")):
        if n:
            page.click("#new-conversation")
            # New and the message are two requests: one sent before New is shown may come
            # first, and New would then stop its turn.
            expect(page.locator("#chat .user-row")).to_have_count(0)
        ask(page, question)
        turn_done(page, 1)
    page.click("#clear")
    cleared = page.locator("#undo-clear")
    expect(cleared).to_be_visible()
    wait_saved(page, 0)
    listed = past_list(page)
    deleted = page.locator("#undo-delete")
    for title in ("what is 6*7", "what is 2+2"):
        entry(listed, title).click()
        page.click("#delete-conversation")
        expect(entry(listed, title)).to_have_count(0)
    expect(deleted).to_contain_text("what is 2+2")
    expect(cleared).to_be_visible()  # the Clear stays undoable after the deletes
    button = deleted.get_by_role("button", name=TEXT["undo_delete"])
    button.click()
    expect(entry(listed, "what is 2+2")).to_have_count(1)
    expect(deleted).to_contain_text(TEXT["conversation_deleted"].format(title="what is 6*7"))
    button.click()
    expect(entry(listed, "what is 6*7")).to_have_count(1)
    expect(deleted).to_be_hidden()
    cleared.get_by_role("button", name=TEXT["undo_clear"]).click()
    expect(page.locator("#chat .user-row")).to_contain_text("what is 3+3")
    expect(cleared).to_be_hidden()
    wait_saved(page, 1)
    reload(page)
    expect(page.locator("#chat .user-row")).to_contain_text("what is 3+3")
    listed = past_list(page)
    expect(entry(listed, "what is 6*7")).to_have_count(1)
    expect(entry(listed, "what is 2+2")).to_have_count(1)


def test_an_offer_first_shown_in_english_speaks_chinese_once_the_page_does(open_at):
    page = open_at()
    ask(page, "what is 6*7")
    turn_done(page, 1)
    page.click("#clear")
    offer = page.locator("#undo-clear")
    expect(offer).to_contain_text(TEXT["conversation_cleared"])
    offer.get_by_role("button", name=TEXT["undo_clear"]).click()
    expect(offer).to_be_hidden()
    expect(page.locator("#chat .bot-row")).to_have_count(1)
    choose(page, "中文")
    expect(page.locator("#clear")).to_have_text(UI_TEXT["zh"]["clear"])
    page.click("#clear")
    expect(offer).to_contain_text(UI_TEXT["zh"]["conversation_cleared"])
    expect(offer.get_by_role("button")).to_have_text(UI_TEXT["zh"]["undo_clear"])
