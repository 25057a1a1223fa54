"""The server's key and network are the server's: models, base URLs and turn limits.

The page's handlers are called directly, as raw HTTP could call them (the Settings handlers are
hidden from the API page, not from a request), with the real model client against the local
OpenAI-compatible server.
"""

from __future__ import annotations

import ipaddress
import socket

import gradio as gr
import httpx
import pytest

import app
from agent.config import Settings
from agent.events import NoticeEvent
from tests.support.openai_server import OpenAIServer
from ui.access import Access, refused_address, shown_url
from ui.handlers import PageHandlers
from ui.page.state import Prefs

ANSWER = "Thought: easy.\nAnswer: hello"


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    with OpenAIServer(replies=lambda body: ANSWER) as server:
        yield server


def page_for(**settings) -> PageHandlers:
    return PageHandlers(env=Settings(**settings), tools=[])


async def turn(page: PageHandlers, state, text: str = "hi"):
    return [update async for update in page.chat({"text": text, "files": []}, state)]


def server_page(server, **settings) -> PageHandlers:
    """A page whose operator configured the local server with a key of their own."""
    configured = {"OPENAI_API_KEY": "sk-server", "AGENT_MODEL": "test-model"}
    return page_for(OPENAI_BASE_URL=server.base_url, **configured, **settings)


# -- the server's key serves the operator's models -----------------------------------------------


async def test_the_servers_key_serves_only_the_configured_model(server):
    page = server_page(server)
    state, _ = page.set_pref("model")("gpt-4-32k-expensive", None)
    with pytest.raises(gr.Error, match=r"“gpt-4-32k-expensive” is not offered.*“test-model”"):
        await turn(page, state)
    assert server.requests == []
    # The refusal lost nothing: the words stay in the input, the settings stay as they were.
    message = {"text": "hi", "files": []}
    assert page.take_message(message, state) == (gr.skip(), message)
    assert state.prefs.model == "gpt-4-32k-expensive" and state.turns == []
    state, _ = page.set_pref("model")("test-model", state)
    *_, (chat, *_) = await turn(page, state)
    assert chat[-1]["content"] == "hello"
    assert [r["model"] for r in server.requests] == ["test-model"]


async def test_the_operator_lists_the_models_the_key_may_serve(server):
    page = server_page(server, AGENT_ALLOWED_MODELS="test-model, vision-large")
    state, _ = page.set_pref("model")("vision-large", None)
    await turn(page, state)
    state, _ = page.set_pref("model")("other", state)
    with pytest.raises(gr.Error, match="use “test-model”, “vision-large”"):
        await turn(page, state)
    assert [r["model"] for r in server.requests] == ["vision-large"]


async def test_a_key_of_ones_own_lifts_the_model_list(server):
    page = server_page(server)
    state, _ = page.set_pref("api_key")("sk-my-own", None)
    state, _ = page.set_pref("model")("anything-i-pay-for", state)
    *_, (chat, *_) = await turn(page, state)
    assert chat[-1]["content"] == "hello"
    assert server.requests[-1]["model"] == "anything-i-pay-for"


# -- turns per minute and per conversation -------------------------------------------------------


async def test_turns_per_minute_are_limited_with_a_sentence_and_come_back(server):
    page = server_page(server, AGENT_TURNS_PER_MINUTE=2)
    state = page.new_state()
    await turn(page, state)
    await turn(page, state)
    with pytest.raises(gr.Error, match=r"started 2 turns in the last minute.*in \d+ s"):
        await turn(page, state)
    assert len(state.turns) == 2 and len(server.requests) == 2
    state.turn_starts = [t - 61 for t in state.turn_starts]  # a minute later
    await turn(page, state)
    assert len(state.turns) == 3


async def test_turns_per_conversation_are_limited_even_with_ones_own_key(server):
    page = server_page(server, AGENT_TURNS_PER_SESSION=2)
    state, _ = page.set_pref("api_key")("sk-my-own", None)
    await turn(page, state)
    await turn(page, state)
    with pytest.raises(gr.Error, match="used all 2 of its turns"):
        await turn(page, state)
    # A refused retry is a warning on the page and keeps the turn it would have replaced.
    with pytest.warns(UserWarning, match="used all 2 of its turns"):
        updates = [u async for u in page.retry(state)]
    assert len(updates) == 1
    assert len(state.turns) == 2 and len(state.session.history) == 2
    page.clear(state)  # Clear starts a new conversation, not a new allowance
    with pytest.raises(gr.Error, match="used all 2 of its turns"):
        await turn(page, state)
    assert len(server.requests) == 2


def test_a_limited_turn_keeps_the_words_in_the_input(server):
    page = server_page(server, AGENT_TURNS_PER_SESSION=1)
    state = page.new_state()
    page.access.count_turn(state)
    message = {"text": "one more", "files": []}
    assert page.take_message(message, state) == (gr.skip(), message)


