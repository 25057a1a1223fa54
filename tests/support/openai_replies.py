"""What the local OpenAI-compatible test server answers: a reply text or a failure marker.

Each marker is a way real services fail: an HTTP error, silence, a connection dropped
mid-reply, an error event inside the stream, a stream that never ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Fail:
    """Answer with an HTTP error in OpenAI's error format."""

    status: int
    message: str = "The server failed."
    headers: dict[str, str] = field(default_factory=dict)
    type: str = "invalid_request_error"
    param: str | None = None
    code: str | None = None


@dataclass
class Hang:
    """Go silent for `seconds` (longer than the client's timeout).

    With no `text` nothing at all is sent; otherwise `text` streams first and the stream stalls.
    """

    seconds: float = 30.0
    text: str = ""


@dataclass
class StreamError:
    """Stream `text`, then an error event in the stream, as vLLM does when generation fails."""

    text: str = ""
    message: str = "The model failed while generating."


@dataclass
class CutOff:
    """Stream `text`, then drop the connection without finishing the response or sending [DONE]."""

    text: str = ""


@dataclass
class Forever:
    """Stream `text` again and again until the client goes away, whatever `max_tokens` says.

    With `reasoning` the endless text comes as `reasoning_content`, as a model that never stops
    thinking does.
    """

    text: str = "and so on "
    reasoning: bool = False


Reply = str | Fail | Hang | CutOff | StreamError | Forever
ReplySource = Reply | Callable[[dict[str, Any]], Reply]


def unauthorized(key_echo: str = "") -> Fail:
    # Real services echo (part of) the key they rejected; the client must not repeat it.
    return Fail(
        401,
        f"Incorrect API key provided: {key_echo}. You can find your API key in your account.",
        type="invalid_request_error",
        code="invalid_api_key",
    )


def unknown_model(model: str = "no-such-model") -> Fail:
    return Fail(
        404,
        f"The model `{model}` does not exist or you do not have access to it.",
        code="model_not_found",
    )


def rate_limited(retry_after: float | None = 7) -> Fail:
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    return Fail(
        429, "Rate limit reached for requests.", headers, type="requests", code="rate_limit"
    )


def server_error() -> Fail:
    return Fail(500, "The server had an error while processing your request.", type="server_error")


def unsupported(param: str = "stop") -> Fail:
    return Fail(
        400,
        f"Unsupported parameter: '{param}' is not supported with this model.",
        param=param,
        code="unsupported_parameter",
    )


def unavailable(retry_after: float | None = None) -> Fail:
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    return Fail(503, "The service is overloaded.", headers, type="server_error")


def bad_gateway() -> Fail:
    return Fail(502, "Bad gateway.", type="server_error")


def gateway_timeout() -> Fail:
    return Fail(504, "Gateway timeout.", type="server_error")
