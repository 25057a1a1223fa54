"""Scripting the local OpenAI-compatible test server as a model that takes text only.

`text_only(replies, refusal)` answers a request that carries image parts with `refusal` (an
HTTP error naming images, as llama.cpp, vLLM or OpenAI send for a text-only model, or an empty
reply, as a server that drops what it cannot read may), and every other request with the next
of `replies` (a string, a failure marker, or a callable of the request body).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from tests.support.openai_replies import Fail, Reply, ReplySource

# What servers answer a text-only model's request with images.
LLAMA_CPP_REFUSAL = Fail(
    400,
    "image input is not supported - hint: if this is unexpected, you may need to provide the "
    "mmproj",
)
OPENAI_REFUSAL = Fail(
    400,
    "Invalid content type. image_url is only supported by certain models.",
    param="messages.[1].content.[1].type",
)
EMPTY = ""


def image_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            found += [p for p in content if p.get("type") == "image_url"]
    return found


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the latest user message, whether its content is a string or parts."""
    message = [m for m in body.get("messages", []) if m.get("role") == "user"][-1]
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")


def text_only(
    replies: Iterable[ReplySource], refusal: Reply = LLAMA_CPP_REFUSAL
) -> Callable[[dict[str, Any]], Reply]:
    queue = list(replies)
    lock = threading.Lock()

    def answer(body: dict[str, Any]) -> Reply:
        if image_parts(body):
            return refusal
        with lock:
            if not queue:
                return Fail(500, "The test server has no more replies.", type="server_error")
            reply = queue.pop(0)
        return reply(body) if callable(reply) else reply

    return answer
