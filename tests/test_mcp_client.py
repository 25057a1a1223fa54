"""The agent using the tools of real MCP servers (the SDK's FastMCP), over stdio and HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import uvicorn

from agent import Agent
from agent.models import ScriptedModel
from agent.models.base import ToolCallPart
from tests.conftest import collect
from tests.support.local import free_port
from tests.support.openai_server import OpenAIServer
from tools import default_tools
from tools.base import ToolSettings
from tools.mcp.tools import close_all, mcp_notices, mcp_tools

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tests" / "support" / "mcp_demo_server.py"


def stdio(*args: str) -> dict:
    return {"command": sys.executable, "args": [str(SERVER), *args]}


def write_config(path: Path, servers: dict) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def http_url():
    from tests.support.mcp_demo_server import server

    port = free_port()
    config = uvicorn.Config(
        server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning"
    )
    web = uvicorn.Server(config)
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    web.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def config(tmp_path_factory, http_url):
    folder = tmp_path_factory.mktemp("mcp")
    servers = {"demo": stdio(), "broken": stdio("crash"), "web": {"url": http_url}}
    yield write_config(folder / "mcp.json", servers)
    close_all()


@pytest.fixture(scope="module")
def tools(config):
    return mcp_tools(ToolSettings(mcp_config=config))


def by_name(tools, name):
    return next(tool for tool in tools if tool.name == name)


def agent_with(tools, *replies, **options):
    # These tests are about MCP itself: its tools act without asking (tests/test_approval.py).
    options.setdefault("approval", "always")
    return Agent(ScriptedModel(list(replies)), tools, **options)


def action(tool: str, **arguments) -> str:
    return f"Thought: use {tool}\nAction: {tool}\nAction Input: {json.dumps(arguments)}"


def results(events):
    return [e for e in events if e.type == "tool_result"]


def test_servers_tools_join_as_server_dot_tool(tools):
    names = {tool.name for tool in tools}
    assert {"demo.echo", "demo.square", "demo.paint", "demo.slow"} <= names
    assert {"web.echo", "web.square"} <= names
    echo = by_name(tools, "demo.echo")
    assert echo.required_fields() == ["text"] and echo.acts_on_world
    assert echo.description == "Repeat the text it is given."
    assert by_name(tools, "demo.image_size").uses_images


def test_a_server_that_crashes_at_start_is_one_notice(tools):
    about_broken = [n for n in mcp_notices() if "'broken'" in n]
    assert len(about_broken) == 1 and "not available" in about_broken[0]
    assert not any(tool.name.startswith("broken.") for tool in tools)


async def test_agent_calls_a_tool_over_stdio_and_over_http(tools):
    for name in ("demo.echo", "web.echo"):
        agent = agent_with(tools, action(name, text="hello"), "Thought: done\nAnswer: ok")
        events = await collect(agent, "echo hello")
        (result,) = results(events)
        assert result.ok and result.text == "echo: hello" and result.tool == name
        assert events[-1].type == "answer"


async def test_missing_required_argument_is_asked_of_the_person(tools):
    agent = agent_with(tools, action("demo.echo"))
    events = await collect(agent, "echo something")
    assert events[-1].type == "ask_user" and events[-1].missing == ["text"]
    assert not results(events)


async def test_returned_image_is_seen_by_the_model_next_step(tools):
    model = ScriptedModel([action("web.square", colour="blue"), "Thought: seen\nAnswer: blue"])
    events = await collect(Agent(model, tools, approval="always"), "draw a blue square")
    (result,) = results(events)
    assert [(i.width, i.height) for i in result.images] == [(24, 24)]
    parts = [p for m in model.requests[1].messages if isinstance(m["content"], list)
             for p in m["content"]]  # fmt: skip
    assert any(p.get("type") == "image_url" for p in parts)


async def test_image_id_is_sent_as_image_data(tools, png):
    agent = agent_with(tools, action("demo.image_size", image_base64="img_1"), "Answer: ok")
    events = await collect(agent, "how big is it?", [png])
    (result,) = results(events)
    assert result.ok and result.text == "64x32 (255, 0, 0)"


async def test_elicitation_asks_the_person_and_their_reply_answers_the_server(tools):
    agent = agent_with(
        tools,
        action("demo.paint", item="fence"),
        action("demo.paint", item="fence"),
        "Thought: painted\nAnswer: The fence is blue now.",
    )
    session = agent.new_session()
    first = await collect(agent, "paint the fence", session=session)
    assert first[-1].type == "ask_user"
    assert first[-1].question == "Which colour should the fence be?"
    assert session.task.tool == "demo.paint"
    second = await collect(agent, "blue", session=session)
    (result,) = results(second)
    assert result.text == "Painted the fence blue."
    assert second[-1].type == "answer" and session.task is None


async def test_a_reply_that_does_not_fit_the_question_declines(tools):
    agent = agent_with(tools, action("demo.delete", name="notes.txt"),
                       action("demo.delete", name="notes.txt"), "Answer: kept")  # fmt: skip
    session = agent.new_session()
    first = await collect(agent, "delete notes.txt", session=session)
    assert first[-1].type == "ask_user" and first[-1].question == "Really delete notes.txt?"
    (result,) = results(await collect(agent, "hmm, maybe", session=session))
    assert result.text == "Kept notes.txt (decline)."


async def test_native_tool_calls_reach_mcp_tools_and_their_questions(tools):
    """Endpoints take `demo_paint` for `demo.paint` (no dots in function names)."""

    def paint(call_id: str) -> list:
        return [ToolCallPart(id=call_id, name="demo_paint", arguments='{"item": "gate"}')]

    model = ScriptedModel([paint("c1"), paint("c2"), "It is red now."], native_tools=True)
    agent = Agent(model, tools, tool_protocol="native", approval="always")
    session = agent.new_session()
    first = await collect(agent, "paint the gate", session=session)
    assert first[-1].type == "ask_user" and "gate" in first[-1].question
    second = await collect(agent, "red", session=session)
    assert [r.text for r in results(second)] == ["Painted the gate red."]
    assert second[-1].type == "answer" and second[-1].text == "It is red now."


async def test_slow_tool_times_out_with_progress_and_the_session_goes_on(tools):
    agent = agent_with(
        tools,
        action("demo.slow", seconds=5),
        action("demo.echo", text="still here"),
        "Answer: ok",
        tool_timeout=1.0,
    )
    started = time.monotonic()
    events = await collect(agent, "wait")
    slow, echo = results(events)
    assert not slow.ok and "did not finish within 1 seconds" in slow.text
    assert time.monotonic() - started < 4
    assert any(e.type == "tool_progress" and e.message == "waiting" for e in events)
    assert echo.ok and echo.text == "echo: still here"


async def test_a_server_that_dies_is_started_again(tmp_path):
    config = write_config(tmp_path / "mcp.json", {"solo": stdio()})
    tools = mcp_tools(ToolSettings(mcp_config=config))
    try:
        # Dead between calls: started again, and the call made, without the model noticing.
        events = await collect(agent_with(tools, action("solo.exit_soon"), "Answer: ok"), "bye")
        assert results(events)[0].text == "bye"
        await asyncio.sleep(0.6)
        events = await collect(agent_with(tools, action("solo.echo", text="a"), "Answer: ok"), "a")
        assert results(events)[0].text == "echo: a"
        # Dead during a call: not made twice (the server may have acted); the next call works.
        agent = agent_with(
            tools, action("solo.die"), action("solo.echo", text="back"), "Answer: ok"
        )
        died, echo = results(await collect(agent, "die, then echo"))
        assert not died.ok and "closed the connection during die" in died.text
        assert echo.ok and echo.text == "echo: back"
        assert not mcp_notices() or not any("solo" in n for n in mcp_notices())
    finally:
        close_all()


def test_a_server_that_hangs_at_start_is_one_notice(tmp_path, monkeypatch):
    import tools.mcp.client

    monkeypatch.setattr(tools.mcp.client, "START_TIMEOUT", 1.0)
    silent = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    # Alone: a real server may need more than this short wait to start on a busy machine.
    config = write_config(tmp_path / "mcp.json", {"silent": silent})
    try:
        assert mcp_tools(ToolSettings(mcp_config=config)) == []
        (notice,) = [n for n in mcp_notices() if "'silent'" in n]
        assert "did not answer in time" in notice
    finally:
        close_all()


def test_no_config_no_mcp_tools_and_a_bad_file_is_a_notice(tmp_path):
    assert not any("." in tool.name for tool in default_tools(ToolSettings()))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    try:
        assert mcp_tools(ToolSettings(mcp_config=bad)) == []
        assert any("bad.json" in n and "not valid JSON" in n for n in mcp_notices())
    finally:
        close_all()


def run_cli(config: Path, replies: list[str], *args: str) -> subprocess.CompletedProcess:
    with OpenAIServer(replies=replies) as model_server:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": "/tmp",
            "OPENAI_BASE_URL": model_server.base_url,
            "AGENT_MCP_CONFIG": str(config),
            "AGENT_APPROVAL": "always",
        }
        return subprocess.run(
            [sys.executable, "-m", "agent", *args, "--model", "test-model"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )


def test_cli_uses_mcp_tools_from_the_config(config):
    replies = [action("demo.echo", text="from the CLI"), "Thought: done\nAnswer: echoed"]
    done = run_cli(config, replies, "echo from the CLI")
    assert done.returncode == 0, done.stderr
    assert 'Action: demo.echo {"text": "from the CLI"}' in done.stdout
    assert "Observation" in done.stdout and "echo: from the CLI" in done.stdout
    assert "'broken' could not be started" in done.stderr


def test_cli_answers_a_servers_question_in_the_next_call(tmp_path):
    config = write_config(tmp_path / "mcp.json", {"demo": stdio()})
    saved = str(tmp_path / "s.json")
    paint = action("demo.paint", item="fence")
    done = run_cli(config, [paint], "paint the fence", "--session", saved)
    assert "Question: Which colour should the fence be?" in done.stdout
    done = run_cli(config, [paint, "Answer: done"], "green", "--session", saved, "--continue")
    assert "Painted the fence green." in done.stdout and done.returncode == 0
