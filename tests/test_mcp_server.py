"""The launched page as an MCP server (AGENT_MCP_SERVER=1), through the SDK's own client."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import app
from agent.config import Settings
from agent.models import OfflineModel
from tests.support import recorded_run
from tests.support.local import free_port, serve

# Gradio says so of the page's /chat (it takes the session's state), which MCP clients never see.
pytestmark = pytest.mark.filterwarnings("ignore:This MCP server includes a tool that has a gr")
ROOT = Path(app.__file__).resolve().parent
EXAMPLES = ROOT / "assets" / "examples"
TOOLS = ("read_text", "zoom", "scan_code", "image_info", "colors", "calculator",
         "convert_units", "world_clock", "ask_agent")  # fmt: skip


@pytest.fixture(scope="module")
def mcp_url():
    env = Settings(mcp_server=True)
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env)
    try:
        url = serve(demo, **app.launch_options(env))
        yield f"{url}gradio_api/mcp/"
    finally:
        demo.close()


def data_url(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


async def with_client(url: str, work):
    async with (
        streamable_http_client(url) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await work(session)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_clients_see_the_tools_typed_and_described(mcp_url):
    listed = (await with_client(mcp_url, lambda s: s.list_tools())).tools
    by_name = {tool.name: tool for tool in listed}
    for name in TOOLS:
        assert any(name in listed_name for listed_name in by_name), name
    assert all(tool.description for tool in listed)
    # The page's own endpoints take page state; ask_agent is the way to ask.
    assert not {"chat", "ask", "reset"} & set(by_name)
    read_text = by_name["read_text"].inputSchema
    assert read_text["required"] == ["image"]
    assert read_text["properties"]["min_confidence"]["type"] == "number"
    assert "data URL" in read_text["properties"]["image"]["description"]
    ask = by_name["ask_agent"].inputSchema
    assert ask["required"] == ["text"] and ask["properties"]["images"]["type"] == "array"


async def test_read_text_reads_an_image_sent_as_data(mcp_url):
    sign = data_url(EXAMPLES / "sign.png")
    result = await with_client(mcp_url, lambda s: s.call_tool("read_text", {"image": sign}))
    assert not result.isError and "LIBRARY" in text_of(result)


async def test_zoom_answers_with_an_image_and_utilities_answer_in_text(mcp_url):
    sign = data_url(EXAMPLES / "sign.png")

    async def work(session):
        zoomed = await session.call_tool("zoom", {"image": sign, "region": "top-half"})
        sums = await session.call_tool("calculator", {"expression": "2**10"})
        miles = await session.call_tool(
            "convert_units", {"value": 5, "from_unit": "miles", "to_unit": "km"}
        )
        bad = await session.call_tool("read_text", {"image": "data:image/png;base64,AAAA"})
        return zoomed, sums, miles, bad

    zoomed, sums, miles, bad = await with_client(mcp_url, work)
    assert [block.type for block in zoomed.content][:2] == ["text", "image"]
    assert "1024" in text_of(sums) and "8.04672" in text_of(miles)
    assert bad.isError and text_of(bad)


async def test_ask_agent_runs_a_whole_turn(mcp_url):
    question = {"text": "What is 12.5% of 2480 plus 37?"}
    result = await with_client(mcp_url, lambda s: s.call_tool("ask_agent", question))
    assert not result.isError and "347" in text_of(result)


async def test_ask_agent_with_an_image(mcp_url):
    question = {"text": "What does this sign say?", "images": [data_url(EXAMPLES / "sign.png")]}
    result = await with_client(mcp_url, lambda s: s.call_tool("ask_agent", question))
    assert not result.isError and "LIBRARY" in text_of(result)


async def test_ask_agent_returns_the_question_it_asks(mcp_url):
    result = await with_client(
        mcp_url, lambda s: s.call_tool("ask_agent", {"text": "What time is it?"})
    )
    assert text_of(result) == "Which city or time zone?"


async def test_python_app_py_serves_mcp_when_the_setting_is_on():
    port = free_port()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "AGENT_MCP_SERVER": "1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    # Reading text is not what is tested: the OCR workers answer with recorded replies.
    process = subprocess.Popen(
        [sys.executable, *recorded_run.command("app.py")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/gradio_api/mcp/"
        deadline = time.monotonic() + 90
        while True:
            try:
                listed = await with_client(url, lambda s: s.list_tools())
                break
            except Exception:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                await asyncio.sleep(0.5)
        names = [tool.name for tool in listed.tools]
        assert "ask_agent" in names and "read_text" in names
    finally:
        process.terminate()
        process.wait(20)
