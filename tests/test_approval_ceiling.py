"""The operator's AGENT_APPROVAL is the ceiling for every caller: the page and `/chat`, `/ask`'s
second argument, a scenario uploaded on the Scenarios tab, MCP's `ask_agent` and the command
line may ask for less, never more; and where nobody can be asked, `ask` means `never` unless
the operator's policy is `always`.

Each test asks for the weather, which the offline model looks up with the weather plugin, an
HTTP tool that acts on the outside world, against a server on 127.0.0.1 that counts what it
gets: a policy that forbids the call leaves it with nothing.
"""

from __future__ import annotations

import textwrap

import httpx
import pytest
from gradio_client import Client
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import app
from agent import Agent, Session
from agent.__main__ import main
from agent.approval import effective_policy
from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from tests.support.local import serve
from tests.support.weather_server import WeatherServer
from tools import default_tools
from ui.handlers import PageHandlers
from ui.scenarios_tab.handlers import ScenarioTab

pytestmark = pytest.mark.filterwarnings("ignore:This MCP server includes a tool that has a gr")

QUESTION = "What is the weather in Paris?"
# A scenario as anyone may upload it: the file's default asks for `always`; the second asks
# for `ask` and approves the call itself in its next turn.
SCENARIOS = """
- name: weather, as the file's default asks
  turns:
    - user: "What is the weather in Paris?"
      expect: {outcome: answer}
- name: weather, approved by the scenario itself
  approval: ask
  turns:
    - user: "What is the weather in Paris?"
      expect: {outcome: ask}
    - user: "yes"
      expect: {outcome: answer}
"""
CALL = 'Thought: look it up.\nAction: weather\nAction Input: {"city": "Paris"}'


@pytest.fixture
def weather(monkeypatch):
    for name in ("AGENT_APPROVAL", "AGENT_PLUGIN_DIR", "AGENT_MCP_CONFIG", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with WeatherServer() as server:
        yield server


def operator(weather: WeatherServer, approval: str, **more) -> Settings:
    return Settings(
        AGENT_ENABLE_WEATHER=True,
        WEATHER_BASE_URL=weather.url,
        AGENT_APPROVAL=approval,
        **more,
    )


def tools_of(env: Settings) -> list:
    return [t for t in default_tools(env.tool_settings()) if t.name in ("weather", "calculator")]


def page_of(env: Settings) -> PageHandlers:
    return PageHandlers(lambda prefs: OfflineModel(), env, tools_of(env))


# -- the rule -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operator_policy", "requested", "attended", "runs_with"),
    [
        # Nothing asked for: the operator's.
        ("never", None, True, "never"),
        ("ask", None, True, "ask"),
        ("always", None, True, "always"),
        # Less is given, more is not.
        ("never", "always", True, "never"),
        ("never", "ask", True, "never"),
        ("ask", "always", True, "ask"),
        ("ask", "never", True, "never"),
        ("always", "ask", True, "ask"),
        ("always", "never", True, "never"),
        # Nobody to ask: `ask` refuses, unless the operator lets every call run.
        ("ask", None, False, "never"),
        ("ask", "always", False, "never"),
        ("ask", "ask", False, "never"),
        ("always", "ask", False, "ask"),
        ("always", None, False, "always"),
        ("never", "always", False, "never"),
    ],
)
def test_the_operators_policy_is_the_ceiling(operator_policy, requested, attended, runs_with):
    assert effective_policy(operator_policy, requested, attended) == runs_with


def test_a_policy_that_is_none_of_the_three_is_refused():
    with pytest.raises(ValueError, match="ask, always or never"):
        effective_policy("ask", "sometimes")


# -- the Scenarios tab ---------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["never", "ask"])
async def test_an_uploaded_scenario_makes_no_call_the_operator_forbids(weather, tmp_path, policy):
    upload = tmp_path / "weather.yaml"
    upload.write_text(textwrap.dedent(SCENARIOS), encoding="utf-8")
    page = page_of(operator(weather, policy))
    state = page.new_state()
    try:
        message, _, _, batch, *_ = await ScenarioTab(page).run(
            [], [str(upload)], state, lambda *a, **k: None
        )
        assert len(batch.results) == 2, message
        assert weather.asked == []
        refused = [
            e
            for result in batch.results
            for turn in result.turns
            for e in turn.events
            if e["type"] == "approval_decision"
        ]
        assert refused and all(e["by"] == "policy" and e["decision"] == "deny" for e in refused)
    finally:
        state.close()


