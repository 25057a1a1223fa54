"""A cap on every request's body, before Gradio reads any of it.

Gradio parses a request's JSON whole, and what it parses may cost far more than its bytes: 30 MB
of nested empty lists sent as the page's stored history took 2.2 GB and froze the server for
23 s. So each body is counted as it arrives, against the cap for where it goes, and one over
it is answered 413 with a sentence, whether it says its length (`Content-Length`) or not
(chunked): refused before any of it is read in the first case, as soon as the count passes the
cap in the second.

The caps follow the operator's settings (`caps_for`):
- uploads (`/gradio_api/upload`, written to disk as they stream): a message's images at their
  largest, `AGENT_MAX_UPLOAD_MB` x `AGENT_MAX_IMAGES_PER_MESSAGE`, and room for the form;
- the MCP endpoints (`/gradio_api/mcp/...`, with `AGENT_MCP_SERVER`), whose images come as
  data URLs inside the JSON: the same images in base64;
- everything else, JSON (`/gradio_api/queue/join`, `/gradio_api/call/...`, `/ask`'s message,
  the stored history the page sends once it loads): the larger of the stored history
  (`ui.conversations.stored.MAX_BYTES`) and a message at its longest, and room for the rest.

Besides its bytes, a JSON body may hold only so many lists and objects (counted as `[` and
`{`, strings included: an upper bound), the part of its cost its size does not bound.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from agent.config import Settings

from .conversations.stored import MAX_BYTES as HISTORY_BYTES

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MB = 1024 * 1024
# A multipart form's headers and boundaries, or a JSON body's keys and ids, around the payload.
SLACK = 512 * 1024
# Lists and objects in one JSON body: a stored history full of conversations holds a few tens
# of thousands; each costs 56 bytes or more once parsed.
MAX_CONTAINERS = 200_000
# A character of a message as JSON (an escaped control character is six).
JSON_BYTES_PER_CHAR = 6
UPLOAD_PATHS = ("/gradio_api/upload", "/gradio_api/process_recording")
MCP_PREFIX = "/gradio_api/mcp"

# Refused before any session is known, so before its language is: said in both.
TOO_LARGE = (
    "This request is larger than the page accepts; send less at once. "
    "这个请求超过了本页面接受的大小；请一次少发送一些。"
)


@dataclass(frozen=True)
class Caps:
    """The largest body, in bytes, for each kind of request."""

    upload: int
    mcp: int
    json: int

    def for_path(self, path: str) -> tuple[int, bool]:
        """The cap for a request to `path`, and whether its body is JSON to count brackets in."""
        path = path.rstrip("/")
        if path.endswith(UPLOAD_PATHS):
            return self.upload, False
        if MCP_PREFIX in path:
            return self.mcp, True
        return self.json, True


def caps_for(settings: Settings) -> Caps:
    images = int(settings.max_upload_mb * MB) * settings.max_images_per_message
    message = JSON_BYTES_PER_CHAR * settings.max_message_chars
    return Caps(
        upload=images + SLACK,
        mcp=images * 4 // 3 + message + SLACK,
        json=max(HISTORY_BYTES, message) + SLACK,
    )


class BodyTooLarge(Exception):
    """The body passed its cap while it was being read."""


class BodyLimit:
    """ASGI middleware: `app` with each request's body capped by `caps`."""

    def __init__(self, app: ASGIApp, caps: Caps) -> None:
        self.app = app
        self.caps = caps

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap, is_json = self.caps.for_path(scope.get("path", ""))
        declared = _content_length(scope)
        if declared is not None and declared > cap:
            await _refuse(scope, send, f"Content-Length {declared} over {cap}")
            return
        seen = containers = 0
        over = started = False

        async def counted() -> Message:
            nonlocal seen, containers, over
            message = await receive()
            if message["type"] == "http.request":
                body = message.get("body", b"")
                seen += len(body)
                if is_json:
                    containers += body.count(b"[") + body.count(b"{")
                if seen > cap or containers > MAX_CONTAINERS:
                    over = True
                    raise BodyTooLarge
            return message

        async def guarded(message: Message) -> None:
            nonlocal started
            if over:
                return  # the app's answer to a body it could not finish reading: ours goes
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except Exception:
            # The app may wrap our exception in its own (FastAPI makes it a 400).
            if not over:
                raise
        if over and not started:
            detail = f"{seen} bytes, {containers} lists and objects, cap {cap}"
            await _refuse(scope, send, detail)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(scope: Scope, send: Send, detail: str) -> None:
    # The connection stays open: the server reads the rest of the body and drops it, so the
    # client, still sending, gets this answer rather than a connection reset.
    log.warning("Refused a request to %s: %s", scope.get("path", ""), detail)
    body = json.dumps({"detail": TOO_LARGE}, ensure_ascii=False).encode("utf-8")
    headers = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
