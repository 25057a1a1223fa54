"""Assembling the tool calls a model streams natively, as OpenAI-compatible servers send them.

The servers differ: OpenAI sends a call's id and name in its first chunk only and the arguments
in pieces, each chunk naming the call by `index`; vLLM may repeat the id in every chunk;
llama.cpp's server may send a whole call in one chunk, and some servers leave out `index` when
there is one call. A call is keyed by its index, else by its id, else it is the last one open.
"""

from __future__ import annotations

import uuid
from typing import Any

from .base import ToolCallPart


class CallAssembler:
    """Feed it each streamed delta; `parts()` gives the whole calls in the order they began."""

    def __init__(self) -> None:
        self._calls: dict[Any, dict[str, str]] = {}
        self._last: Any = None

    def __bool__(self) -> bool:
        return bool(self._calls)

    def feed(self, delta: Any) -> int:
        """Take a delta's tool-call pieces; returns how many characters they added."""
        added = 0
        for piece in getattr(delta, "tool_calls", None) or ():
            key = self._key(piece)
            call = self._calls.setdefault(key, {"id": "", "name": "", "arguments": ""})
            self._last = key
            call_id = getattr(piece, "id", None)
            if call_id and not call["id"]:
                call["id"] = call_id
            function = getattr(piece, "function", None)
            name = getattr(function, "name", None) if function is not None else None
            if name and not call["name"]:
                call["name"] = name
            arguments = getattr(function, "arguments", None) if function is not None else None
            if arguments:
                call["arguments"] += arguments
                added += len(arguments)
        return added

    def _key(self, piece: Any) -> Any:
        index = getattr(piece, "index", None)
        if index is not None:
            return ("index", index)
        call_id = getattr(piece, "id", None)
        if call_id:
            for key, call in self._calls.items():
                if call["id"] == call_id:
                    return key
            return ("id", call_id)
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
