"""Assembling the tool calls a model streams natively, as OpenAI-compatible servers send them.

The servers differ: OpenAI sends a call's id and name in its first chunk only and the arguments
in pieces, each chunk naming the call by `index`; vLLM may repeat the id in every chunk;
llama.cpp's server may send a whole call in one chunk, and some servers leave out `index` when
there is one call. A call is keyed by its index, else by its id, else it is the last one open.

What is kept is bounded, whatever the server sends: at most `max_calls` calls (the pieces of
later ones are dropped and counted; the agent makes fewer still, `agent.native`), and at most
`max_chars` characters of arguments in all, past which the reply fails with `CallsTooLong`.
"""

from __future__ import annotations

import uuid
from typing import Any

from .base import ToolCallPart

# Calls kept from one reply: more than the agent makes of one reply, so it can tell the model
# that some were not made, and few enough that a reply of 12,000 calls costs nothing.
MAX_CALLS = 64
# Characters of arguments kept from one reply, when the caller sets no bound of its own.
MAX_ARGUMENT_CHARS = 256 * 1024


class CallsTooLong(ValueError):
    """The calls' arguments ran past `max_chars`."""

    def __init__(self, max_chars: int) -> None:
        super().__init__(f"the tool calls' arguments ran past {max_chars:,} characters")
        self.max_chars = max_chars


class CallAssembler:
    """Feed it each streamed delta; `parts()` gives the whole calls in the order they began."""

    def __init__(self, max_calls: int = MAX_CALLS, max_chars: int = MAX_ARGUMENT_CHARS) -> None:
        self.max_calls = max_calls
        self.max_chars = max_chars
        self.dropped = 0  # calls past `max_calls`, counted as the stream moves on to each
        self._calls: dict[Any, dict[str, str]] = {}
        self._ids: dict[str, Any] = {}  # a kept call's id -> its key
        self._last: Any = None
        self._chars = 0

    def __bool__(self) -> bool:
        return bool(self._calls)

    def feed(self, delta: Any) -> int:
        """Take a delta's tool-call pieces; returns how many characters of arguments they
        carried (dropped calls' included: the server sent them)."""
        added = 0
        for piece in getattr(delta, "tool_calls", None) or ():
            key = self._key(piece)
            function = getattr(piece, "function", None)
            arguments = getattr(function, "arguments", None) if function is not None else None
            added += len(arguments) if isinstance(arguments, str) else 0
            call = self._call(key)
            if call is None:
                continue
            call_id = getattr(piece, "id", None)
            if call_id and not call["id"]:
                call["id"] = call_id
                self._ids.setdefault(call_id, key)
            name = getattr(function, "name", None) if function is not None else None
            if name and not call["name"]:
                call["name"] = name
            if arguments:
                self._chars += len(arguments)
                if self._chars > self.max_chars:
                    raise CallsTooLong(self.max_chars)
                call["arguments"] += arguments
        return added

    def _call(self, key: Any) -> dict[str, str] | None:
        """The call under `key`, begun if there is room; None for a call past `max_calls`."""
        call = self._calls.get(key)
        if call is None and len(self._calls) < self.max_calls:
            call = self._calls[key] = {"id": "", "name": "", "arguments": ""}
        elif call is None and key != self._last:
            self.dropped += 1
        self._last = key
        return call

    def _key(self, piece: Any) -> Any:
        index = getattr(piece, "index", None)
        if index is not None:
            return ("index", index)
        call_id = getattr(piece, "id", None)
        if call_id:
            return self._ids.get(call_id, ("id", call_id))
        return self._last if self._last is not None else ("index", 0)

    def parts(self) -> list[ToolCallPart]:
        return [
            ToolCallPart(
                id=call["id"] or f"call_{uuid.uuid4().hex[:12]}",
                name=call["name"],
                arguments=call["arguments"] or "{}",
            )
            for call in self._calls.values()
            if call["name"]
        ]
