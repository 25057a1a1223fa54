"""Approval where it is used: the weather plugin (an HTTP tool) against a server this test
starts on 127.0.0.1, the command line's --approve and its saved session, a scenario's
`approval:`, and `/ask` with a policy through gradio_client."""

from __future__ import annotations

import json
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from gradio_client import Client

import app
from agent import Agent, Session
from agent.__main__ import main
from agent.approval import ApprovalDecision
from agent.config import Settings
from agent.events import EVENT_ADAPTER
from agent.models import OfflineModel, ScriptedModel
from agent.scenarios import load_file, run_scenario
from tests.support.local import serve
from tools import default_tools

ASKED: list[str] = []


class Weather(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        split = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        ASKED.append(split.path)
        if split.path == "/v1/search":
            place = {
                "name": query["name"],
                "country": "Norway",
                "latitude": 59.9,
                "longitude": 10.7,
            }
            payload: dict = {"results": [place]}
        else:
            payload = {"current": {"temperature_2m": 4.5}, "daily": {}}
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Weather)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def env(server, monkeypatch):
    for name in ("AGENT_PLUGIN_DIR", "AGENT_MCP_CONFIG", "AGENT_APPROVAL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_ENABLE_WEATHER", "1")
    monkeypatch.setenv("WEATHER_BASE_URL", server)
    ASKED.clear()
    return Settings()


def weather_tools(env: Settings) -> list:
    return [t for t in default_tools(env.tool_settings()) if t.name in ("weather", "calculator")]


CALL = 'Thought: look it up.\nAction: weather\nAction Input: {"city": "Oslo"}'


async def events_of(agent, text, session, decision=None):
    return [e async for e in agent.run(text, session=session, decision=decision)]


async def test_the_weather_plugin_asks_then_runs_once_approved(env):
    tools = weather_tools(env)
    session = Session()
    first = await events_of(Agent(ScriptedModel([CALL]), tools), "weather in Oslo?", session)
    assert first[-1].type == "approval" and first[-1].tool == "weather"
    assert ASKED == []  # nothing reached the service
    model = ScriptedModel(["Thought: got it.\nAnswer: 4.5 °C in Oslo."])
    second = await events_of(Agent(model, tools), "", session, ApprovalDecision(action="approve"))
    assert ASKED == ["/v1/search", "/v1/forecast"]
    result = next(e for e in second if e.type == "tool_result")
    assert result.ok and result.call_id == first[-1].call_id
    assert second[-1].text == "4.5 °C in Oslo."


async def test_the_weather_plugin_with_edited_arguments_and_a_denial(env):
    tools = weather_tools(env)
    session = Session()
    await events_of(Agent(ScriptedModel([CALL]), tools), "weather in Oslo?", session)
    bad = ApprovalDecision(action="edit", arguments={"city": "Bergen", "language": "xx"})
    events = await events_of(Agent(ScriptedModel([]), tools), "", session, bad)
    assert events[-1].type == "approval" and "language" in events[-1].problem and ASKED == []
    good = ApprovalDecision(action="edit", arguments={"city": "Bergen"})
    events = await events_of(Agent(ScriptedModel(["Answer: ok"]), tools), "", session, good)
    assert ASKED == ["/v1/search", "/v1/forecast"]
    assert '"Bergen"' in next(e for e in events if e.type == "tool_result").text
    ASKED.clear()
    await events_of(Agent(ScriptedModel([CALL]), tools), "and in Oslo?", session)
    model = ScriptedModel(["Answer: I did not look."])
    await events_of(Agent(model, tools), "不", session)
    sent = json.dumps(model.requests[0].messages, ensure_ascii=False)
    assert ASKED == [] and "用户拒绝了这次调用。" in sent  # in the conversation's language


def test_cli_asks_and_the_next_call_approves(env, tmp_path, capsys):
    saved = str(tmp_path / "s.json")
    code = main(["weather in Oslo", "--offline", "--session", saved])
    out = capsys.readouterr().out
    assert code == 0 and "Approval: The agent wants to call weather" in out and ASKED == []
    code = main(["yes", "--offline", "--session", saved, "--continue", "--json"])
    events = [EVENT_ADAPTER.validate_json(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and ASKED == ["/v1/search", "/v1/forecast"]
    assert [e.decision for e in events if e.type == "approval_decision"] == ["approve"]


@pytest.mark.parametrize(("policy", "calls"), [("always", 2), ("never", 0)])
def test_cli_approve_flag_sets_the_policy(env, capsys, policy, calls):
    code = main(["weather in Oslo", "--offline", "--approve", policy])
    out = capsys.readouterr().out
    assert code == 0 and len(ASKED) == calls and "Approval:" not in out


def test_cli_refuses_an_unknown_policy(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["hi", "--offline", "--approve", "maybe"])
    assert caught.value.code == 2 and "--approve" in capsys.readouterr().err


async def test_a_scenario_runs_unattended_unless_it_asks_for_approval(env, tmp_path):
    tools = weather_tools(env)
    path = tmp_path / "weather.yaml"
    path.write_text(
        textwrap.dedent(
            """
            - name: weather runs
              turns:
                - user: weather in Oslo
                  expect: {outcome: answer, tools: [weather]}
            - name: weather asks first
              approval: ask
              turns:
                - user: weather in Oslo
                  expect: {outcome: ask}
                - user: "yes"
                  expect: {outcome: answer, tools: [weather]}
            """
        ),
        encoding="utf-8",
    )
    unattended, asking = load_file(path)
    assert unattended.approval == "always" and asking.approval == "ask"
    for scenario in (unattended, asking):
        result = await run_scenario(scenario, OfflineModel(), tools=tools)
        assert result.passed, result.failures


@pytest.fixture
def url(env):
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), tools=weather_tools(env))
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


def test_ask_endpoint_takes_a_policy(url):
    client = Client(url, verbose=False)
    message = {"text": "weather in Oslo", "files": []}
    result = client.predict(message, api_name="/ask")  # the server's policy: ask
    assert result["outcome"] == "approval" and result["approval"]["tool"] == "weather"
    assert result["approval"]["arguments"]["city"].lower() == "oslo" and ASKED == []
    result = client.predict({"text": "yes", "files": []}, api_name="/ask")
    assert result["outcome"] == "answer" and len(ASKED) == 2
    # More than the operator's `ask` is not given: the call still waits for a yes.
    result = client.predict(message, "always", api_name="/ask")
    assert result["outcome"] == "approval" and len(ASKED) == 2
    result = client.predict(message, "never", api_name="/ask")
    assert result["outcome"] == "answer" and len(ASKED) == 2
    decided = [e for e in result["events"] if e["type"] == "approval_decision"]
    assert decided[-1]["by"] == "policy"
