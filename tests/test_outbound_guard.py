"""On a public page a visitor's model URL reaches public addresses only: not through a redirect,
not through a name that resolves to something else by the time of the connection (DNS
rebinding). Over real HTTP on loopback addresses; 127.0.0.2 plays the public internet (the
address rule is told so), 127.0.0.1 the server's own network."""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest

from agent.config import Settings
from agent.models import OpenAIChatModel
from agent.models import public_only as guard
from agent.models.base import ModelError, ModelRequest
from tests.support.openai_server import OpenAIServer
from tools.plugins import PluginError, PluginManifest, plugin_from_manifest
from ui.handlers import PageHandlers

PUBLIC = "127.0.0.2"  # stands for a public address in these tests
NAME = "models.example"  # a public-looking name that resolves to PUBLIC
URL_FAILED = (
    "The model service at that base URL could not be used; check the address, the model name "
    "and the API key."
)


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def lookups(monkeypatch) -> list[str]:
    """127.0.0.2 counts as public, and NAME resolves to it; every lookup is recorded."""
    rule, system = guard.refused_address, guard.resolve
    seen: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        seen.append(host)
        return [PUBLIC] if host == NAME else system(host, port)

    monkeypatch.setattr(guard, "refused_address", lambda ip: str(ip) != PUBLIC and rule(ip))
    monkeypatch.setattr(guard, "resolve", resolve)
    return seen


class Handler(BaseHTTPRequestHandler):
    """Redirects to `target` when it is set; else answers with the Host header it was sent."""

    protocol_version = "HTTP/1.1"  # keeps connections open, as a real service would

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        server: Any = self.server
        server.hosts.append(self.headers.get("Host"))
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = f"host={self.headers.get('Host')}".encode()
        self.send_response(307 if server.target else 200)
        if server.target:
            self.send_header("Location", server.target)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer


@pytest.fixture
def public_host() -> Iterator[Any]:
    httpd: Any = ThreadingHTTPServer((PUBLIC, 0), Handler)
    httpd.daemon_threads = True
    httpd.hosts, httpd.target = [], ""
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def internal() -> Iterator[OpenAIServer]:
    """A model service in the server's own network (on 127.0.0.1)."""
    with OpenAIServer(replies=lambda body: "Answer: internal") as server:
        yield server


async def ask(model: OpenAIChatModel) -> str:
    request = ModelRequest(messages=[{"role": "user", "content": "hi"}])
    try:
        return "".join([part async for part in model.stream(request)])  # type: ignore[misc]
    finally:
        await model.aclose()


def public_page() -> PageHandlers:
    env = Settings(AGENT_PUBLIC=True, AGENT_ALLOW_CUSTOM_BASE_URL=True, AGENT_MODEL_TIMEOUT=5)
    return PageHandlers(env=env, tools=[])


async def page_turn(page: PageHandlers, base_url: str) -> str:
    state = page.new_state()
    for name, value in (("source", "openai"), ("base_url", base_url), ("api_key", "sk-mine")):
        state, _ = page.set_pref(name)(value, state)
    updates = [u async for u in page.chat({"text": "hi", "files": []}, state)]
    chat, *_ = updates[-1]
    return chat[-1]["content"]


# -- redirects -----------------------------------------------------------------------------------


async def test_a_redirect_into_the_servers_network_is_refused_on_a_public_page(
    lookups, public_host, internal
):
    public_host.target = internal.base_url + "/chat/completions"
    base_url = f"http://{NAME}:{public_host.server_address[1]}/v1"
    shown = await page_turn(public_page(), base_url)
    assert URL_FAILED in shown
    assert public_host.hosts  # the first hop was made (once per attempt): it is public
    assert internal.requests == []  # the redirect's target was never reached


async def test_the_same_redirect_is_followed_where_the_page_is_not_public(public_host, internal):
    # The control: without the guard the redirect does reach the internal service.
    public_host.target = internal.base_url + "/chat/completions"
    base_url = f"http://{PUBLIC}:{public_host.server_address[1]}/v1"
    assert await ask(OpenAIChatModel(model="m", base_url=base_url)) == "Answer: internal"
    assert len(internal.requests) == 1


