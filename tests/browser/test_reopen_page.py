"""A conversation downloaded from the chat opens back into the chat in a real browser and goes
on: download it, start a new conversation, open the zip with "Open a downloaded conversation",
see its turns and images, and send a next message about one of its images by id. A file that is
no download is one sentence, and the conversation shown stays."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import segno

import app
from ui.conversations.panel import STORAGE_PREFIX

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
EXAMPLES = Path(app.__file__).resolve().parent / "assets" / "examples"
URL = "https://example.org/menu"
# This tab's conversation as the browser keeps it: its id and its number of turns.
_CURRENT = """prefix => {
  const id = sessionStorage.getItem(prefix + "current");
  const kept = JSON.parse(localStorage.getItem(prefix + "c/" + id) || "null");
  return [id, kept ? kept.turns.length : 0];
}"""


def ask(page, text: str, *images: Path) -> None:
    if images:
        page.set_input_files("#input input[type=file]", [str(i) for i in images])
        page.wait_for_function(
            "n => document.querySelectorAll('#input img').length >= n", arg=len(images)
        )
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def kept_current(page) -> tuple[str, int]:
    return tuple(page.evaluate(_CURRENT, STORAGE_PREFIX))


def open_file(page, path: Path) -> None:
    """Open `path` with the past conversations' "Open a downloaded conversation"."""
    button = page.locator("#reopen-conversation")
    if not button.is_visible():
        page.locator("#conversations").get_by_text("Past conversations").first.click()
    with page.expect_file_chooser() as chooser:
        button.click()
    chooser.value.set_files(str(path))


def test_a_downloaded_conversation_opens_in_the_chat_and_goes_on(open_at, tmp_path):
    qr = tmp_path / "menu.png"
    segno.make(URL, error="m").save(qr, scale=8)
    page = open_at()
    chat = page.locator("#chat")
    ask(page, "what size is this?", EXAMPLES / "sign.png", qr)
    expect(chat.locator(".bot-row")).to_have_count(1)
    expect(page.locator("#run-status")).to_contain_text("model call")
    expect(page.locator("#download")).to_be_enabled()
    with page.expect_download() as info:
        page.click("#download")
    saved = tmp_path / "conversation.zip"
    info.value.save_as(saved)
    first, _ = kept_current(page)
    page.click("#new-conversation")
    expect(chat.locator(".bot-row")).to_have_count(0)
    # A file that is no download: one sentence, and nothing changes.
    notes = tmp_path / "notes.zip"
    notes.write_text("not a zip", encoding="utf-8")
    open_file(page, notes)
    expect(page.locator(".toast-body")).to_contain_text(
        "notes.zip: This is not a conversation downloaded from this page's chat"
    )
    expect(chat.locator(".bot-row")).to_have_count(0)
    # Not even a .zip: the same sentence (Gradio refuses it before the server sees it).
    renamed = tmp_path / "conversation.txt"
    renamed.write_bytes(saved.read_bytes())
    open_file(page, renamed)
    expect(page.locator(".toast-body").last).to_contain_text(
        "conversation.txt: This is not a conversation downloaded from this page's chat"
    )
    expect(chat.locator(".bot-row")).to_have_count(0)
    open_file(page, saved)
    expect(chat.locator(".user-row")).to_contain_text("what size is this?")
    expect(chat.locator(".user-row img")).to_have_count(2)
    expect(chat.locator(".bot-row")).to_have_count(1)
    expect(page.locator("#trace")).to_contain_text("Turn 1")
    # Kept in the browser at once, under an id of its own.
    deadline = time.monotonic() + 10
    while kept_current(page)[1] != 1:
        assert time.monotonic() < deadline, "the opened conversation was not kept"
        page.wait_for_timeout(100)
    assert kept_current(page)[0] != first
    # The next message means the same picture by the same id.
    ask(page, "scan the QR code in img_2")
    expect(chat.locator(".bot-row")).to_have_count(2)
    expect(chat.locator(".bot-row").last).to_contain_text(URL)
    expect(page.locator("#trace")).to_contain_text(re.compile(r"scan_code"))