async def test_with_the_operators_always_a_scenario_does_make_its_calls(weather, tmp_path):
    upload = tmp_path / "weather.yaml"
    upload.write_text(textwrap.dedent(SCENARIOS), encoding="utf-8")
    page = page_of(operator(weather, "always"))
    state = page.new_state()
    try:
        await ScenarioTab(page).run([], [str(upload)], state, lambda *a, **k: None)
        # Both scenarios looked the weather up: geocoding and forecast, twice.
        assert weather.asked == ["/v1/search", "/v1/forecast"] * 2
    finally:
        state.close()


# -- the page, /chat and /ask --------------------------------------------------------------------


async def test_a_page_turn_follows_the_operators_never(weather):
    page = page_of(operator(weather, "never"))
    state = page.new_state()
    try:
        updates = [u async for u in page.chat({"text": QUESTION, "files": []}, state)]
        assert updates and weather.asked == []
        decided = [e for e in state.turns[-1].events if e.type == "approval_decision"]
        assert [(e.decision, e.by) for e in decided] == [("deny", "policy")]
    finally:
        state.close()


@pytest.fixture
def never_url(weather):
    env = operator(weather, "never")
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env, tools=tools_of(env))
    try:
        yield serve(demo, **app.launch_options(env))
    finally:
        demo.close()


def test_ask_and_chat_cannot_lift_the_operators_never(never_url, weather):
    client = Client(never_url, verbose=False)
    message = {"text": QUESTION, "files": []}
    result = client.predict(message, "always", api_name="/ask")
    assert result["outcome"] == "answer" and weather.asked == []
    decided = [e for e in result["events"] if e["type"] == "approval_decision"]
    assert [(e["decision"], e["by"]) for e in decided] == [("deny", "policy")]
    client.predict(message, api_name="/chat")
    assert weather.asked == []


# -- MCP -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "asked"), [("ask", []), ("always", ["/v1/search", "/v1/forecast"])]
)
async def test_mcp_ask_agent_makes_calls_only_when_the_operator_lets_them_run(
    weather, policy, asked
):
    env = operator(weather, policy, AGENT_MCP_SERVER=True)
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env, tools=tools_of(env))
    try:
        url = serve(demo, **app.launch_options(env)) + "gradio_api/mcp/"
        async with (
            httpx.AsyncClient(timeout=httpx.Timeout(30, read=120)) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("ask_agent", {"text": QUESTION})
        assert not result.isError
        assert weather.asked == asked
    finally:
        demo.close()


# -- the command line ----------------------------------------------------------------------------


def cli_env(weather: WeatherServer, monkeypatch, approval: str) -> None:
    monkeypatch.setenv("AGENT_ENABLE_WEATHER", "1")
    monkeypatch.setenv("WEATHER_BASE_URL", weather.url)
    monkeypatch.setenv("AGENT_APPROVAL", approval)


def test_the_command_line_keeps_the_environments_never(weather, monkeypatch, capsys):
    cli_env(weather, monkeypatch, "never")
    assert main([QUESTION, "--offline"]) == 0
    assert weather.asked == [] and "(approval policy)" in capsys.readouterr().out


def test_the_command_lines_own_approve_flag_is_its_operators_choice(weather, monkeypatch):
    # Whoever runs the command is its operator: an explicit --approve replaces AGENT_APPROVAL.
    cli_env(weather, monkeypatch, "never")
    assert main([QUESTION, "--offline", "--approve", "always"]) == 0
    assert weather.asked == ["/v1/search", "/v1/forecast"]


# -- `never` is the last word --------------------------------------------------------------------


async def test_never_holds_for_a_tool_allowed_earlier_in_the_conversation(weather):
    tools = tools_of(operator(weather, "never"))
    session = Session(allowed_tools=["weather"])  # as a saved session may carry it
    model = ScriptedModel([CALL, "Thought: fine.\nAnswer: no lookup."])
    agent = Agent(model, tools, approval="never")
    events = [e async for e in agent.run(QUESTION, session=session)]
    assert events[-1].type == "answer" and weather.asked == []


async def test_never_refuses_a_call_left_waiting_under_ask(weather):
    tools = tools_of(operator(weather, "ask"))
    session = Session()
    asking = Agent(ScriptedModel([CALL]), tools, approval="ask")
    first = [e async for e in asking.run(QUESTION, session=session)]
    assert first[-1].type == "approval" and session.approval is not None
    model = ScriptedModel(["Thought: it was refused.\nAnswer: no lookup."])
    refusing = Agent(model, tools, approval="never")
    events = [e async for e in refusing.run("yes", session=session)]
    assert weather.asked == [] and session.approval is None
    decided = [e for e in events if e.type == "approval_decision"]
    assert [(e.decision, e.by) for e in decided] == [("deny", "policy")]
    assert "not allowed here" in str(model.requests[0].messages)
