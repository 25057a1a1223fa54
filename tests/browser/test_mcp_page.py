"""An MCP server's tools from the page, in Chromium: the call waits for approval (MCP tools act
on the outside world), runs over stdio once approved, and its text and image come back."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import app
from agent.config import Settings
from agent.models import ScriptedModel
from tests.support.local import CHROMIUM, open_page, serve
from tools.base import ToolSettings
from tools.mcp.tools import close_all, mcp_tools

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
SERVER = Path(__file__).resolve().parent.parent / "support" / "mcp_demo_server.py"
REPLIES: list[str] = []


def action(tool: str, **arguments) -> str:
    return f"Thought: use {tool}\nAction: {tool}\nAction Input: {json.dumps(arguments)}"


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    config = tmp_path_factory.mktemp("mcp") / "mcp.json"
    servers = {"demo": {"command": sys.executable, "args": [str(SERVER)]}}
    config.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    tools = mcp_tools(ToolSettings(mcp_config=config))

    def factory(prefs):
        return ScriptedModel([lambda request: REPLIES.pop(0)] * 8, name="scripted")

    env = Settings(approval="ask")
    demo = app.build_demo(model_factory=factory, env=env, tools=tools)
    try:
        yield serve(demo, **app.launch_options(env))
    finally:
        demo.close()
        close_all()


@pytest.fixture
def page(browser, url):
    page = open_page(browser, url)
    REPLIES.clear()
    yield page
    page.context.close()


def ask(page, text: str) -> None:
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def test_an_mcp_tool_runs_from_the_page_once_approved(page):
    REPLIES[:] = [action("demo.echo", text="hello"), "Answer: The server said: echo: hello"]
    ask(page, "echo hello through the demo server")
    sync_api.expect(page.locator("#approval-call")).to_contain_text("demo.echo")
    page.click("#approval-approve")
    sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text("echo: hello")
    trace = page.locator("#trace")
    sync_api.expect(trace).to_contain_text("Approved: demo.echo")
    page.locator("#trace").get_by_text("Tool: demo.echo").last.click()  # the step unfolds
    sync_api.expect(trace).to_contain_text("echo: hello")


def test_an_image_an_mcp_tool_returns_is_shown_in_the_trace(page):
    REPLIES[:] = [action("demo.square", colour="red", size=32), "Answer: Here is a red square."]
    ask(page, "draw a red square")
    page.click("#approval-approve")
    sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text("red square")
    page.locator("#trace").get_by_text("Tool: demo.square").last.click()  # the step unfolds
    sync_api.expect(page.locator("#trace img").first).to_be_visible()
