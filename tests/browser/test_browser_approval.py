"""Approval on the page, in Chromium: a call to a tool that acts on the outside world shows
the approval panel, and Approve, Edit arguments, Deny and "always allow" each do what they say.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import app
from agent.config import Settings
from agent.models import ScriptedModel
from tests.support.local import CHROMIUM, open_page, serve
from tests.test_approval import ORDER, SENT, Order
from tools.calculator import Calculator

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
# The model's replies, one per model call, whichever turn makes it.
REPLIES: list[str] = []
# Whether the model can call tools natively (the protocol test turns it on).
NATIVE = {"on": False}


@pytest.fixture(scope="module")
def url():
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")

    def factory(prefs):
        replies = [lambda request: REPLIES.pop(0)] * 8
        return ScriptedModel(replies, name="scripted", native_tools=NATIVE["on"])

    env = Settings(approval="ask")
    demo = app.build_demo(model_factory=factory, env=env, tools=[Order(), Calculator()])
    try:
        yield serve(demo, **app.launch_options(env))
    finally:
        demo.close()


@pytest.fixture
def page(browser, url):
    SENT.clear()
    REPLIES.clear()
    page = open_page(browser, url)
    yield page
    page.context.close()


def ask(page, text: str) -> None:
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def panel_shows_the_call(page) -> None:
    sync_api.expect(page.locator("#approval-approve")).to_be_visible()
    sync_api.expect(page.locator("#approval-call")).to_contain_text("order")
    sync_api.expect(page.locator("#approval-call")).to_contain_text('"item": "tea"')


def answered(page, text: str) -> None:
    sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text(text)
    sync_api.expect(page.locator("#approval-approve")).to_be_hidden()


def test_approve_runs_the_call_and_the_trace_shows_request_and_decision(page):
    REPLIES[:] = [ORDER, "Answer: Two teas are on their way."]
    ask(page, "order two teas")
    panel_shows_the_call(page)
    assert SENT == []
    sync_api.expect(page.locator("#trace")).to_contain_text("Approval needed: order")
    page.click("#approval-approve")
    answered(page, "Two teas are on their way.")
    assert SENT == [{"item": "tea", "count": 2}]
    sync_api.expect(page.locator("#trace")).to_contain_text("Approved: order")


def test_edit_arguments_runs_the_edited_call_and_bad_json_keeps_it_waiting(page):
    REPLIES[:] = [ORDER, "Answer: Coffee it is."]
    ask(page, "order two teas")
    panel_shows_the_call(page)
    page.click("#approval-edit button")  # the accordion opens
    editor = page.locator("#approval-args .cm-content")
    sync_api.expect(editor).to_contain_text('"tea"')
    editor.fill('{"item": "coffee", "count": ')
    page.click("#approval-run-edited")
    sync_api.expect(page.locator("#approval-call")).to_contain_text("not valid JSON")
    sync_api.expect(editor).to_contain_text('"coffee"')  # what was typed is still there
    assert SENT == []
    editor.fill(json.dumps({"item": "coffee", "count": 3}))
    page.click("#approval-run-edited")
    answered(page, "Coffee it is.")
    assert SENT == [{"item": "coffee", "count": 3}]
    sync_api.expect(page.locator("#trace")).to_contain_text("Approved with edits: order")


def test_deny_tells_the_model_and_nothing_runs(page):
    REPLIES[:] = [ORDER, "Answer: All right, I ordered nothing."]
    ask(page, "order two teas")
    panel_shows_the_call(page)
    page.click("#approval-deny")
    answered(page, "I ordered nothing.")
    assert SENT == []
    sync_api.expect(page.locator("#trace")).to_contain_text("Denied: order")


def test_always_allow_stops_asking_for_that_tool_in_this_conversation(page):
    REPLIES[:] = [ORDER, "Answer: First order done.", ORDER, "Answer: Second order done."]
    ask(page, "order two teas")
    panel_shows_the_call(page)
    page.locator("#approval-always input").check()
    page.click("#approval-approve")
    answered(page, "First order done.")
    ask(page, "order two more")
    answered(page, "Second order done.")
    assert len(SENT) == 2
    # The decision stands as the person's words of its turn (earlier turns fold in the trace).
    sync_api.expect(page.locator("#trace")).to_contain_text("Turn 2: Approve")


def test_a_reload_keeps_the_waiting_call_and_then_the_always(page):
    REPLIES[:] = [ORDER, "Answer: Two teas are on their way.", ORDER, "Answer: And two more."]
    ask(page, "order two teas")
    panel_shows_the_call(page)
    # The browser has kept the waiting call once the turn has ended and been saved.
    page.wait_for_function(
        """() => Object.keys(localStorage).some((k) => k.includes('/c/')
             && (localStorage.getItem(k) || '').includes('"approval":{'))"""
    )
    page.reload()
    panel_shows_the_call(page)
    page.check("#approval-always input")
    page.click("#approval-approve")
    answered(page, "Two teas are on their way.")
    page.wait_for_function(
        """() => Object.keys(localStorage).some((k) => k.includes('/c/')
             && (localStorage.getItem(k) || '').includes('"allowed_tools":["order"]'))"""
    )
    page.reload()
    # A message sent before the page has restored its conversation starts one of its own.
    sync_api.expect(page.locator("#chat")).to_contain_text("Two teas are on their way.")
    ask(page, "two more")
    answered(page, "And two more.")
    assert SENT == [{"item": "tea", "count": 2}] * 2


def test_typing_yes_in_chinese_approves_and_the_panel_speaks_chinese(browser, url):
    SENT.clear()
    REPLIES[:] = [ORDER, "Answer: 好的，已下单。"]
    page = open_page(browser, url, locale="zh-CN")
    try:
        ask(page, "帮我订两杯茶")
        sync_api.expect(page.locator("#approval-approve")).to_be_visible()
        sync_api.expect(page.locator("#approval-approve")).to_have_text("批准")
        sync_api.expect(page.locator("#approval-deny")).to_have_text("拒绝")
        sync_api.expect(page.locator("#approval-call")).to_contain_text("需要批准")
        ask(page, "好")
        answered(page, "已下单")
        assert SENT == [{"item": "tea", "count": 2}]
    finally:
        page.context.close()


def test_the_panel_first_shown_in_english_speaks_chinese_once_the_page_does(page):
    REPLIES[:] = [ORDER, "Answer: Two teas are on their way.", ORDER, "Answer: 好的。"]
    ask(page, "order two teas")
    sync_api.expect(page.locator("#approval-approve")).to_have_text("Approve")
    page.click("#approval-approve")
    answered(page, "Two teas are on their way.")
    page.click("#settings button")  # open the Settings accordion
    page.locator("#language").get_by_text("中文", exact=True).click()
    sync_api.expect(page.locator("#clear")).to_have_text("清空")
    ask(page, "再来两杯")
    sync_api.expect(page.locator("#approval-approve")).to_have_text("批准")
    sync_api.expect(page.locator("#approval-deny")).to_have_text("拒绝")
    sync_api.expect(page.locator("#approval-always")).to_contain_text("在本对话中总是允许这个工具")


def test_the_protocol_radio_picks_the_protocol_and_the_status_line_names_it(page):
    NATIVE["on"] = True
    try:
        REPLIES[:] = ["Hello there.", "Hello again."]
        ask(page, "hi")
        status = page.locator("#run-status")
        sync_api.expect(status).to_contain_text("native tool calls")
        page.click("#settings button")  # open the Settings accordion
        page.locator("#protocol").get_by_text("ReAct text").click()
        ask(page, "hi again")
        sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text("Hello again.")
        sync_api.expect(status).to_contain_text("ReAct text")
    finally:
        NATIVE["on"] = False


def test_mcp_servers_that_failed_are_named_when_the_page_opens(browser, url, tmp_path):
    from tools.base import ToolSettings
    from tools.mcp.tools import close_all, mcp_tools

    config = tmp_path / "mcp.json"
    config.write_text("{not json", encoding="utf-8")
    try:
        mcp_tools(ToolSettings(mcp_config=config))
        page = open_page(browser, url)
        toast = page.get_by_text("Some MCP tools are not available")
        sync_api.expect(toast).to_be_visible()
        sync_api.expect(page.get_by_text("not valid JSON")).to_be_visible()
        page.context.close()
    finally:
        close_all()
