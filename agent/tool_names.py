"""Which tool an Action names, when the model names it loosely: another case, spaces for
underscores, a namespace (`functions.zoom`) or a trailing "tool"."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

_NAME_GAP = re.compile(r"[\s_\-]+")
_TOOL_SUFFIX = re.compile(r"\s+tool$", re.IGNORECASE)


def key(name: str) -> str:
    return _NAME_GAP.sub("_", name.strip().lower())


@functools.lru_cache(maxsize=64)
def _keys(tools: tuple[str, ...]) -> dict[str, str]:
    return {key(tool): tool for tool in tools}


def resolve(name: str, tools: Sequence[str]) -> str:
    if name in tools:
        return name
    table = _keys(tuple(tools))
    for candidate in (name, name.rsplit(".", 1)[-1], _TOOL_SUFFIX.sub("", name)):
        if key(candidate) in table:
            return table[key(candidate)]
    return name


def answer_of(tool: str, args: dict[str, Any], tools: Sequence[str]) -> str | None:
    """`Final Answer` written as a tool (as JSON-style agents do): its input is the answer."""
    if tool in tools or key(tool) not in {"final_answer", "answer"} or not args:
        return None
    value = next(iter(args.values())) if len(args) == 1 else args
    return value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
