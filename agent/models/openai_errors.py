"""What an OpenAI-compatible service's refusals mean: one sentence each, and whether to retry.

The sentences are our own. The service's error text is read only to choose one, never copied:
it may echo the request, and so the key.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import openai

from .base import ModelError

_UNSUPPORTED_WORDS = ("unsupported", "not supported", "does not support")
# The openai client's own backoff: 0.5 s, 1 s, 2 s, ... at most 8 s.
_FIRST_WAIT = 0.5
_LONGEST_WAIT = 8.0


def status_error(exc: openai.APIStatusError, model: str) -> ModelError:
    """The sentence for an HTTP error answer, with its status code and kind."""
    code = exc.status_code

    def fail(message: str, kind: str) -> ModelError:
        return ModelError(message, status_code=code, kind=kind)

    if code == 401:
        return fail(
            "The model service rejected the API key (401); check that the key is right "
            "and has not expired.",
            "auth",
        )
    if code == 403:
        return fail(
            f"The API key is not allowed to use model {model!r} (403); check the key's "
            "permissions.",
            "auth",
        )
    if code == 404:
        return fail(
            f"The model service does not know model {model!r} (404); check the model name "
            "and the base URL.",
            "not_found",
        )
    if code == 429:
        if error_code(exc) == "insufficient_quota":
            return fail(
                "The account behind the API key has run out of quota (429); check its billing.",
                "rate_limit",
            )
        return fail(
            f"The model service is limiting the rate of requests (429); {_when(exc)}.",
            "rate_limit",
        )
    if code == 500:
        return fail(
            "The model service had an internal error (500); try again in a moment.", "server"
        )
    if code == 502:
        return fail(
            "The gateway in front of the model service got no valid answer from it (502); "
            "try again in a moment.",
            "server",
        )
    if code == 503:
        wait = retry_after(exc)
        when = f"try again in {seconds(wait)}" if wait else "try again in a moment"
        return fail(f"The model service is unavailable right now (503); {when}.", "server")
    if code == 504:
        return fail(
            "The gateway in front of the model service timed out waiting for the model (504); "
            "try again in a moment, or send a shorter conversation.",
            "server",
        )
    if code >= 500:
        return fail(f"The model service failed with HTTP {code}; try again in a moment.", "server")
    if code in (400, 413, 422) and _mentions(exc, ("context", "too long", "too large")):
        return fail(
            f"The conversation is too long for model {model!r} ({code}); start a new "
            "conversation or send fewer images.",
            "bad_request",
        )
    if code == 413:
        return fail(
            "The request was too large for the model service (413); send fewer or smaller "
            "images, or start a new conversation.",
            "bad_request",
        )
    if code in (400, 422):
        return fail(
            f"Model {model!r} refused the request ({code}), perhaps because it does not "
            "accept images or one of the settings; try without images, or choose another "
            "model.",
            "bad_request",
        )
    return fail(
        f"The model service answered with HTTP {code}; check the base URL and try again.",
        "http",
    )


def retry_wait(exc: openai.APIError, retries_done: int) -> float | None:
    """Seconds to wait before trying again, or None when trying again cannot help."""
    if isinstance(exc, openai.APITimeoutError):
        return None  # the call's whole time budget is already spent
    if isinstance(exc, openai.APIConnectionError):
        return _backoff(retries_done)
    if not isinstance(exc, openai.APIStatusError):
        return None
    code = exc.status_code
    if code == 429 and error_code(exc) == "insufficient_quota":
        return None
    if code in (408, 429) or code >= 500:
        asked = retry_after(exc)
        return asked if asked is not None else _backoff(retries_done)
    return None


def retry_reason(exc: openai.APIError) -> str:
    """What went wrong, as the start of the sentence that announces a retry."""
    if isinstance(exc, openai.APIStatusError):
        return f"The model service answered HTTP {exc.status_code}"
    return "The connection to the model service failed"


def seconds(value: float) -> str:
    """ "1 second", "0.5 seconds", "60 seconds"."""
    return f"{value:g} second" if value == 1 else f"{value:g} seconds"


def _backoff(retries_done: int) -> float:
    return min(_FIRST_WAIT * 2**retries_done, _LONGEST_WAIT)


def _when(exc: openai.APIStatusError) -> str:
    wait = retry_after(exc)
    return f"try again in {seconds(wait)}" if wait else "wait a moment and try again"


def refused_param(exc: openai.BadRequestError, candidates: list[str]) -> str | None:
    """Which of `candidates` a 400 says the model does not support, if any."""
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


def error_code(exc: openai.APIStatusError) -> str | None:
    code = _error_body(exc).get("code")
    return code if isinstance(code, str) else None


def _mentions(exc: openai.APIStatusError, words: tuple[str, ...]) -> bool:
    text = _error_text(exc).lower()
    return any(word in text for word in words)


def mentions_tools(exc: openai.APIStatusError) -> bool:
    """A 400 that is about the `tools` parameter: Ollama's "does not support tools", vLLM's
    "auto tool choice requires --enable-auto-tool-choice", a server that rejects the field."""
    return _mentions(exc, ("tool", "function call", "function_call"))


def retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
    try:
        if "retry-after-ms" in headers:
            return max(0.0, round(float(headers["retry-after-ms"]) / 1000, 1))
        if "retry-after" in headers:
            return max(0.0, float(headers["retry-after"]))
    except ValueError:
        return None
    return None


def safe_url(url: str | None) -> str:
    """The base URL without credentials or query, which is all a message needs."""
    if not url:
        return "the default OpenAI endpoint"
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}" if parts.scheme else url.split("?")[0]
