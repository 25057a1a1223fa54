"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks.

    with OpenAIServer(replies=["Thought: ...\\nAnswer: 4"], delay=0.0) as server:
        model = OpenAIChatModel(model="test-model", base_url=server.base_url, api_key="k")

It speaks `POST /v1/chat/completions` (streamed as server-sent events or as one JSON body) and
`GET /v1/models`, as a plain ASGI app served by uvicorn in a background thread. Every call is
async, so a per-call `delay` never holds up the other calls in flight.

A reply is a string, or one of the failure markers of `openai_replies`, or a callable of the
request body that returns either. `requests` records each request body; `request_headers`
records its headers without `Authorization`, so a recorded exchange never holds a key.
`disconnects` counts clients that went away before their response was complete.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import uvicorn

from tests.support.openai_replies import (
    CutOff,
    Fail,
    Forever,
    Hang,
    Reply,
    ReplySource,
    StreamError,
    bad_gateway,
    gateway_timeout,
    rate_limited,
    server_error,
    unauthorized,
    unavailable,
    unknown_model,
    unsupported,
)
from tests.support.openai_tool_calls import Calls, call_deltas

__all__ = [
    "CutOff",
    "Fail",
    "Forever",
    "Hang",
    "OpenAIServer",
    "Reply",
    "ReplySource",
    "StreamError",
    "bad_gateway",
    "gateway_timeout",
    "rate_limited",
    "server_error",
    "unauthorized",
    "unavailable",
    "unknown_model",
    "unsupported",
]


