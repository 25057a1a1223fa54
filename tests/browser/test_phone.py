"""The page on a phone (390x844): the chat is in view when it opens and after each message,
the trace is one tap away and back, and a step's title keeps to two lines. On a desktop
(1400x1000) the chat and the trace stay side by side, with no jump buttons."""

from __future__ import annotations

import pytest

from tests.support.page_driver import DESKTOP, EXAMPLES, PHONE, send, wait_done

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def top(page, selector: str) -> float:
    return page.locator(selector).first.evaluate("el => el.getBoundingClientRect().top")


def bottom(page, selector: str) -> float:
    return page.locator(selector).first.evaluate("el => el.getBoundingClientRect().bottom")


def in_view(page, selector: str) -> bool:
    return top(page, selector) >= 0 and bottom(page, selector) <= PHONE["height"]


def comes_into_view(page, *selectors: str) -> None:
    """Wait until each of `selectors` is on the phone's screen, top to bottom."""
    page.wait_for_function(
        """([selectors, height]) => selectors.every((s) => {
            const box = document.querySelector(s).getBoundingClientRect();
            return box.top >= 0 && box.bottom <= height;
        })""",
        arg=[list(selectors), PHONE["height"]],
    )


def comes_to_the_top(page, selector: str) -> None:
    """Wait until `selector` is at the top of the screen (a jump scrolls smoothly)."""
    page.wait_for_function(
        "s => Math.abs(document.querySelector(s).getBoundingClientRect().top) <= 2", arg=selector
    )


def test_a_phone_opens_at_the_chat_and_keeps_the_answer_in_view(open_at):
    page = open_at(PHONE)  # opened once the page has loaded, its input focused or not
    assert abs(top(page, "#chat")) <= 2, "the page opens at the top of the chat"
    assert in_view(page, "#input")
    # Scrolled elsewhere, sending a message brings the chat back with the input under it.
    page.mouse.wheel(0, 2000)
    page.wait_for_function(
        "() => Math.abs(document.querySelector('#chat').getBoundingClientRect().top) > 2"
    )
    send(page, "Zoom into the bottom right corner and read the text", EXAMPLES / "label.png")
    wait_done(page)
    comes_into_view(page, "#chat", "#input")
    # The newest answer is at the bottom of the chat, in view.
    scroller = page.locator("#chat .bubble-wrap")
    assert scroller.evaluate("el => el.scrollHeight - el.scrollTop - el.clientHeight < 40")
    last = page.locator("#chat .bot-row").last
    assert bottom(page, "#chat .bot-row >> nth=-1") <= bottom(page, "#chat") + 1
    expect(last).to_be_in_viewport()


def test_on_a_phone_the_trace_is_one_tap_from_the_input_and_back(open_at):
    page = open_at(PHONE)
    send(page, "Zoom into the bottom right corner and read the text there", EXAMPLES / "label.png")
    wait_done(page)
    jump = page.locator("#to-trace")
    expect(jump).to_be_visible()
    # The jump sits right under the input, in view with it.
    assert in_view(page, "#to-trace") and in_view(page, "#input")
    jump.click()
    comes_to_the_top(page, "#trace-column")
    expect(page.locator("#trace")).to_be_in_viewport()
    expect(page.locator("#run-status")).to_be_in_viewport()
    # Turn titles keep to two lines; the step's time stays on one.
    titles = page.locator("#trace .thought-group .title")
    assert titles.count() >= 3
    for title in titles.all():
        text = title.locator(".md").evaluate("el => el.getBoundingClientRect().height")
        line = title.locator(".md").evaluate(
            "el => parseFloat(getComputedStyle(el.querySelector('p') || el).lineHeight)"
        )
        assert text <= 2 * line + 2, title.inner_text()
        time = title.locator(".duration")
        if time.count():
            assert time.evaluate("el => el.getClientRects().length") == 1
    # The steps use the trace's width, and its label sits above the first of them.
    width = page.locator("#trace .bubble-wrap").evaluate("el => el.clientWidth")
    group = page.locator("#trace .thought-group").first
    assert group.evaluate("el => el.getBoundingClientRect().width") >= 0.9 * width
    label = page.locator("#trace > .wrapper > label")
    assert label.evaluate("el => el.getBoundingClientRect().bottom") <= top(
        page, "#trace .message-row"
    )
    page.locator("#to-chat").click()
    comes_to_the_top(page, "#chat")
    assert in_view(page, "#input")


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_desktop_keeps_the_chat_and_the_trace_side_by_side(open_at, locale):
    page = open_at(DESKTOP, locale)
    expect(page.locator("#to-trace")).to_be_hidden()
    expect(page.locator("#to-chat")).to_be_hidden()
    chat, trace = page.locator("#chat").bounding_box(), page.locator("#trace").bounding_box()
    assert trace["x"] > chat["x"] + chat["width"] - 1  # beside it, not under it
    assert chat["height"] == 560
    assert page.evaluate("window.scrollY") == 0


def test_the_phone_jump_buttons_speak_the_pages_language(open_at):
    page = open_at(PHONE, "zh-CN")
    expect(page.locator("#to-trace")).to_have_text("追踪 ↓")
    expect(page.locator("#to-chat")).to_have_text("↑ 返回对话")
