"""Credentials in the base URL: both they and the API key reach the service, and neither shows
in any log line at any level, over real HTTP against the local OpenAI-compatible server."""

from __future__ import annotations

import base64
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from agent.config import Settings, make_model
from agent.models import OpenAIChatModel
from agent.models.base import ModelError, ModelRequest
from agent.models.openai_compat import split_credentials
from agent.tracing.log_redaction import redact, register_secret
from tests.support.openai_server import OpenAIServer

USER, PASSWORD, KEY = "alice", "s3cret-pass-word", "sk-test-KEY-0123456789"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


class HeaderServer(OpenAIServer):
    """The test server, keeping each request's headers whole (Authorization included)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[dict[str, str]] = []

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
        await super()._app(scope, receive, send)


def with_credentials(url: str, user: str = USER, password: str = PASSWORD) -> str:
    return url.replace("http://", f"http://{user}:{password}@")


async def ask(model: OpenAIChatModel) -> str:
    request = ModelRequest(messages=[{"role": "user", "content": "hi"}])
    try:
        return "".join([part async for part in model.stream(request)])  # type: ignore[misc]
    finally:
        await model.aclose()


async def test_credentials_in_the_url_and_the_key_are_both_sent():
    with HeaderServer(replies=["Answer: hi"]) as server:
        model = OpenAIChatModel(
            model="test-model", base_url=with_credentials(server.base_url), api_key=KEY
        )
        assert model.base_url == server.base_url and PASSWORD not in repr(model)
        assert await ask(model) == "Answer: hi"
    (headers,) = server.seen
    assert headers["authorization"] == f"Basic {BASIC}"
    assert headers["x-api-key"] == KEY


async def test_credentials_alone_go_as_basic_and_a_key_alone_as_bearer():
    with HeaderServer(replies=["Answer: a", "Answer: b"]) as server:
        await ask(OpenAIChatModel(model="m", base_url=with_credentials(server.base_url)))
        await ask(OpenAIChatModel(model="m", base_url=server.base_url, api_key=KEY))
    basic, bearer = server.seen
    assert basic["authorization"] == f"Basic {BASIC}" and "x-api-key" not in basic
    assert bearer["authorization"] == f"Bearer {KEY}" and "x-api-key" not in bearer


async def test_encoded_credentials_are_sent_decoded():
    user, password = "bob@example.com", "p:a/ss%word"
    with HeaderServer(replies=["Answer: hi"]) as server:
        url = with_credentials(server.base_url, "bob%40example.com", "p%3Aa%2Fss%25word")
        await ask(OpenAIChatModel(model="m", base_url=url))
    token = server.seen[0]["authorization"].removeprefix("Basic ")
    assert base64.b64decode(token).decode() == f"{user}:{password}"


def test_the_environments_url_keeps_its_credentials_to_the_model_only(monkeypatch):
    for name in ("OPENAI_API_KEY", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    url = with_credentials("http://127.0.0.1:9/v1")
    model = make_model(Settings(OPENAI_BASE_URL=url, OPENAI_API_KEY=KEY, AGENT_MODEL="m"))
    assert model.base_url == "http://127.0.0.1:9/v1"
    assert split_credentials(url) == ("http://127.0.0.1:9/v1", USER, PASSWORD)


class Redirect(BaseHTTPRequestHandler):
    """Answers every POST with a redirect to `target`, and records what it was sent."""

    target = ""
    seen: ClassVar[list[dict[str, str]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        type(self).seen.append({k.lower(): v for k, v in self.headers.items()})
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(307)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def redirector():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    httpd.daemon_threads = True
    Redirect.seen = []
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


async def test_a_redirect_to_another_host_takes_no_credentials_along(redirector):
    with HeaderServer(replies=["Answer: moved"]) as server:
        # "localhost" is another host than "127.0.0.1", though the same machine.
        Redirect.target = server.base_url.replace("127.0.0.1", "localhost") + "/chat/completions"
        port = redirector.server_address[1]
        url = with_credentials(f"http://127.0.0.1:{port}/v1")
        assert await ask(OpenAIChatModel(model="m", base_url=url, api_key=KEY)) == "Answer: moved"
    (sent,) = Redirect.seen
    assert sent["authorization"] == f"Basic {BASIC}" and sent["x-api-key"] == KEY
    (moved,) = server.seen
    assert "authorization" not in moved and "x-api-key" not in moved


def secrets_in(records: list[logging.LogRecord]) -> list[str]:
    found = []
    formatter = logging.Formatter()
    for record in records:
        text = formatter.format(record)
        found += [f"{record.name}: {text[:200]}" for s in (PASSWORD, KEY, BASIC) if s in text]
    return found


async def test_nothing_secret_is_logged_at_debug(caplog):
    caplog.set_level(logging.DEBUG)  # every logger, the HTTP stack's included
    with HeaderServer(replies=["Answer: hi"]) as server:
        url = with_credentials(server.base_url)
        assert await ask(OpenAIChatModel(model="m", base_url=url, api_key=KEY)) == "Answer: hi"
        # A failed call logs a warning, and its retry an info line: neither names a secret.
        failing = OpenAIChatModel(model="m", base_url=url + "/missing", api_key=KEY)
        with pytest.raises(ModelError):
            await ask(failing)
    assert any(r.name.startswith("httpx") for r in caplog.records)  # the request log ran
    assert any(r.levelno == logging.WARNING for r in caplog.records)
    assert secrets_in(caplog.records) == []


def test_a_library_line_with_credentials_is_redacted_on_its_logger(caplog):
    caplog.set_level(logging.DEBUG)
    register_secret(KEY)
    with_url = with_credentials("http://h:1/v1")
    logging.getLogger("httpx2").info("HTTP Request: POST %s", with_url)
    logging.getLogger("httpcore2.http11").debug(
        "send_request_headers.started headers=%s",
        [(b"authorization", f"Basic {BASIC}".encode()), (b"x-api-key", KEY.encode())],
    )
    logging.getLogger("openai._base_client").debug("options: %s", {"api_key": KEY})
    try:
        raise ValueError(f"failed at {with_url} with {KEY}")
    except ValueError:
        logging.getLogger("openai").exception("oops")
    assert len(caplog.records) == 4
    assert secrets_in(caplog.records) == []
    assert "http://[redacted]@h:1/v1" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("GET https://example.com/v1/models 200", "https://example.com/v1/models"),
        ("basic usage of the calculator", "basic usage"),
        ("mail bob@example.com", "bob@example.com"),
    ],
)
def test_ordinary_lines_stay(line, kept):
    assert kept in redact(line)