class OpenAIServer:
    """An OpenAI-compatible chat completions server; use it as a context manager.

    `replies` are consumed one per completion call; when they run out the call gets a 500.
    Replies stream in pieces of `chunk_size` characters, `chunk_delay` seconds apart, after
    `delay` seconds. With `honour_stop` the reply is cut before the first `stop` string, as
    OpenAI does; without it `stop` is ignored, as some local servers do. `reasoning` is sent as
    `reasoning_content` deltas before the reply. A streamed reply ends with a usage chunk (no
    choices; `token_usage`) when the request asks for one (`stream_options.include_usage`), as
    OpenAI, vLLM and Ollama do, and always with `usage_chunk`; with `cached_tokens` the usage
    says that many prompt tokens were cached (`prompt_tokens_details`), as OpenAI does.
    """

    def __init__(
        self,
        replies: Iterable[ReplySource] | Callable[[dict[str, Any]], Reply] = (),
        delay: float = 0.0,
        *,
        chunk_size: int = 4,
        chunk_delay: float = 0.0,
        honour_stop: bool = False,
        reasoning: str = "",
        usage_chunk: bool = False,
        models: Iterable[str] = ("test-model",),
        refuse_tools: bool = False,
        cached_tokens: int | None = None,
    ) -> None:
        self._source = replies if callable(replies) else list(replies)
        self.delay = delay
        self.chunk_size = max(1, chunk_size)
        self.chunk_delay = chunk_delay
        self.honour_stop = honour_stop
        self.reasoning = reasoning
        self.usage_chunk = usage_chunk
        self.cached_tokens = cached_tokens
        # As Ollama answers for a model without tool support.
        self.refuse_tools = refuse_tools
        self.models = list(models)
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.disconnects = 0
        self.completed = 0
        self._calls = 0
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> OpenAIServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._app,
            interface="asgi3",
            lifespan="off",
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("The test server did not start.")
            time.sleep(0.01)
        return self

    def stop(self, wait: bool = True) -> None:
        """Shut down; with `wait=False` return at once and let `join()` wait later."""
        if self._server is not None:
            self._server.should_exit = True
        if wait:
            self.join()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for_disconnects(self, count: int = 1, timeout: float = 10.0) -> bool:
        """Wait until at least `count` clients have gone away mid-response. The wait ends as
        soon as they have; its bound is far below the model timeout (a client that kept the
        stream would hold it that long) and far above what a busy machine takes to close."""
        deadline = time.monotonic() + timeout
        while self.disconnects < count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    # -- the ASGI app ----------------------------------------------------------------------

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path, method = scope["path"].rstrip("/"), scope["method"]
        if method == "GET" and path == "/v1/models":
            data = [{"id": m, "object": "model", "owned_by": "test"} for m in self.models]
            await _send_json(send, 200, {"object": "list", "data": data})
            return
        if method != "POST" or path != "/v1/chat/completions":
            await _send_error(send, Fail(404, f"No route for {method} {path}."))
            return

        raw = b""
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            raw += message.get("body", b"")
            more = message.get("more_body", False)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            await _send_error(send, Fail(400, "The request body is not valid JSON."))
            return
        headers = {
            k.decode("latin-1"): v.decode("latin-1")
            for k, v in scope["headers"]
            if k.lower() != b"authorization"
        }
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
        if self.refuse_tools and body.get("tools"):
            refusal = "registry.ollama.ai/library/test-model does not support tools"
            await _send_error(send, Fail(400, refusal))
            return
        reply = self._next_reply(body)

        # Watch for the client going away while the reply is being made or sent.
        respond = asyncio.ensure_future(self._respond(send, body, reply))
        watch = asyncio.ensure_future(_wait_for_disconnect(receive))
        try:
            await asyncio.wait({respond, watch}, return_when=asyncio.FIRST_COMPLETED)
            if respond.done():
                respond.result()
                self.completed += 1
            else:
                self.disconnects += 1
                respond.cancel()
        finally:
            for task in (respond, watch):
                task.cancel()
            await asyncio.gather(respond, watch, return_exceptions=True)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            index = self._calls
            self._calls += 1
        if callable(self._source):
            return self._source(body)
        if index >= len(self._source):
            return Fail(500, "The test server has no more replies.", type="server_error")
        reply = self._source[index]
        return reply(body) if callable(reply) else reply

    async def _respond(self, send: Any, body: dict[str, Any], reply: Reply) -> None:
        if isinstance(reply, Fail):
            await _send_error(send, reply)
            return
        if self.delay:
            await asyncio.sleep(self.delay)
        if isinstance(reply, Hang) and not reply.text:
            await asyncio.sleep(reply.seconds)
            return
        cut_off = isinstance(reply, CutOff)
        text = reply if isinstance(reply, str) else "" if isinstance(reply, Forever) else reply.text
        calls = call_deltas(reply) if isinstance(reply, Calls) else []
        finish = "stop"
        if self.honour_stop and not cut_off:
            text = _cut_at_stop(text, body.get("stop"))
        model = body.get("model", "test-model")
        if not body.get("stream"):
            await self._respond_whole(send, model, text, reply)
            return

        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream"),
                    (b"cache-control", b"no-cache"),
                ],
            }
        )
        ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"

        async def event(payload: dict[str, Any] | str) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload)
            await send(
                {
                    "type": "http.response.body",
                    "body": f"data: {data}\n\n".encode(),
                    "more_body": True,
                }
            )

        await event(_chunk(ident, model, {"role": "assistant", "content": None}))
        if isinstance(reply, Forever):
            key = "reasoning_content" if reply.reasoning else "content"
            while True:  # until the client goes away and this task is cancelled
                await event(_chunk(ident, model, {key: reply.text}))
                await asyncio.sleep(self.chunk_delay)
        for piece in _pieces(self.reasoning, self.chunk_size):
            await event(_chunk(ident, model, {"reasoning_content": piece}))
        for piece in _pieces(text, self.chunk_size):
            if self.chunk_delay:
                await asyncio.sleep(self.chunk_delay)
            await event(_chunk(ident, model, {"content": piece}))
        for delta in calls:
            await event(_chunk(ident, model, delta))
        if calls:
            finish = "tool_calls"
        if isinstance(reply, Hang):
            await asyncio.sleep(reply.seconds)
            return
        if cut_off:
            # Returning without the final body message makes uvicorn drop the connection.
            return
        if isinstance(reply, StreamError):
            await event({"error": {"message": reply.message, "type": "server_error", "code": 500}})
        await event(_chunk(ident, model, {}, finish))
        if self.usage_chunk or (body.get("stream_options") or {}).get("include_usage"):
            usage: dict[str, Any] = token_usage(body, text)
            if self.cached_tokens is not None:
                usage["prompt_tokens_details"] = {"cached_tokens": self.cached_tokens}
            await event({**_chunk(ident, model, {}), "choices": [], "usage": usage})
        await event("[DONE]")
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _respond_whole(self, send: Any, model: str, text: str, reply: Reply) -> None:
        if isinstance(reply, Hang):
            await asyncio.sleep(reply.seconds)
        elif isinstance(reply, StreamError):
            await _send_error(send, Fail(500, reply.message, type="server_error"))
        elif isinstance(reply, CutOff):
            # Promise a body, send half of it and leave: the client sees the connection drop.
            raw = json.dumps(_completion(model, text, "stop")).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(raw)),
            ]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send(
                {"type": "http.response.body", "body": raw[: len(raw) // 2], "more_body": True}
            )
        else:
            await _send_json(send, 200, _completion(model, text, "stop"))


async def _wait_for_disconnect(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def token_usage(body: dict[str, Any], reply: str) -> dict[str, int]:
    """The tokens this server reports for a call: a word is a token, so tests can predict it."""
    prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    completion = len(reply.split())
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _cut_at_stop(text: str, stop: str | list[str] | None) -> str:
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    found = [text.find(s) for s in stops if s and s in text]
    return text[: min(found)] if found else text


def _chunk(
    ident: str, model: str, delta: dict[str, Any], finish: str | None = None
) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _completion(model: str, text: str, finish: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


async def _send_json(
    send: Any, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    raw = json.dumps(payload).encode()
    header_list = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(raw)).encode()),
    ]
    header_list += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": header_list})
    await send({"type": "http.response.body", "body": raw, "more_body": False})


async def _send_error(send: Any, fail: Fail) -> None:
    error = {"message": fail.message, "type": fail.type, "param": fail.param, "code": fail.code}
    await _send_json(send, fail.status, {"error": error}, fail.headers)