async def test_every_hop_is_checked_and_hops_are_bounded(lookups, public_host):
    port = public_host.server_address[1]
    public_host.target = f"http://{NAME}:{port}/again"  # a public host redirecting for ever
    with pytest.raises(ModelError):
        url = f"http://{NAME}:{port}/v1"
        await ask(OpenAIChatModel(model="m", base_url=url, max_retries=0, public_only=True))
    assert len(public_host.hosts) == guard.MAX_REDIRECTS + 1


# -- the address that was checked is the one connected to ---------------------------------------


async def test_a_name_that_changes_its_answer_after_the_check_is_refused(
    monkeypatch, lookups, internal
):
    # "localhost" stands for a rebinding name: the page's check is told a public address, and
    # every later lookup gets the truth, as the client's own lookup would (127.0.0.1).
    answers, truth = iter([[PUBLIC]]), guard.resolve
    monkeypatch.setattr(guard, "resolve", lambda host, port: next(answers, truth(host, port)))
    shown = await page_turn(public_page(), f"http://localhost:{internal.port}/v1")
    assert URL_FAILED in shown
    assert internal.requests == []


async def test_the_connection_goes_to_the_checked_address_with_the_hosts_name(lookups, public_host):
    port = public_host.server_address[1]
    async with guard.public_only_client(5) as client:
        first = await client.get(f"http://{NAME}:{port}/one")
        second = await client.get(f"http://{NAME}:{port}/two")
    assert first.text == second.text == f"host={NAME}:{port}"
    # One lookup, made by the check itself, for the one pooled connection.
    assert lookups == [NAME]


@pytest.mark.parametrize(
    "answer", [["127.0.0.1"], [PUBLIC, "10.0.0.7"], ["::1"], ["169.254.169.254"], []]
)
async def test_a_name_with_any_non_public_address_is_not_connected_to(
    monkeypatch, lookups, public_host, answer
):
    monkeypatch.setattr(guard, "resolve", lambda host, port: answer)
    async with guard.public_only_client(5) as client:
        with pytest.raises(httpx2.ConnectError):
            await client.get(f"http://{NAME}:{public_host.server_address[1]}/")
    assert public_host.hosts == []


def test_the_page_and_the_connection_share_one_rule():
    from ui.access import refused_address
    from ui.labels import t

    assert refused_address is guard.refused_address
    assert guard.refused_address(ipaddress.ip_address("64:ff9b::a00:1"))
    assert t("url_failed", "en") == URL_FAILED


def test_only_a_visitors_url_is_guarded(monkeypatch):
    from agent.config import ModelChoice, make_model

    env = Settings(AGENT_PUBLIC=True, OPENAI_BASE_URL="http://127.0.0.1:9/v1", AGENT_MODEL="m")
    own = make_model(env)
    visitor = make_model(env, ModelChoice(source="openai", base_url="https://x.example/v1"))
    assert not own.public_only and visitor.public_only
    assert not make_model(Settings(OPENAI_BASE_URL="http://127.0.0.1:9/v1")).public_only


# -- plugins -------------------------------------------------------------------------------------


async def test_a_plugin_redirect_into_the_servers_network_is_refused(public_host, internal):
    # A plugin's host is the operator's; a redirect away from it is never followed.
    public_host.target = internal.base_url + "/chat/completions"
    manifest = PluginManifest.model_validate(
        {
            "name_for_model": "lookup",
            "name_for_human": "Lookup",
            "description_for_human": "Looks a word up.",
            "url": f"http://{PUBLIC}:{public_host.server_address[1]}/lookup",
            "request_body": [{"name": "word", "description": "A word.", "required": True}],
        }
    )
    tool = plugin_from_manifest(manifest)()
    with pytest.raises(PluginError, match="redirect"):
        await tool.run(tool.Args(word="x"), None)
    assert len(public_host.hosts) == 1 and internal.requests == []
