"""Traces over real HTTP: token usage from the local OpenAI-compatible server, no key or image
bytes in any span, and spans sent to an OTLP collector named by the settings."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from test_telemetry import ANSWER, Traced, action

from agent import Agent
from agent.config import Settings
from agent.models import OpenAIChatModel, ScriptedModel
from agent.tracing import telemetry
from tests.conftest import collect
from tests.support.openai_server import OpenAIServer, token_usage, unsupported

CANARY = "sk-canary-7f3e9b21c4d8a605"


def model_for(server, key: str = "sk-test") -> OpenAIChatModel:
    return OpenAIChatModel(
        model="test-vision", base_url=server.base_url, api_key=key, max_retries=0, timeout=5
    )


async def test_usage_tokens_appear_when_the_server_reports_them(test_tools):
    traced = Traced()
    replies = [action("echo", {"text": "hi"}), ANSWER]
    with OpenAIServer(replies=replies, honour_stop=True) as server:
        agent = Agent(model_for(server), test_tools, settings=Settings(), tracer=traced.provider)
        events = await collect(agent, "echo hi")
        bodies = list(server.requests)
    assert events[-1].type == "answer"
    assert all(body["stream_options"] == {"include_usage": True} for body in bodies)
    chats = sorted(traced.named("chat"), key=lambda s: s.start_time)
    assert [s.name for s in chats] == ["chat test-vision", "chat test-vision"]
    for span, body, reply in zip(chats, bodies, replies, strict=True):
        usage = token_usage(body, reply)
        assert span.attributes["gen_ai.usage.input_tokens"] == usage["prompt_tokens"] > 0
        assert span.attributes["gen_ai.usage.output_tokens"] == usage["completion_tokens"] > 0
        assert span.attributes["gen_ai.response.finish_reasons"] == ("stop",)
        assert span.attributes["gen_ai.provider.name"] == "openai"
        assert span.attributes["server.address"] == "127.0.0.1"
        assert span.attributes["server.port"] == server.port
        assert span.attributes["gen_ai.request.max_tokens"] == body["max_tokens"]
    turn = traced.turn()
    assert turn.attributes["gen_ai.usage.input_tokens"] == sum(
        s.attributes["gen_ai.usage.input_tokens"] for s in chats
    )
    # The trace export carries the same counts.
    calls = [e for e in events if e.type == "model_call"]
    assert [c.output_tokens for c in calls] == [
        s.attributes["gen_ai.usage.output_tokens"] for s in chats
    ]


async def test_untraced_requests_ask_for_usage_too(test_tools):
    telemetry.stop_tracing()
    with OpenAIServer(replies=[ANSWER]) as server:
        events = await collect(Agent(model_for(server), test_tools, settings=Settings()), "hi")
        (body,) = server.requests
    assert body["stream_options"] == {"include_usage": True}
    (call,) = [e for e in events if e.type == "model_call"]
    assert call.input_tokens == token_usage(body, ANSWER)["prompt_tokens"]
    assert not call.estimated


async def test_a_server_that_refuses_stream_options_still_answers(test_tools):
    traced = Traced()
    with OpenAIServer(replies=[unsupported("stream_options"), ANSWER]) as server:
        agent = Agent(model_for(server), test_tools, settings=Settings(), tracer=traced.provider)
        events = await collect(agent, "hi")
        refused, retried = server.requests
    assert events[-1].type == "answer"
    assert "stream_options" in refused and "stream_options" not in retried
    (chat,) = traced.named("chat")
    # The page estimates what the service would not count; the span keeps to its counts.
    assert "gen_ai.usage.input_tokens" not in chat.attributes
    (call,) = [e for e in events if e.type == "model_call"]
    assert call.estimated and call.input_tokens and call.output_tokens


async def test_no_key_and_no_image_bytes_in_any_span_even_with_content_on(test_tools, png):
    traced = Traced()
    replies = [action("crop", {"image_id": "img_1"}), ANSWER]
    settings = Settings(openai_api_key=CANARY, otel_capture_content=True)
    with OpenAIServer(replies=replies) as server:
        model = model_for(server, CANARY)
        agent = Agent(model, test_tools, settings=settings, tracer=traced.provider)
        events = await collect(agent, f"crop this, my key is not {CANARY[:6]}", [png])
        sent = json.dumps(server.requests)
    assert events[-1].type == "answer"
    assert "data:image/png;base64," in sent  # the images really went to the model
    assert len(traced.spans) == 4
    for span in traced.spans:
        recorded = [*span.attributes.values()]
        recorded += [v for event in span.events for v in event.attributes.values()]
        recorded += [span.name, span.status.description or ""]
        for value in recorded:
            assert CANARY not in str(value)
            assert "base64," not in str(value) and "data:image" not in str(value)


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.received.append((self.path, self.headers.get("content-type", ""), body))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def collector():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    _Collector.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


async def test_an_otlp_endpoint_in_the_settings_sends_each_turn_there(collector, test_tools):
    telemetry.stop_tracing()
    endpoint = f"http://127.0.0.1:{collector.server_address[1]}"
    try:
        agent = Agent(
            ScriptedModel([ANSWER]), test_tools, settings=Settings(otel_endpoint=endpoint)
        )
        await collect(agent, "hi")
        assert telemetry.flush_tracing()
    finally:
        telemetry.stop_tracing()
    (path, kind, body), *_ = _Collector.received
    assert path == "/v1/traces" and kind == "application/x-protobuf"
    assert b"invoke_agent multimodal-react-agent" in body and b"chat scripted" in body
    assert b"multimodal-react-agent" in body  # the service name, unless OTEL_SERVICE_NAME says
