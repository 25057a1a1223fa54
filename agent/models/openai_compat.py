"""A chat model behind any OpenAI-compatible endpoint: OpenAI, Hugging Face, vLLM, Ollama, ...

Text streams as it arrives and stops at a line that starts with a stop string (`Observation:`),
whether or not the server honours `stop`. Every failure becomes a `ModelError` whose message is a
sentence of our own: the service's error text may echo the request, and so the key.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import openai
from pydantic import SecretStr

from .base import ModelError, ModelRequest

log = logging.getLogger(__name__)

# Parameters some models refuse (o-series: `stop`, `temperature`, `max_tokens`); dropped on a 400.
_DROPPABLE = ("stop", "temperature", "max_tokens", "stream_options")
_UNSUPPORTED_WORDS = ("unsupported", "not supported", "does not support")
# Servers without a key (vLLM, Ollama, llama.cpp) still need *some* key for the client.
_NO_KEY = "no-key"


class OpenAIChatModel:
    """Streams chat completions from an OpenAI-compatible server with `openai.AsyncOpenAI`."""

    offline = False
    provider = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 1,
        extra_headers: dict[str, str] | None = None,
    ) -> None:
        self.name = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self._api_key = SecretStr(api_key or "")
        self._extra_headers = dict(extra_headers or {})
        self._client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        # Parameters this model has refused once; not sent again.
        self._refused: set[str] = set()

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.name!r}, base_url={_safe_url(self.base_url)!r})"

    def _get_client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        if self._client_loop is not loop:
            # Pooled connections belong to the loop that opened them; a new loop (another
            # asyncio.run) needs its own client.
            self._client = None
        if self._client is None:
            self._client_loop = loop
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key.get_secret_value() or _NO_KEY,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                default_headers=self._extra_headers or None,
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client; the next call opens a new one."""
        client, self._client = self._client, None
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await client.close()

    async def stream(self, request: ModelRequest) -> AsyncIterator[str]:
        stops = [s for s in request.stop if s]
        pattern = _stop_pattern(stops)
        # OpenAI takes at most four stop strings; the rest are honoured here only.
        stream = await self._open(request, stops[:4])
        received = ""  # all content so far
        sent = 0  # how much of it has been yielded
        finish: str | None = None
        reasoning = False
        try:
            async with stream:
                async for chunk in stream:
                    _note_report(request, chunk)
                    if not chunk.choices:
                        continue  # a usage-only chunk
                    choice = chunk.choices[0]
                    finish = choice.finish_reason or finish
                    delta = choice.delta
                    if delta is None:
                        continue
                    reasoning = reasoning or bool(getattr(delta, "reasoning_content", None))
                    if not delta.content:
                        continue
                    received += delta.content
                    cut = _stop_at(received, pattern, sent)
                    if cut is not None:
                        if cut > sent:
                            yield received[sent:cut]
                        return
                    # Hold back a line that may yet become a stop string.
                    safe = _safe_end(received, stops)
                    if safe > sent:
                        yield received[sent:safe]
                        sent = safe
        except openai.APITimeoutError as exc:
            raise self._fail(
                f"The model service stopped sending the reply for {self.timeout:g} seconds; "
                "try again or raise the timeout.",
                "timeout",
            ) from exc
        except openai.APIConnectionError as exc:
            if sent:
                raise self._fail(
                    "The model's reply was cut off part-way because the connection closed; "
                    "try again.",
                    "cut_off",
                ) from exc
            raise self._fail(
                "The model service closed the connection before sending a reply; try again.",
                "connection",
            ) from exc
        except openai.APIError as exc:
            raise self._fail(
                "The model service reported an error part-way through the reply; try again.",
                "server",
            ) from exc
        except ValueError as exc:
            raise self._fail(
                "The model service sent a reply this client cannot read; check the base URL "
                "points at an OpenAI-compatible API.",
                "bad_response",
            ) from exc
        if sent < len(received):
            yield received[sent:]
        if not received:
            if reasoning and finish == "length":
                raise self._fail(
                    f"Model {self.name!r} used its whole token budget thinking and gave no reply; "
                    "raise max_tokens or try again.",
                    "empty",
                )
            raise self._fail(
                f"Model {self.name!r} returned an empty reply; try again or choose another model.",
                "empty",
            )

    async def _open(self, request: ModelRequest, stops: list[str]) -> Any:
        """Start the streamed call, dropping once each parameter the model says it refuses."""
        client = self._get_client()
        while True:
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
            if request.max_tokens is not None:
                key = "max_completion_tokens" if "max_tokens" in self._refused else "max_tokens"
                params[key] = request.max_tokens
            try:
                return await client.chat.completions.create(**params)
            except openai.BadRequestError as exc:
                refused = _refused_param(exc, [p for p in _DROPPABLE if p in params])
                if refused is None:
                    raise self._status_error(exc) from exc
                log.info("Model %r refuses %r; retrying without it.", self.name, refused)
                self._refused.add(refused)
            except openai.APIStatusError as exc:
                raise self._status_error(exc) from exc
            except openai.APITimeoutError as exc:
                raise self._fail(
                    f"The model service at {_safe_url(self.base_url)} did not answer within "
                    f"{self.timeout:g} seconds; try again or raise the timeout.",
                    "timeout",
                ) from exc
            except openai.APIConnectionError as exc:
                raise self._fail(
                    f"Could not connect to the model service at {_safe_url(self.base_url)}; "
                    "check that it is running and that the base URL is right.",
                    "connection",
                ) from exc
            except openai.OpenAIError as exc:
                raise self._fail(
                    "The model client could not start the call; check the model settings.",
                    "model",
                ) from exc

    def _status_error(self, exc: openai.APIStatusError) -> ModelError:
        code = exc.status_code
        model = self.name
        if code == 401:
            return self._fail(
                "The model service rejected the API key (401); check that the key is right "
                "and has not expired.",
                "auth",
                code,
            )
        if code == 403:
            return self._fail(
                f"The API key is not allowed to use model {model!r} (403); check the key's "
                "permissions.",
                "auth",
                code,
            )
        if code == 404:
            return self._fail(
                f"The model service does not know model {model!r} (404); check the model name "
                "and the base URL.",
                "not_found",
                code,
            )
        if code == 429:
            if _error_code(exc) == "insufficient_quota":
                return self._fail(
                    "The account behind the API key has run out of quota (429); check its billing.",
                    "rate_limit",
                    code,
                )
            wait = _retry_after(exc)
            when = f"try again in {wait:g} seconds" if wait else "wait a moment and try again"
            return self._fail(
                f"The model service is limiting the rate of requests (429); {when}.",
                "rate_limit",
                code,
            )
        if code >= 500:
            return self._fail(
                f"The model service had an internal error ({code}); try again in a moment.",
                "server",
                code,
            )
        if code in (400, 413, 422) and _mentions(exc, ("context", "too long", "too large")):
            return self._fail(
                f"The conversation is too long for model {model!r} ({code}); start a new "
                "conversation or send fewer images.",
                "bad_request",
                code,
            )
        if code in (400, 422):
            return self._fail(
                f"Model {model!r} refused the request ({code}); it may not accept images or "
                "one of the settings.",
                "bad_request",
                code,
            )
        return self._fail(
            f"The model service answered with HTTP {code}; check the base URL and try again.",
            "http",
            code,
        )

    def _fail(self, message: str, kind: str, status_code: int | None = None) -> ModelError:
        log.warning("Model call failed (%s): %s", kind, message)
        return ModelError(message, status_code=status_code, kind=kind)


