"""Bounds on JSON that comes from outside (a file someone opened, a value the browser sends
back), checked before it is parsed or validated.

Parsing JSON costs far more memory than its bytes where the text is mostly containers: `[],`
is three bytes and an empty list is 64, so 50 MB of `[],[],...` became 1.4 GB. Nesting costs
recursion in everything that walks the value afterwards (pydantic, `json.dumps`, the trace
view). The text is counted at C speed before it is parsed (`check_text`); the parsed value
is walked, stopping as soon as a bound is passed, before it is validated (`check_value`).
"""

from __future__ import annotations

import re
from typing import Any

# Deeper than anything the page writes (a conversation, its events, a tool's result data).
MAX_DEPTH = 64


class OutOfBounds(ValueError):
    """JSON past a bound: `kind` is "size" (too much of it) or "depth" (nested too deep)."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_INNERMOST = re.compile(rb"\[\]|\{\}")


def check_text(data: bytes, max_containers: int, max_depth: int = MAX_DEPTH) -> None:
    """`OutOfBounds` if the JSON text `data` holds more than `max_containers` lists and
    objects, or nests them deeper than `max_depth`.

    Brackets inside strings are counted too, so the count of lists and objects is an upper
    bound. They can also stop the depth count early (a lone "[" in a string pairs with
    nothing): this check spares the parser plain deep nesting, and `check_value` on the
    parsed value is the one that holds."""
    brackets = data.translate(None, _NOT_BRACKETS)
    if brackets.count(b"[") + brackets.count(b"{") > max_containers:
        raise OutOfBounds("size", f"more than {max_containers} lists and objects")
    # Each pass removes the innermost pairs, one level of nesting; what still nests after
    # `max_depth` passes is deeper than that.
    for _ in range(max_depth):
        brackets, removed = _INNERMOST.subn(b"", brackets)
        if not brackets or not removed:
            return
    if _INNERMOST.search(brackets):
        raise OutOfBounds("depth", f"nested more than {max_depth} deep")


def check_value(value: Any, max_bytes: int, max_depth: int = MAX_DEPTH) -> None:
    """`OutOfBounds` if the JSON of the parsed `value` would take more than about `max_bytes`
    bytes, or it nests deeper than `max_depth`.

    The walk stops as soon as either bound is passed, so it costs at most about `max_bytes`
    steps however large the value is. The size counts characters, not UTF-8 bytes, and no
    spaces: a lower bound, for a check before the exact one."""
    size = _scalar_size(value)
    stack: list[tuple[Any, int]] = [(value, 1)] if _container(value) else []
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise OutOfBounds("depth", f"nested more than {max_depth} deep")
        size += len(item)  # commas, and colons for an object
        if isinstance(item, dict):
            size += sum(len(key) + 2 if isinstance(key, str) else 4 for key in item)
            inner_values: Any = item.values()
        else:
            inner_values = item
        for inner in inner_values:
            if size > max_bytes:
                break
            if _container(inner):
                size += 2
                stack.append((inner, depth + 1))
            else:
                size += _scalar_size(inner)
        if size > max_bytes:
            raise OutOfBounds("size", f"larger than {max_bytes} bytes")


def _container(value: Any) -> bool:
    return isinstance(value, dict | list | tuple)


def _scalar_size(value: Any) -> int:
    if _container(value):
        return 2
    return len(value) + 2 if isinstance(value, str) else 1


def check_strings(value: Any, max_chars: int) -> None:
    """`OutOfBounds` if any text of the parsed `value`, keys too, is longer than `max_chars`.
    One walk, without recursion (call `check_value` first: it bounds the depth and size)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) > max_chars:
                raise OutOfBounds("size", f"a text of {len(item):,} characters")
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