# -- base URLs on a public deployment ------------------------------------------------------------


def public_page(**settings) -> PageHandlers:
    return page_for(AGENT_PUBLIC=True, **settings)


async def openai_turn(page: PageHandlers, base_url: str):
    state = page.new_state()
    for name, value in (("source", "openai"), ("base_url", base_url), ("api_key", "sk-mine")):
        state, _ = page.set_pref(name)(value, state)
    return state, await turn(page, state)


def test_a_space_is_a_public_deployment(monkeypatch):
    assert not Settings().public
    monkeypatch.setenv("SPACE_ID", "someone/agent")
    assert Settings().public
    assert not Settings(AGENT_PUBLIC=False).public


async def test_custom_base_urls_are_off_on_a_public_page_unless_allowed(server):
    with pytest.raises(gr.Error, match="connects only to the model service it was set up with"):
        await openai_turn(public_page(), server.base_url)
    assert server.requests == []
    # The endpoints everyone knows are not custom: a visitor's own key may go there.
    access = public_page().access
    for known in ("https://api.openai.com/v1", app.HF_ROUTER_URL, ""):
        assert access.model_problem(Prefs(source="openai", base_url=known, api_key="k")) is None


def listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.setblocking(False)
    return sock


async def test_the_servers_network_is_refused_in_one_sentence_before_any_connection(server):
    page = public_page(AGENT_ALLOW_CUSTOM_BASE_URL=True)
    quiet = listening_socket()  # an open port that would accept a connection
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        closed_port = free.getsockname()[1]
    targets = [
        server.base_url,  # open, speaks OpenAI
        server.base_url.replace("/v1", "/elsewhere"),  # open, 404
        f"http://127.0.0.1:{quiet.getsockname()[1]}/v1",  # open, says nothing
        f"http://127.0.0.1:{closed_port}/v1",  # closed
        "http://localhost:1/v1",
        "http://[::1]:8080/v1",
        "http://[::ffff:127.0.0.1]:8080/v1",
        "http://10.1.2.3/v1",
        "http://192.168.0.1:11434/v1",
        "http://169.254.169.254/latest",
        "http://0.0.0.0:22",
        "http://2130706433:80/v1",  # 127.0.0.1 written as one number
        "http://user:pass@127.0.0.1:6379/v1",
    ]
    sentences = set()
    for target in targets:
        with pytest.raises(gr.Error) as refused:
            await openai_turn(page, target)
        sentences.add(refused.value.message)
    assert sentences == {
        "That base URL leads into the server's own network, which this public page never "
        "connects to; use a public address."
    }
    assert server.requests == []
    with pytest.raises(BlockingIOError):
        quiet.accept()  # nobody connected
    quiet.close()


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1",
     "0.0.0.0", "224.0.0.1", "::1", "fe80::1", "fc00::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1",
     "64:ff9b::7f00:1", "2002:7f00:1::1", "::"],
)  # fmt: skip
def test_every_non_public_address_is_refused(address):
    assert refused_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass(address):
    assert not refused_address(ipaddress.ip_address(address))


def test_a_host_that_resolves_to_any_private_address_is_refused(monkeypatch):
    resolving = "agent.models.public_only.resolve"
    monkeypatch.setattr(resolving, lambda host, port: ["93.184.216.34", "10.0.0.7"])
    assert Access.url_problem("https://mixed.example/v1") == "url_private"
    monkeypatch.setattr(resolving, lambda host, port: ["93.184.216.34"])
    assert Access.url_problem("https://public.example/v1") is None
    assert Access.url_problem("ftp://public.example/v1") == "url_failed"


async def test_failures_through_a_custom_url_all_read_the_same(server, monkeypatch):
    # As if 127.0.0.1 were a public host: its open, closed and 404 ports must look alike.
    monkeypatch.setattr("agent.models.public_only.refused_address", lambda address: False)
    page = public_page(AGENT_ALLOW_CUSTOM_BASE_URL=True, AGENT_MODEL_TIMEOUT=2)
    quiet = listening_socket()
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        closed_port = free.getsockname()[1]
    targets = [
        f"http://127.0.0.1:{closed_port}/v1",
        server.base_url.replace("/v1", "/elsewhere"),
        f"http://127.0.0.1:{quiet.getsockname()[1]}/v1",
    ]
    shown = set()
    for target in targets:
        state, updates = await openai_turn(page, target)
        chat, trace, *_ = updates[-1]
        errors = [m["content"] for m in trace if m["metadata"]["title"] == "Error"]
        shown.add((chat[-1]["content"], *errors))
        assert state.turns[-1].events[-2].type == "run_finished"
    quiet.close()
    sentence = (
        "The model service at that base URL could not be used; check the address, the model "
        "name and the API key."
    )
    # The chat shows the sentence as an error reply; the trace as the turn's error step.
    reply = f'<div class="reply-error"><strong>Error</strong> {sentence}</div>'
    assert shown == {(reply, sentence)}


