"""What an OpenAI-compatible service's refusals mean: one sentence each, and whether to retry.

The sentences are our own. The service's error text is read only to choose one, never copied:
it may echo the request, and so the key.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import openai

from ..error_words import say, seconds
from .base import ModelError

__all__ = ["seconds"]

_UNSUPPORTED_WORDS = ("unsupported", "not supported", "does not support")
# A refusal of image parts as such: OpenAI's "image_url is only supported by certain models",
# vLLM's "... is not a multimodal model", llama.cpp's "image input is not supported ... mmproj",
# LM Studio's "Model does not support images", Groq's "content must be a string", TGI's
# "unknown variant `image_url`", Ollama's "missing data required for image input".
_IMAGE_WORDS = (
    "image",
    "vision",
    "multimodal",
    "multi-modal",
    "mmproj",
    "content type",
    "content part",
    "content_part",
    "must be a string",
)
# ... and not one of an image the model could take in another size or format.
_IMAGE_FAULTS = (
    "too large",
    "too big",
    "too many",
    "exceed",
    "size",
    "format",
    "corrupt",
    "invalid image",
    "could not process",
    "unsupported image",
)
# The openai client's own backoff: 0.5 s, 1 s, 2 s, ... at most 8 s.
_FIRST_WAIT = 0.5
_LONGEST_WAIT = 8.0


def status_error(exc: openai.APIStatusError, model: str) -> ModelError:
    """The sentence for an HTTP error answer, with its status code and kind."""
    code = exc.status_code

    def fail(key: str, kind: str, **facts: Any) -> ModelError:
        return ModelError.said(key, kind, status_code=code, **facts)

    if code == 401:
        return fail("http_401", "auth")
    if code == 403:
        return fail("http_403", "auth", model=model)
    if code == 404:
        return fail("http_404", "not_found", model=model)
    if code == 429:
        if error_code(exc) == "insufficient_quota":
            return fail("quota", "rate_limit")
        wait = retry_after(exc)
        if wait:
            return fail("rate_limit_wait", "rate_limit", wait=wait)
        return fail("rate_limit", "rate_limit")
    if code in (500, 502, 504):
        return fail(f"http_{code}", "server")
    if code == 503:
        wait = retry_after(exc)
        return fail("http_503_wait", "server", wait=wait) if wait else fail("http_503", "server")
    if refuses_images(exc):
        return fail("images_refused", "bad_request", model=model, code=code)
    if code >= 500:
        return fail("http_5xx", "server", code=code)
    if code in (400, 413, 422) and _mentions(exc, ("context", "too long", "too large")):
        return fail("too_long", "bad_request", model=model, code=code)
    if code == 413:
        return fail("http_413", "bad_request")
    if code in (400, 422):
        return fail("bad_request", "bad_request", model=model, code=code)
    return fail("http_other", "http", code=code)


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


def retry_sentence(
    exc: openai.APIError, wait: float, attempt: int, attempts: int, language: str = "en"
) -> str:
    """The sentence that announces a retry: what went wrong, how long until the next try."""
    facts = {"wait": wait, "attempt": attempt, "attempts": attempts}
    if isinstance(exc, openai.APIStatusError):
        return say("retry_status", language, code=exc.status_code, **facts)
    return say("retry_connection", language, **facts)


def _backoff(retries_done: int) -> float:
    return min(_FIRST_WAIT * 2**retries_done, _LONGEST_WAIT)


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


def refuses_images(exc: openai.APIStatusError) -> bool:
    """An error answer that says the model does not take image parts (see `_IMAGE_WORDS`)."""
    if exc.status_code not in (400, 415, 422, 500):
        return False
    text = _error_text(exc).lower()
    return any(w in text for w in _IMAGE_WORDS) and not any(w in text for w in _IMAGE_FAULTS)


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
