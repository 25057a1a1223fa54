"""A chat model behind any OpenAI-compatible endpoint: OpenAI, Hugging Face, vLLM, Ollama, ...

Text streams as it arrives and stops at a line that starts with a stop string (`Observation:`),
whether or not the server honours `stop`. Every failure becomes a `ModelError` whose message is a
sentence of our own (`openai_errors`): the service's error text may echo the request, and so the
key.

Credentials in the base URL never reach the HTTP client's URL, so no request log shows them
(`credentials`; `agent.tracing.log_redaction` is the second guard).
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import openai
from pydantic import SecretStr

from agent.tracing.log_redaction import install as install_log_redaction
from agent.tracing.log_redaction import register_secret

from .base import ModelError, ModelRequest, ToolCallPart
from .credentials import connection, split_credentials
from .openai_errors import (
    mentions_tools,
    refused_param,
    retry_sentence,
    retry_wait,
    safe_url,
    status_error,
)
from .repetition import RepetitionWatch
from .stream_reading import note_report, reasoning_text, safe_end, stop_at, stop_pattern
from .tool_calls import CallAssembler, CallsTooLong
from .vision import VISION_MODES, VisionMemory, VisionMode, status, stream_seen

log = logging.getLogger(__name__)

# Parameters some models refuse (o-series: `stop`, `temperature`, `max_tokens`); dropped on a 400.
# A refused `max_tokens` is sent as `max_completion_tokens`, and only a refusal of that too
# leaves the reply without a limit on the server's side.
_DROPPABLE = ("stop", "temperature", "max_tokens", "max_completion_tokens", "stream_options")
_TOKEN_PARAMS = ("max_tokens", "max_completion_tokens")
# A token is about four characters of English, fewer of Chinese: twice that is well past what a
# server honouring the limit sends, and still bounds one that ignores it.
CHARS_PER_TOKEN = 8
# Servers without a key (vLLM, Ollama, llama.cpp) still need *some* key for the client.
_NO_KEY = "no-key"
# Closing tasks scheduled by `close()`, held so they are not collected before they finish.
_closing: set[Any] = set()

install_log_redaction()


class OpenAIChatModel:
    """Streams chat completions from an OpenAI-compatible server with `openai.AsyncOpenAI`.

    Bounds, so that no call runs on without end:

    - `timeout` is the whole budget for getting a reply started, retries and their waits
      included; once the reply streams, it is how long the server may go silent between pieces.
      Each timeout sentence names the time actually waited.
    - `max_retries` more attempts are made, within that budget, after a dropped connection, a
      408, a 429 or a 5xx (waiting as `Retry-After` asks, else 0.5 s, 1 s, 2 s, ...). Each
      retry is logged and, when the request has `on_retry`, announced to it in one sentence
      ("The model service answered HTTP 503; trying again in 0.5 seconds (attempt 2 of 2).").
      The openai client's own hidden retries are off.
    - `max_tokens` (a request's own `max_tokens` wins) is sent to the server, and the stream is
      also cut here once reply and reasoning pass `CHARS_PER_TOKEN` characters per token: a
      server that ignores the limit then ends in `ModelError(kind="cut_off")` rather than
      streaming forever. Ending with an error, not a shortened reply, because text that ran so
      far past its limit is a model stuck in a loop, not an answer worth parsing.
    - A reply (or its reasoning) that became one stretch copied over and over (`repetition`)
      ends, a few hundred characters into the loop, in a `cut_off` saying so.

    Images: `vision` is `auto`, `on` or `off` (see `vision`); `vision_memory` is what is known
    of which models take images (a page session sets its own, shared by its models).

    Every stream is closed on every path: its end, a stop string, an error, `aclose()` of the
    iterator, cancellation. The HTTP client lives as long as the model (one per event loop);
    `aclose()` closes it from async code, `close()` from anywhere.
    """

    offline = False
    native_tools = True
    provider = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 1,
        extra_headers: dict[str, str] | None = None,
        max_tokens: int = 2048,
        public_only: bool = False,
        vision: VisionMode = "auto",
        vision_memory: VisionMemory | None = None,
    ) -> None:
        self.name = model
        if vision not in VISION_MODES:
            raise ValueError(f"unknown vision mode {vision!r}; use auto, on or off")
        self.vision = vision
        self.vision_memory = vision_memory or VisionMemory()
        # Without credentials: this is the URL the client, its logs and every message see.
        self.base_url, user, password = split_credentials(base_url)
        self._seen_as = f"{safe_url(self.base_url)} {model}"  # its name in `vision_memory`
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.max_tokens = max_tokens
        # A public page's visitor named this URL: connect only to public addresses, checked
        # as each connection opens, redirects included (`public_only`).
        self.public_only = public_only
        self._api_key = SecretStr(api_key or "")
        self._extra_headers = dict(extra_headers or {})
        self._basic = SecretStr("")
        if user or password:
            self._basic = SecretStr(base64.b64encode(f"{user}:{password}".encode()).decode())
        for secret in (api_key, password, self._basic.get_secret_value()):
            register_secret(secret)
        self._client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        # Parameters this model has refused once; not sent again.
        self._refused: set[str] = set()

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.name!r}, base_url={safe_url(self.base_url)!r})"

    def _get_client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        if self._client_loop is not loop:
            # Pooled connections belong to the loop that opened them; a new loop (another
            # asyncio.run) needs its own client. The old one is dropped, not closed: its loop
            # may still be streaming with it in another thread.
            self._client = None
        if self._client is None:
            self._client_loop = loop
            key = self._api_key.get_secret_value()
            headers, http_client = connection(
                self.base_url,
                key,
                self._basic.get_secret_value(),
                self._extra_headers,
                public_only=self.public_only,
                timeout=self.timeout,
            )
            self._client = openai.AsyncOpenAI(
                api_key=key or _NO_KEY,
                base_url=self.base_url,
                timeout=self.timeout,
                # Retries are ours, inside the time budget; the client's would double it.
                max_retries=0,
                default_headers=headers,
                http_client=http_client,
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client and its pooled connections; the next call opens a new one."""
        client, loop = self._client, self._client_loop
        if client is not None and loop is asyncio.get_running_loop():
            self._client = self._client_loop = None
            await client.close()
        else:
            self.close()

    def close(self) -> None:
        """Close the HTTP client from any thread, inside a running loop or not, without blocking.

        The closing runs on the loop that owns the client: as a task when that loop is this
        thread's, handed over when it runs in another thread (a page session ending), and not
        at all once that loop has ended, when the sockets go with the client object. A call in
        flight on this model then fails with a `ModelError`.
        """
        client, loop = self._client, self._client_loop
        self._client = self._client_loop = None
        if client is None or loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            future: Any = loop.create_task(client.close())
        elif loop.is_running():
            future = asyncio.run_coroutine_threadsafe(client.close(), loop)
        else:
            return
        _closing.add(future)
        future.add_done_callback(_closing.discard)

    def vision_state(self) -> str:
        """How images go to this model now (`vision.status`)."""
        return status(self.vision, self.vision_memory.sees(self._seen_as))

    def stream(self, request: ModelRequest) -> AsyncIterator[str | ToolCallPart]:
        return stream_seen(
            self._stream,
            request,
            mode=self.vision,
            memory=self.vision_memory,
            key=self._seen_as,
            name=self.name,
        )

    async def _stream(self, request: ModelRequest) -> AsyncGenerator[str | ToolCallPart, None]:
        # With native tool calling the reply ends with calls, not with an Observation line.
        stops = [s for s in request.stop if s] if request.tool_specs is None else []
        pattern = stop_pattern(stops)
        limit = request.max_tokens if request.max_tokens is not None else self.max_tokens
        # OpenAI takes at most four stop strings; the rest are honoured here only.
        stream = await self._open(request, stops[:4], limit)
        received = ""  # all content so far
        sent = 0  # how much of it has been yielded
        size = 0  # characters of content and reasoning, measured against the limit
        finish: str | None = None
        reasoning = False
        calls = CallAssembler(max_chars=limit * CHARS_PER_TOKEN)
        said, thought_over = RepetitionWatch(), RepetitionWatch()
        try:
            async with stream:
                async for chunk in stream:
                    note_report(request, chunk)
                    if not chunk.choices:
                        continue  # a usage-only chunk
                    choice = chunk.choices[0]
                    finish = choice.finish_reason or finish
                    delta = choice.delta
                    if delta is None:
                        continue
                    thought = reasoning_text(delta)
                    reasoning = reasoning or bool(thought)
                    size += len(thought) + len(delta.content or "") + calls.feed(delta)
                    if size > limit * CHARS_PER_TOKEN:
                        raise self._fail("cut_off_limit", "cut_off", limit=limit)
                    if said.feed(delta.content or "") or thought_over.feed(thought):
                        raise self._fail("repeating", "cut_off", model=self.name)
                    if not delta.content:
                        continue
                    received += delta.content
                    cut = stop_at(received, pattern, sent)
                    if cut is not None:
                        if cut > sent:
                            yield received[sent:cut]
                        return
                    # Hold back a line that may yet become a stop string.
                    safe = safe_end(received, stops)
                    if safe > sent:
                        yield received[sent:safe]
                        sent = safe
        except openai.APITimeoutError as exc:
            raise self._fail("stalled", "timeout", timeout=self.timeout) from exc
        except openai.APIConnectionError as exc:
            if sent:
                raise self._fail("cut_off_closed", "cut_off") from exc
            raise self._fail("closed_early", "connection") from exc
        except openai.APIError as exc:
            raise self._fail("stream_error", "server") from exc
        except CallsTooLong as exc:
            raise self._fail("cut_off_limit", "cut_off", limit=limit) from exc
        except ValueError as exc:
            raise self._fail("unreadable_reply", "bad_response") from exc
        if sent < len(received):
            yield received[sent:]
        for call in calls.parts():
            yield call
        if not received and not calls:
            if reasoning and finish == "length":
                raise self._fail("thinking_only", "empty", model=self.name)
            raise self._fail("empty_reply", "empty", model=self.name)

    async def _open(self, request: ModelRequest, stops: list[str], limit: int) -> Any:
        """Start the streamed call within the time budget: drop once each parameter the model
        says it refuses, and try again after failures that may pass."""
        client = self._get_client()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        attempts = self.max_retries + 1
        attempt = 1
        while True:
            params = self._params(request, stops, limit)
            try:
                async with asyncio.timeout_at(deadline):
                    return await client.chat.completions.create(**params)
            except (TimeoutError, openai.APITimeoutError) as exc:
                raise self._fail(
                    "no_answer", "timeout", url=safe_url(self.base_url), timeout=self.timeout
                ) from exc
            except openai.BadRequestError as exc:
                if request.tool_specs is not None and mentions_tools(exc):
                    raise self._fail(
                        "tools_unsupported", "tools_unsupported", exc.status_code, model=self.name
                    ) from exc
                refused = refused_param(exc, [p for p in _DROPPABLE if p in params])
                if refused is None:
                    raise self._logged(status_error(exc, self.name)) from exc
                log.info("Model %r refuses %r; retrying without it.", self.name, refused)
                self._refused.add(refused)
            except (openai.APIStatusError, openai.APIConnectionError) as exc:
                wait = retry_wait(exc, attempt - 1)
                # A retry must leave the new attempt at least as long as the wait before it.
                if attempt >= attempts or wait is None or wait > (deadline - loop.time()) / 2:
                    raise self._logged(self._open_error(exc)) from exc
                attempt += 1
                notice = retry_sentence(exc, wait, attempt, attempts)
                log.info("Model %r: %s", self.name, notice)
                if request.on_retry is not None:
                    request.on_retry(retry_sentence(exc, wait, attempt, attempts, request.language))
                await asyncio.sleep(wait)
            except openai.OpenAIError as exc:
                raise self._fail("client_start", "model") from exc

    def _params(self, request: ModelRequest, stops: list[str], limit: int) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.name,
            "messages": request.messages,
            "stream": True,
        }
        if stops and "stop" not in self._refused:
            params["stop"] = stops
        if request.want_usage and "stream_options" not in self._refused:
            params["stream_options"] = {"include_usage": True}
        if "temperature" not in self._refused:
            params["temperature"] = request.temperature
        key = next((k for k in _TOKEN_PARAMS if k not in self._refused), None)
        if key is not None:
            params[key] = limit
        if request.tool_specs is not None:
            params["tools"] = request.tool_specs
        return params

    def _open_error(self, exc: openai.APIError) -> ModelError:
        if isinstance(exc, openai.APIStatusError):
            return status_error(exc, self.name)
        return ModelError.said("no_connection", "connection", url=safe_url(self.base_url))

    def _fail(
        self, key: str, kind: str, status_code: int | None = None, **facts: Any
    ) -> ModelError:
        """The error `agent.error_words` says under `key`, logged."""
        return self._logged(ModelError.said(key, kind, status_code, **facts))

    def _logged(self, error: ModelError) -> ModelError:
        log.warning("Model call failed (%s): %s", error.kind, error)
        return error
