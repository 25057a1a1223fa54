"""Native tool calls as the local test server streams them, in the ways real servers differ.

- `openai`: a call's id, type and name in its first chunk only, then the arguments in pieces,
  each chunk naming the call by `index`; `finish_reason: tool_calls`.
- `vllm`: the id repeated in every chunk of the call.
- `llamacpp`: each call whole in one chunk, without an `index`.
- `batched`: every call whole, with its `index`, in one chunk.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass
class Calls:
    """Stream `text` (may be empty), then these calls: (name, arguments as a dict or raw)."""

    calls: list[tuple[str, dict[str, Any] | str]]
    text: str = ""
    style: Literal["openai", "vllm", "llamacpp", "batched"] = "openai"
    ids: list[str] = field(default_factory=list)


def call_deltas(reply: Calls, piece_size: int = 5) -> list[dict[str, Any]]:
    """The `delta` of each chunk that carries the calls."""
    deltas: list[dict[str, Any]] = []
    batch: list[dict[str, Any]] = []
    for index, (name, arguments) in enumerate(reply.calls):
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call_id = reply.ids[index] if index < len(reply.ids) else f"call_{uuid.uuid4().hex[:8]}"
        function = {"name": name, "arguments": raw}
        if reply.style == "llamacpp":
            deltas.append(
                {"tool_calls": [{"id": call_id, "type": "function", "function": function}]}
            )
            continue
        if reply.style == "batched":
            batch.append({"index": index, "id": call_id, "type": "function", "function": function})
            continue
        head = {"index": index, "id": call_id, "type": "function"}
        deltas.append({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
        for start in range(0, len(raw), piece_size):
            piece: dict[str, Any] = {
                "index": index,
                "function": {"arguments": raw[start : start + piece_size]},
            }
            if reply.style == "vllm":
                piece["id"] = call_id
            deltas.append({"tool_calls": [piece]})
    return [{"tool_calls": batch}] if batch else deltas
