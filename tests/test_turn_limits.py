"""Turn limits beyond one conversation: per client address (AGENT_CLIENT_TURNS_PER_MINUTE) and
for everyone on the operator's key (AGENT_SERVER_TURNS_PER_MINUTE), each turn counted before
it runs wherever it comes from: fresh sessions of the page's API, `/chat`, `/ask`, MCP's
`ask_agent` and each turn of a scenario run on the Scenarios tab.

The launched page is driven with `gradio_client` (and the MCP SDK's client); a client's address
is the one its X-Forwarded-For names, which uvicorn takes from a connection on this machine,
as from a proxy in front of the server.
"""

from __future__ import annotations

import textwrap

import httpx
import pytest
from gradio_client import Client
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.requests import Request

import app
from agent.config import Settings
from agent.models import OfflineModel
from tests.support.local import serve
from tests.support.openai_server import OpenAIServer
from ui.access import Access
from ui.client_address import client_address, counted, forwarded_client
from ui.handlers import PageHandlers
from ui.scenarios_tab.handlers import ScenarioTab

pytestmark = pytest.mark.filterwarnings("ignore:This MCP server includes a tool that has a gr")

HELLO = {"text": "hello", "files": []}
ANSWER = "Thought: easy.\nAnswer: hello"


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AGENT_TRUST_PROXY", "AGENT_CLIENT_TURNS_PER_MINUTE"):
        monkeypatch.delenv(name, raising=False)


def client_at(url: str, address: str) -> Client:
    """A fresh session of the page's API, from `address`."""
    return Client(url, verbose=False, headers={"X-Forwarded-For": address})


# -- which client a request is from -------------------------------------------------------------


def request(peer: str, forwarded: str | None = None) -> Request:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return Request({"type": "http", "client": (peer, 443), "headers": headers})


def test_without_a_trusted_proxy_the_connection_is_the_client():
    # Anyone can write the header; only a proxy the operator names is believed.
    assert client_address(request("198.51.100.7", "203.0.113.9"), trust_proxy=False) == (
        "198.51.100.7"
    )


def test_behind_a_trusted_proxy_the_last_public_address_it_wrote_is_the_client():
    # The client's own entry comes first, the proxies' private hops last.
    forwarded = "1.2.3.4, 81.2.69.160, 10.0.0.2"
    assert client_address(request("10.0.0.1", forwarded), trust_proxy=True) == "81.2.69.160"
    assert client_address(request("10.0.0.1"), trust_proxy=True) == "10.0.0.1"
    assert forwarded_client("[2a00:1450::1]:443, 198.51.100.3:8080") == "2a00:1450::/64"
    assert forwarded_client("198.51.100.3:8080") == "198.51.100.3"  # no public one: the last
    assert forwarded_client("garbage, ") is None


def test_an_ipv6_client_is_counted_by_its_network():
    assert counted("2001:db8:1:2::1") == counted("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert counted("::ffff:203.0.113.9") == "203.0.113.9"


def test_on_a_space_the_proxy_is_trusted(monkeypatch):
    monkeypatch.setenv("SPACE_ID", "someone/agent")
    assert Settings().trust_proxy
    monkeypatch.delenv("SPACE_ID")
    assert not Settings().trust_proxy and Settings(AGENT_TRUST_PROXY=True).trust_proxy


# -- the limits themselves -----------------------------------------------------------------------


def test_a_clients_turns_are_counted_across_its_conversations_and_come_back():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(AGENT_CLIENT_TURNS_PER_MINUTE=2))
    access = page.access
    first, second, elsewhere = page.new_state(), page.new_state(), page.new_state()
    assert access.admit(first, now=100.0, client="203.0.113.1") is None
    assert access.admit(second, now=101.0, client="203.0.113.1") is None
    refused = access.admit(first, now=102.0, client="203.0.113.1")
    assert refused.startswith("Your address has started 2 turns") and "in 58 s" in refused
    assert first.turns_started == 1  # a refused turn is not counted
    assert access.admit(elsewhere, now=102.0, client="203.0.113.2") is None
    assert access.admit(first, now=160.5, client="203.0.113.1") is None  # a minute later
    for state in (first, second, elsewhere):
        state.close()


def test_everyones_turns_on_the_operators_key_are_counted_and_no_one_elses():
    with OpenAIServer(replies=[]) as server:
        env = Settings(
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY="sk-server",
            AGENT_SERVER_TURNS_PER_MINUTE=2,
        )
        access = Access(env)
        operators = PageHandlers(env=env, tools=[]).prefs0
        assert access.admit(None, now=5.0, prefs=operators, client="a") is None
        assert access.admit(None, now=6.0, prefs=operators, client="b") is None
        refused = access.admit(None, now=7.0, prefs=operators, client="c")
        assert refused.startswith("Everyone together has started 2 turns")
        # A visitor's own key, or the offline model, is not the operator's account.
        own = PageHandlers(env=env, tools=[]).new_state()
        own.prefs.api_key = "sk-visitor"
        assert access.admit(own, now=7.0, client="c") is None
        offline = PageHandlers(env=env, tools=[]).new_state()
        offline.prefs.source = "offline"
        assert access.admit(offline, now=7.0, client="d") is None
        own.close()
        offline.close()


