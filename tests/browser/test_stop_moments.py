"""Stop ends the turn whenever it is pressed: while the model streams, a moment after sending,
during a tool call, and while the answer streams. Afterwards the status says stopped, the
answer never finishes (what had streamed of it stays, marked stopped), and the conversation
keeps no trace of the stopped turn in its history.

Real Chromium against the launched app, with a scripted model that streams slowly and a tool
that takes a while."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from pydantic import Field

import app
from agent.models import ScriptedModel
from tests.support.held_model import Gate, HeldBefore
from tests.support.local import CHROMIUM, open_page, serve
from tools.base import StrictArgs, Tool, ToolResult

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

ANSWER = "FINISHED-ANSWER"
# The answer's end: a turn stopped while its answer streams may show the start of it, never this.
ANSWER_END = "to stream out."
TOOL_SECONDS = 1.5
# A gate a test sets here holds the next turns at their first model call until it opens.
HOLD: dict[str, Gate | None] = {"gate": None}


class WaitArgs(StrictArgs):
    label: str = Field(default="x", description="Anything.")


class SlowWait(Tool):
    name = "slow_wait"
    description = "Wait a moment, then say done."
    Args = WaitArgs

    def run(self, args, ctx):
        ends = time.monotonic() + TOOL_SECONDS
        while time.monotonic() < ends and not ctx.cancelled:
            time.sleep(0.02)
        return ToolResult(text="waited")


def replies() -> list[str]:
    return [
        "Thought: I will wait a moment first.\nAction: slow_wait\nAction Input: {}",
        f"Thought: The wait is over.\nAnswer: {ANSWER} and a few more words to stream out.",
    ]


@pytest.fixture(scope="module")
def url():
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    made = []

    def factory(prefs):
        # About 0.5 s of streaming before the tool, 1.5 s of tool, 0.7 s of answer.
        model = ScriptedModel(replies(), delay=0.05, chunk_size=4, name="slow")
        made.append(model)
        gate = HOLD["gate"]
        return HeldBefore(model, 1, gate) if gate is not None else model

    demo = app.build_demo(model_factory=factory, tools=[SlowWait()])
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


def send(page, text: str) -> float:
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")
    return time.monotonic()


# A turn not stopped would have ended by then (0.5 s streaming, the tool, 0.7 s of answer).
TURN_ENDS_WITHIN = 0.5 + TOOL_SECONDS + 0.7 + 0.8


def stays_stopped(page, stopped: str, stopped_text: str, sent: float) -> None:
    """The status says stopped at once and still does after the turn, had it gone on, would
    have finished (`sent`: when its message was sent)."""
    status = page.locator("#run-status")
    sync_api.expect(status).to_contain_text(stopped, timeout=5_000)
    time.sleep(max(0.5, sent + TURN_ENDS_WITHIN - time.monotonic()))
    sync_api.expect(status).to_contain_text(stopped)
    chat = page.locator("#chat")
    sync_api.expect(chat).to_contain_text(stopped_text)
    assert ANSWER_END not in chat.inner_text()
    assert ANSWER_END not in page.locator("#trace").inner_text()
    sync_api.expect(page.locator("#input button.stop-button")).to_be_hidden()


def press(page, how: str) -> None:
    if how == "button":
        page.click("#stop")
    else:
        page.locator("#input button.stop-button").click()


# Each moment once (streaming, just before the tool, in the answer; in the tool is the next
# test's), the two ways of pressing Stop taking turns.
@pytest.mark.parametrize(("after", "how"), [(0.2, "button"), (0.6, "square"), (2.3, "square")])
def test_stop_after_a_while_always_ends_the_turn(browser, url, after, how):
    page = open_page(browser, url)
    try:
        sent = send(page, "wait for me")
        if how == "square":
            page.locator("#input button.stop-button").wait_for(state="visible")
        time.sleep(max(0.0, after - (time.monotonic() - sent)))
        press(page, how)
        stays_stopped(page, "Stopped", "Stopped before it finished", sent)
    finally:
        page.context.close()


def test_stop_during_the_tool_call_ends_the_turn_and_the_next_one_runs(browser, url):
    page = open_page(browser, url)
    try:
        page.evaluate(WATCH_STATUS)
        sent = send(page, "wait for me")
        page.locator("#trace").get_by_text("Tool: slow_wait").wait_for()
        press(page, "button")
        stays_stopped(page, "Stopped", "Stopped before it finished", sent)
        send(page, "again, to the end this time")
        sync_api.expect(page.locator("#chat")).to_contain_text(ANSWER, timeout=15_000)
        sync_api.expect(page.locator("#run-status")).to_contain_text("model call")
        shows_only_the_pages_words(page)
    finally:
        page.context.close()


def test_stop_right_after_enter_in_a_chinese_browser_says_so_in_chinese(browser, url):
    page = open_page(browser, url, locale="zh-CN")
    # The turn holds before its first model call until Stop has been seen: on a loaded machine
    # the click itself may take longer than the whole turn, and a Stop after the answer has
    # nothing left to stop. The Stop may still reach the server before the message does.
    gate = HOLD["gate"] = Gate()
    try:
        page.evaluate(WATCH_STATUS)
        send(page, "等我一下")
        press(page, "button")
        sync_api.expect(page.locator("#run-status")).to_contain_text("已停止", timeout=15_000)
        gate.open()
        stays_stopped(page, "已停止", "在完成前被停止", time.monotonic())
        shows_only_the_pages_words(page)
    finally:
        HOLD["gate"] = None
        gate.open()
        page.context.close()


@pytest.mark.parametrize("after", [0.0, 0.6])
def test_stop_right_after_retry_ends_the_retried_turn(browser, url, after):
    page = open_page(browser, url)
    try:
        send(page, "wait for me")
        sync_api.expect(page.locator("#chat")).to_contain_text(ANSWER, timeout=15_000)
        sync_api.expect(page.locator("#run-status")).to_contain_text("model call")
        retried = time.monotonic()
        page.click("#retry")
        time.sleep(after)
        press(page, "button")
        stays_stopped(page, "Stopped", "Stopped before it finished", retried)
        sync_api.expect(page.locator("#chat .user-row")).to_have_count(1)
    finally:
        page.context.close()


# Every text the status line shows, as the page changes it (innerText, so what is read out and
# copied too, not only what is painted): Gradio's progress words ("queue: 1/1", "processing",
# "0.2s") are never among them, in either language.
WATCH_STATUS = """() => {
  window.statusSeen = [];
  const status = document.querySelector('#run-status');
  new MutationObserver(() => window.statusSeen.push(status.innerText.trim()))
    .observe(status, { subtree: true, childList: true, characterData: true, attributes: true });
}"""


def shows_only_the_pages_words(page) -> None:
    seen = page.evaluate("window.statusSeen")
    assert seen, "the status line never changed"
    gradio_words = [s for s in seen if re.search(r"queue|processing|\d\.\ds\b", s)]
    assert not gradio_words, gradio_words


def test_the_stop_button_is_red_only_while_a_turn_runs(browser, url):
    page = open_page(browser, url)
    stop = page.locator("#stop")
    red, grey = "rgb(185, 28, 28)", "rgb(71, 85, 105)"
    try:
        sync_api.expect(stop).to_have_css("color", grey)
        send(page, "wait for me")
        sync_api.expect(stop).to_have_css("color", red)
        sync_api.expect(page.locator("#chat")).to_contain_text(ANSWER, timeout=15_000)
        sync_api.expect(stop).to_have_css("color", grey)
        # An example's turn runs as a typed one: the stop square in the input, Stop red.
        page.locator("#examples button").first.click()
        sync_api.expect(page.locator("#input button.stop-button")).to_be_visible()
        sync_api.expect(stop).to_have_css("color", red)
        sync_api.expect(page.locator("#chat .bot-row")).to_have_count(2, timeout=15_000)
        sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text(ANSWER_END)
        sync_api.expect(stop).to_have_css("color", grey)
    finally:
        page.context.close()
