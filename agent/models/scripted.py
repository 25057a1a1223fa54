"""A deterministic model that streams replies given in advance: for tests and benchmarks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable

from .base import ModelError, ModelRequest, ToolCallPart

# A reply is text, an exception to raise, a function of the request, or a list of text pieces
# and whole tool calls (a model calling tools natively).
Reply = str | Exception | Callable[[ModelRequest], str] | list[str | ToolCallPart]


class ScriptedModel:
    """Streams `replies` in order, one per call, in chunks of `chunk_size` characters.

    A reply may be a string, an exception to raise (a `ModelError` stands for a failing
    service), or a function of the request. `requests` records what each call was given.
    When the replies run out, the call fails with a `ModelError`.
    """

    offline = False
    provider = "scripted"

    def __init__(
        self,
        replies: Iterable[Reply],
        delay: float = 0.0,
        chunk_size: int = 8,
        name: str = "scripted",
        native_tools: bool = False,
    ) -> None:
        self.replies = list(replies)
        self.delay = delay
        self.chunk_size = max(1, chunk_size)
        self.name = name
        self.native_tools = native_tools
        self.requests: list[ModelRequest] = []

    @property
    def calls(self) -> int:
        return len(self.requests)

    async def stream(self, request: ModelRequest) -> AsyncIterator[str | ToolCallPart]:
        index = len(self.requests)
        self.requests.append(request)
        if index >= len(self.replies):
            raise ModelError.said("scripted_done", "model")
        reply = self.replies[index]
        if isinstance(reply, Exception):
            raise reply
        parts = reply if isinstance(reply, list) else [reply(request) if callable(reply) else reply]
        for part in parts:
            if isinstance(part, ToolCallPart):
                yield part
                continue
            for start in range(0, len(part), self.chunk_size):
                if self.delay:
                    await asyncio.sleep(self.delay)
                yield part[start : start + self.chunk_size]
