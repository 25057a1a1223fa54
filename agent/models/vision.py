"""Images and a model that may take text only (`AGENT_VISION`).

Many local models (Ollama, llama.cpp, vLLM) take only text. Three modes:

- `auto`: images are sent until the model shows it cannot take them: an error naming images or
  content types (`openai_errors.refuses_images`), or an empty reply to a request that carried
  them. The call is then made once more without them, the turn is told so once (the request's
  `on_retry`, which the trace shows), and the model is remembered as text only (`VisionMemory`),
  so later calls send none. A model that answers a request with images is remembered as seeing
  them, and its later errors are not taken for refusals.
- `on`: images are always sent; a refusal is the turn's error.
- `off`: images are never sent.

Without image parts the model is told each image's id, size and kind, and which tools look at
an image by its id, so a ReAct loop still answers questions about images.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import io
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import Any

from ..config import VisionMode
from ..error_words import say
from .base import ModelError, ModelRequest

log = logging.getLogger(__name__)

VISION_MODES: tuple[VisionMode, ...] = ("auto", "on", "off")

# How each image tool looks at an image, in the order worth trying; only those the turn has
# are named.
_LOOKS = {
    "read_text": "read_text reads its text",
    "scan_code": "scan_code reads QR codes and barcodes",
    "colors": "colors names its main colours",
    "zoom": "zoom enlarges a part, and read_text then reads the enlarged image",
    "image_info": "image_info gives its size and details",
}
NOTE = (
    "[Images not shown to you, as this model takes text only: {images}. To look at an image, "
    "call a tool with its image_id: {looks}.]"
)
_ANY_TOOL = "use a tool that takes an image_id"
_IMAGE_ID = re.compile(r"\bimg_\d+\b")
# The errors after which a request with images is made again without them.
_REFUSALS = ("images_refused", "empty_reply")


class VisionMemory:
    """What each model has shown about images, for as long as its keeper lasts: a page's
    session keeps one for all the models it uses, so a model switched away from and back to
    is not tried again; a model made on its own has its own."""

    def __init__(self) -> None:
        self._sees: dict[str, bool] = {}

    def sees(self, model: str) -> bool | None:
        """True or False once `model` has shown it; None while nothing is known."""
        return self._sees.get(model)

    def learn(self, model: str, sees: bool) -> None:
        self._sees[model] = sees


def status(mode: str, sees: bool | None) -> str:
    """How images go to the model now, for the status line: "on" and "off" (the setting),
    "text" (found to take text only), "sees" (found to take images), "" (not known yet)."""
    if mode in ("on", "off"):
        return mode
    return "" if sees is None else "sees" if sees else "text"


def has_images(messages: Sequence[dict[str, Any]]) -> bool:
    return any(_image_parts(m) for m in messages)


def without_images(request: ModelRequest) -> ModelRequest:
    """`request` with every image part replaced by a note the model can act on."""
    tools = [getattr(t, "name", "") for t in request.tools]
    return request.model_copy(update={"messages": text_only(request.messages, tools)})


def text_only(messages: Sequence[dict[str, Any]], tools: Sequence[str] = ()) -> list[dict]:
    """`messages` with each message's image parts replaced by one note naming each image by
    its id (as the message's own text lists them last, `agent.messages.image_note`), its size
    and kind, and how the tools in `tools` look at it. A message left with text only has its
    text as a plain string, which every text-only server reads."""
    looks = "; ".join(_LOOKS[name] for name in _LOOKS if name in tools) or _ANY_TOOL
    changed: list[dict[str, Any]] = []
    for message in messages:
        images = _image_parts(message)
        if not images:
            changed.append(message)
            continue
        rest = [p for p in message["content"] if not _is_image(p)]
        texts = [str(p.get("text", "")) for p in rest if p.get("type") == "text"]
        named = _IMAGE_ID.findall("\n".join(texts))[-len(images) :]
        names = [f"image {n + 1}" for n in range(len(images) - len(named))] + named
        listed = ", ".join(f"{n} ({describe(p)})" for n, p in zip(names, images, strict=True))
        note = NOTE.format(images=listed, looks=looks)
        if len(texts) == len(rest):
            content: Any = "\n".join([*texts, note])
        else:
            content = [*rest, {"type": "text", "text": note}]
        changed.append({**message, "content": content})
    return changed


def describe(part: dict[str, Any]) -> str:
    """An image part's size and kind ("640x480 PNG image"), as far as its URL tells."""
    url = str((part.get("image_url") or {}).get("url", ""))
    return _describe_url(url)


@functools.lru_cache(maxsize=64)
def _describe_url(url: str) -> str:
    head, _, data = url.partition(",")
    if not head.startswith("data:"):
        return "linked image"
    kind = head[5:].split(";")[0].split("/")[-1].upper() or "unknown"
    try:
        from PIL import Image

        with Image.open(io.BytesIO(base64.b64decode(data, validate=False))) as image:
            width, height = image.size
    except (binascii.Error, ValueError, OSError):
        return f"{kind} image"
    return f"{width}x{height} {kind} image"


def _image_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [p for p in content if _is_image(p)]


def _is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


async def stream_seen(
    raw: Callable[[ModelRequest], AsyncGenerator[Any, None]],
    request: ModelRequest,
    *,
    mode: str,
    memory: VisionMemory,
    key: str,
    name: str,
) -> AsyncIterator[Any]:
    """`raw(request)`, with the request's images sent, left out or fallen back from as `mode`
    and what `memory` knows of model `key` say (see above). `name` is the model's, for the
    notice."""
    sent = has_images(request.messages)
    if sent and (mode == "off" or (mode == "auto" and memory.sees(key) is False)):
        request, sent = without_images(request), False
    if not sent or mode != "auto" or memory.sees(key) is not None:
        async with contextlib.aclosing(raw(request)) as pieces:
            async for piece in pieces:
                yield piece
        return
    refusal = ""
    try:
        async with contextlib.aclosing(raw(request)) as pieces:
            async for piece in pieces:
                memory.learn(key, True)
                yield piece
        return
    except ModelError as exc:
        if exc.key not in _REFUSALS:
            raise
        refusal = exc.key
    log.info("Model %r gave no reply to images (%s); trying again without them.", name, refusal)
    if refusal == "images_refused":
        # The service said so: the model is text only, whatever the next call does.
        _learned(memory, key, request, name)
    told = refusal == "images_refused"
    async with contextlib.aclosing(raw(without_images(request))) as pieces:
        async for piece in pieces:
            if not told:
                # An empty reply may have had other causes: only a reply without images tells.
                _learned(memory, key, request, name)
                told = True
            yield piece


def _learned(memory: VisionMemory, key: str, request: ModelRequest, name: str) -> None:
    memory.learn(key, False)
    if request.on_retry is not None:
        request.on_retry(say("vision_fallback", request.language, model=name))