def test_many_addresses_are_forgotten_once_their_minute_is_over():
    access = Access(Settings(AGENT_CLIENT_TURNS_PER_MINUTE=1))
    for number in range(3000):  # ten new addresses a second for five minutes
        address = f"10.0.{number // 256}.{number % 256}"
        assert access.admit(None, now=number * 0.1, client=address) is None
    # The 600 addresses of the last minute are remembered, not the 3000 ever seen.
    assert len(access._clients) <= 1200


# -- through the launched page -------------------------------------------------------------------


@pytest.fixture(scope="module")
def offline_url():
    env = Settings(AGENT_CLIENT_TURNS_PER_MINUTE=3, AGENT_MCP_SERVER=True)
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env, tools=[])
    try:
        yield serve(demo, **app.launch_options(env))
    finally:
        demo.close()


def test_fresh_sessions_of_one_address_share_its_limit(offline_url):
    address = "203.0.113.10"
    outcomes = [
        client_at(offline_url, address).predict(HELLO, api_name="/ask")["outcome"] for _ in range(3)
    ]
    assert "error" not in outcomes
    refused = client_at(offline_url, address).predict(HELLO, api_name="/ask")
    assert refused["outcome"] == "error" and refused["model_calls"] == 0
    assert refused["error"].startswith("Your address has started 3 turns in the last minute")
    with pytest.raises(Exception, match="Your address has started 3 turns"):
        client_at(offline_url, address).predict(HELLO, api_name="/chat")
    # Another address is not held back.
    other = client_at(offline_url, "203.0.113.11").predict(HELLO, api_name="/chat")
    assert other is not None


async def test_mcp_ask_agent_counts_against_the_address(offline_url):
    url = f"{offline_url}gradio_api/mcp/"

    async def ask(address: str):
        headers = {"X-Forwarded-For": address}
        async with (
            httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=120)) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("ask_agent", {"text": "hello"})
            return result.isError, "\n".join(b.text for b in result.content if b.type == "text")

    for _ in range(3):
        failed, text = await ask("203.0.113.20")
        assert not failed, text
    failed, text = await ask("203.0.113.20")
    assert failed and "Your address has started 3 turns" in text
    failed, _ = await ask("203.0.113.21")
    assert not failed


def test_the_operators_key_has_one_limit_for_everyone():
    with OpenAIServer(replies=lambda body: ANSWER) as server:
        env = Settings(
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY="sk-server",
            AGENT_MODEL="test-model",
            AGENT_SERVER_TURNS_PER_MINUTE=2,
        )
        demo = app.build_demo(env=env, tools=[])
        try:
            url = serve(demo, **app.launch_options(env))
            outcomes = [
                client_at(url, f"198.51.100.{n}").predict(HELLO, api_name="/ask")["outcome"]
                for n in (1, 2)
            ]
            assert outcomes == ["answer", "answer"]
            refused = client_at(url, "198.51.100.3").predict(HELLO, api_name="/ask")
            assert refused["outcome"] == "error"
            assert refused["error"].startswith("Everyone together has started 2 turns")
            assert len(server.requests) == 2
        finally:
            demo.close()


# -- the Scenarios tab ---------------------------------------------------------------------------


TWO_TURNS = """
- name: first
  turns:
    - {user: hello, expect: {outcome: answer}}
    - {user: hello again, expect: {outcome: answer}}
- name: second
  turns:
    - {user: hello, expect: {outcome: answer}}
    - {user: hello again, expect: {outcome: answer}}
- name: third
  turns:
    - {user: hello, expect: {outcome: answer}}
"""


async def test_a_scenario_run_counts_each_turn_before_it_runs_and_stops_at_the_limit(tmp_path):
    upload = tmp_path / "many.yaml"
    upload.write_text(textwrap.dedent(TWO_TURNS), encoding="utf-8")
    with OpenAIServer(replies=lambda body: ANSWER) as server:
        env = Settings(
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY="sk-server",
            AGENT_MODEL="test-model",
            AGENT_SERVER_TURNS_PER_MINUTE=3,
        )
        page = PageHandlers(env=env, tools=[])
        state = page.new_state()
        try:
            message, _, table, _, *_ = await ScenarioTab(page).run(
                [], [str(upload)], state, lambda *a, **k: None
            )
            # Three turns ran: the first scenario's two and the second's first; the second's
            # next turn was refused before any of it ran, and the run stopped there.
            assert len(server.requests) == 3
            assert message.startswith("Stopped after 1 of 3 scenarios")
            assert "Everyone together has started 3 turns" in message
            assert [row[0] for row in table.value["data"]] == ["first"]
            assert state.turns_started == 3
        finally:
            state.close()