def test_a_retry_announced_through_a_custom_url_reads_the_same_whatever_the_cause():
    access = public_page(AGENT_ALLOW_CUSTOM_BASE_URL=True).access
    custom = Prefs(source="openai", base_url="https://models.example/v1", api_key="k")
    shown = {
        access.screen(NoticeEvent(message=cause), custom).message
        for cause in ("Connection refused; trying again in 1 s.", "HTTP 404; trying again.")
    }
    assert shown == {"The model service at that base URL did not answer; trying again."}
    # The operator's own endpoint keeps its details.
    own = Prefs(source="openai", base_url="", api_key="k")
    assert access.screen(NoticeEvent(message="HTTP 503"), own).message == "HTTP 503"


# -- credentials in the configured base URL ------------------------------------------------------


def test_credentials_in_the_base_url_never_reach_the_browser(server):
    secret_url = server.base_url.replace("http://", "http://user:s3cret-pass@")
    env = Settings(OPENAI_BASE_URL=secret_url, AGENT_MODEL="test-model")
    demo = app.build_demo(env=env, tools=[])
    from tests.support.local import serve

    try:
        url = serve(demo, **app.launch_options(env))
        for page in ("", "config", "gradio_api/info"):
            text = httpx.get(url + page).text
            assert "s3cret-pass" not in text and "user:" not in text, page
        assert server.base_url in httpx.get(url + "config").text
    finally:
        demo.close()
    # The server still uses them: the URL the page shows means the configured one.
    page = PageHandlers(env=env, tools=[])
    state, _ = page.set_pref("base_url")(shown_url(secret_url), None)
    assert state.prefs.base_url == secret_url
    assert shown_url(secret_url) == server.base_url
    assert shown_url("https://k:v@[::1]:8443/v1?token=x#frag") == "https://[::1]:8443/v1"


def test_a_setting_longer_than_any_real_one_is_refused(server):
    page = server_page(server)
    state = page.new_state()
    page.set_pref("model")("x" * 100_000, state)
    assert state.prefs.model == "test-model"
    notice = page.settings_notice()(state)
    assert notice.visible and "100,000 characters long" in notice.value
    page.set_pref("model")("test-model", state)
    assert page.settings_notice()(state).visible is False


@pytest.mark.parametrize(
    ("value", "language", "words"),
    [
        ("not a url", "en", "must start with http://"),
        ("ftp://example.org/v1", "en", "must start with http://"),
        ("http://", "en", "name a host"),
        ("localhost:11434/v1", "zh", "必须以 http://"),
    ],
)
def test_a_base_url_that_is_no_url_is_said_beside_the_field_and_by_the_turn(value, language, words):
    page = page_for()
    state = page.new_state()
    state.prefs.language = language
    state.prefs.source = "openai"
    page.set_pref("base_url")(value, state)
    # Kept, so that the turn says what is wrong instead of going to the URL set before.
    assert state.prefs.base_url == value
    assert words in page.access.model_problem(state.prefs)
    # Not while it is being typed ("h" on the way to "http://…"), once the field is left.
    assert page.settings_notice(again=True)(state).visible is False
    # Nor when another setting's change, or the language's, is answered meanwhile.
    page.set_pref("temperature")(0.3, state)
    assert page.settings_notice(again=True)(state).visible is False
    notice = page.settings_notice()(state)
    assert notice.visible and words in notice.value
    # Still wrong while it is typed again, it stays; mended, it goes at once.
    page.set_pref("base_url")("x" + value, state)
    assert page.settings_notice(again=True)(state).visible
    state, _ = page.set_pref("base_url")("http://127.0.0.1:11434/v1", state)
    assert state.prefs.base_url == "http://127.0.0.1:11434/v1"
    assert page.settings_notice(again=True)(state).visible is False
    assert page.access.model_problem(state.prefs) is None
    state.close()


async def test_a_turn_with_a_base_url_that_is_no_url_says_so_and_keeps_the_words():
    page = page_for()
    state = page.new_state()
    page.set_pref("source")("openai", state)
    page.set_pref("base_url")("not a url", state)
    message = {"text": "what is 2+2", "files": []}
    assert page.take_message(message, state)[1] == message  # the words stay in the input
    with pytest.warns(UserWarning, match="must start with http://"):
        async for _ in page.send(message, state):
            pass
    assert state.turns == []
    state.close()


def test_the_example_address_in_the_chinese_sentence_ends_where_the_address_does():
    """Markdown links a bare address up to the next space: "v1；改正之前…" made the rest of
    the Chinese sentence part of the link."""
    import re

    from ui.labels import t

    said = t("base_url_invalid", "zh")
    address = re.search(r"https?://\S+", said.replace("http:// ", "").replace("https:// ", ""))
    assert address is not None and address.group(0) == "http://127.0.0.1:11434/v1"
