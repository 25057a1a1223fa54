"""Tokens a turn's model calls used: what the service reported, or an estimate said to be one.

A service that counts (OpenAI, vLLM, Ollama with `stream_options.include_usage`) is believed;
for one that does not, and for the offline model, the count is estimated from the text, so a
figure is always there and is marked when it is a guess. The estimate is coarse on purpose: no
tokenizer is downloaded, and every model's tokenizer differs anyway.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

# Chinese, Japanese and Korean text: about one token a character in the common tokenizers.
_CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\u3000-\u303f\uff00-\uffef]"
)
# Other text: about four characters a token (OpenAI's rule of thumb for English).
CHARS_PER_TOKEN = 4
# Each image part: what OpenAI counts for a 1024×1024 image at high detail (85 for the image
# and 170 for each of its four 512-pixel tiles). Models that see images differently count
# differently; this is the figure an estimate uses.
IMAGE_TOKENS = 765
# Each message: the role and the separators around it, as OpenAI's cookbook counts them.
MESSAGE_TOKENS = 4


def text_tokens(text: str) -> int:
    """About how many tokens `text` is: one per CJK character, one per four other characters."""
    if not text:
        return 0
    if text.isascii():  # most prompts: no pattern to run (the step's overhead)
        return -(-len(text) // CHARS_PER_TOKEN)
    return _mixed_tokens(text)


# Each step of a turn counts the same system prompt and earlier messages again: a text seen
# before costs a hash, not a pass of the pattern over it.
@lru_cache(maxsize=64)
def _mixed_tokens(text: str) -> int:
    cjk = len(text) - len(_CJK.sub("", text))
    other = len(text) - cjk
    return cjk + -(-other // CHARS_PER_TOKEN)


def _content_tokens(content: Any) -> int:
    if isinstance(content, str):
        return text_tokens(content)
    if not isinstance(content, list):
        return 0
    count = 0
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            count += IMAGE_TOKENS
        else:
            count += text_tokens(str(part.get("text") or ""))
    return count


def request_tokens(
    messages: Iterable[dict[str, Any]], tool_specs: list[dict[str, Any]] | None = None
) -> int:
    """About how many tokens a request's messages (and its tools' specs) are."""
    count = 0
    for message in messages:
        count += MESSAGE_TOKENS + _content_tokens(message.get("content"))
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            count += text_tokens(str(function.get("name", "")))
            count += text_tokens(str(function.get("arguments", "")))
    if tool_specs:
        count += text_tokens(json.dumps(tool_specs, ensure_ascii=False))
    return count


def reply_tokens(pieces: Iterable[Any]) -> int:
    """About how many tokens a streamed reply is: its text, and its tool calls' names and
    arguments."""
    # Read as one text: a reply streams in many small pieces.
    text: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            text.append(piece)
        else:
            text += (str(getattr(piece, "name", "")), "\n", str(getattr(piece, "arguments", "")))
            text.append("\n")
    return text_tokens("".join(text))


class Tokens(BaseModel):
    """The tokens of some model calls together (one turn's, a scenario's). `cached` is None
    when no call said; `estimated` when any figure is a guess; `cost` is None unless every
    call was priced (`agent.prices`)."""

    input: int = 0
    output: int = 0
    cached: int | None = None
    estimated: bool = False
    cost: float | None = None

    @property
    def total(self) -> int:
        return self.input + self.output

    def add(self, call: Any) -> None:
        """Count one `model_call` event, or another `Tokens`."""
        if isinstance(call, Tokens):
            self._count(call.input, call.output, call.cached, call.estimated, call.cost)
            return
        if call.input_tokens is None and call.output_tokens is None:
            return  # a call that failed before anything was said: nothing to count or price
        self._count(
            call.input_tokens or 0,
            call.output_tokens or 0,
            getattr(call, "cached_tokens", None),
            bool(getattr(call, "estimated", False)),
            getattr(call, "cost", None),
        )

    def _count(
        self, input: int, output: int, cached: int | None, estimated: bool, cost: float | None
    ) -> None:
        counted_before = self.total > 0
        self.input += input
        self.output += output
        if cached is not None:
            self.cached = (self.cached or 0) + cached
        self.estimated = self.estimated or estimated
        if not input and not output:
            return
        # A sum with an unpriced call in it would understate: no cost rather than a wrong one.
        if not counted_before:
            self.cost = cost
        elif self.cost is not None:
            self.cost = None if cost is None else self.cost + cost

    @classmethod
    def of(cls, events: Iterable[Any]) -> Tokens:
        """The tokens of every `model_call` among `events`."""
        tokens = cls()
        for event in events:
            if getattr(event, "type", None) == "model_call":
                tokens.add(event)
        return tokens

    @classmethod
    def summed(cls, parts: Iterable[Tokens]) -> Tokens:
        """The tokens of several turns or runs together."""
        tokens = cls()
        for part in parts:
            tokens.add(part)
        return tokens

    def fields(self) -> dict[str, Any]:
        """`{"input", "output", "cached", "estimated"}`, as `/ask` and reports give them."""
        return {
            "input": self.input,
            "output": self.output,
            "cached": self.cached,
            "estimated": self.estimated,
        }


def call_counts(report: Any, request: Any, reply: list[Any], *, heard: bool) -> dict[str, Any]:
    """A model call's token fields for its `model_call` event: the service's `report` where it
    counted, else estimates from `request` and the streamed `reply`. A call that failed before
    the model was `heard` from (refused, unreachable) gets no figures: nothing was read."""
    fields: dict[str, Any] = {
        "input_tokens": report.input_tokens,
        "output_tokens": report.output_tokens,
        "cached_tokens": report.cached_tokens,
        "estimated": False,
    }
    if not heard and report.input_tokens is None and report.output_tokens is None:
        return fields
    if fields["input_tokens"] is None:
        fields["input_tokens"] = request_tokens(request.messages, request.tool_specs)
        fields["estimated"] = True
    if fields["output_tokens"] is None:
        fields["output_tokens"] = reply_tokens(reply)
        fields["estimated"] = True
    return fields