def _stop_pattern(stops: list[str]) -> re.Pattern[str] | None:
    """Matches a stop string that begins a line, after optional spaces."""
    if not stops:
        return None
    return re.compile(r"^[ \t]*(?:" + "|".join(map(re.escape, stops)) + ")", re.MULTILINE)


def _stop_at(text: str, pattern: re.Pattern[str] | None, sent: int) -> int | None:
    """Where the first stop line starts; lines before the one holding `sent` were checked."""
    if pattern is None:
        return None
    match = pattern.search(text, text.rfind("\n", 0, sent) + 1)
    return match.start() if match else None


def _safe_end(text: str, stops: list[str]) -> int:
    """How much of `text` can be sent without risking text that turns out to be a stop string."""
    line_start = text.rfind("\n") + 1
    tail = text[line_start:].lstrip(" \t")
    if any(s.startswith(tail) for s in stops):
        return line_start
    return len(text)


def _refused_param(exc: openai.BadRequestError, candidates: list[str]) -> str | None:
    error = _error_body(exc)
    if error.get("param") in candidates:
        return error["param"]
    message = _error_text(exc).lower()
    if not any(word in message for word in _UNSUPPORTED_WORDS):
        return None
    for name in candidates:
        if re.search(rf"\b{re.escape(name)}\b", message):
            return name
    return None


def _error_body(exc: openai.APIStatusError) -> dict[str, Any]:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"]
    return body if isinstance(body, dict) else {}


def _error_text(exc: openai.APIStatusError) -> str:
    # Read only to choose a sentence; never copied into a message or a log.
    return str(_error_body(exc).get("message") or exc.body or "")


def _error_code(exc: openai.APIStatusError) -> str | None:
    code = _error_body(exc).get("code")
    return code if isinstance(code, str) else None


def _mentions(exc: openai.APIStatusError, words: tuple[str, ...]) -> bool:
    text = _error_text(exc).lower()
    return any(word in text for word in words)


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
    try:
        if "retry-after-ms" in headers:
            return round(float(headers["retry-after-ms"]) / 1000, 1)
        if "retry-after" in headers:
            return float(headers["retry-after"])
    except ValueError:
        return None
    return None


def _safe_url(url: str | None) -> str:
    """The base URL without credentials or query, which is all a message needs."""
    if not url:
        return "the default OpenAI endpoint"
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}" if parts.scheme else url.split("?")[0]


def _note_report(request: ModelRequest, chunk: Any) -> None:
    """Keep what a chunk says about the call: the finish reason, and the usage that a final
    chunk carries when asked for (`stream_options`)."""
    report = request.report
    for choice in chunk.choices or ():
        if choice.finish_reason:
            report.finish_reason = choice.finish_reason
    usage = getattr(chunk, "usage", None)
    if usage is not None:
        report.input_tokens = getattr(usage, "prompt_tokens", None)
        report.output_tokens = getattr(usage, "completion_tokens", None)
