"""Which tool an Action names, when the model names it loosely: another case, spaces for
underscores, a namespace (`functions.zoom`), a trailing "tool", or a sentence that names exactly
one known tool. A name cut off mid-word or a sentence naming none is unreadable, not a call.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

from .action_input import Unreadable

_NAME_GAP = re.compile(r"[\s_\-]+")
_TOOL_SUFFIX = re.compile(r"\s+tool$", re.IGNORECASE)
# Names under which models write the final answer as if it were a tool.
_ANSWER_TOOLS = {"final_answer", "finalanswer", "answer", "finish", "final", "final_response"}
_ANSWER_TOOLS_ZH = {"最终答案", "答案", "最终回答"}


def key(name: str) -> str:
    return _NAME_GAP.sub("_", name.strip().lower())


@functools.lru_cache(maxsize=64)
def _keys(tools: tuple[str, ...]) -> dict[str, str]:
    return {key(tool): tool for tool in tools}


@functools.lru_cache(maxsize=64)
def _mention_patterns(tools: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    patterns = []
    for tool in tools:
        words = [re.escape(w) for w in key(tool).split("_") if w]
        if words:
            body = r"[\s_\-]+".join(words)
            patterns.append((tool, re.compile(rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])", re.I)))
    return tuple(patterns)


def known(name: str, tools: Sequence[str]) -> str | None:
    """The known tool `name` stands for, read loosely; None when it is none of them."""
    if name in tools:
        return name
    table = _keys(tuple(tools))
    for candidate in (name, name.rsplit(".", 1)[-1], _TOOL_SUFFIX.sub("", name)):
        if key(candidate) in table:
            return table[key(candidate)]
    return None


def resolve(name: str, tools: Sequence[str]) -> str:
    """The tool an Action line means. An unknown one-word name is kept (the loop tells the
    model there is no such tool); a sentence or a cut-off name raises `Unreadable`."""
    found = known(name, tools)
    if found is not None or not tools:
        return found or name
    if len(name.split()) > 1:
        named = mentioned(name, tools)
        if len(named) == 1:
            return named[0]
        which = "several tools" if named else "no known tool"
        raise Unreadable(f"the Action line is a sentence naming {which}, not one tool name")
    cut = [tool for tool in tools if key(tool).startswith(key(name))]
    if cut:
        raise Unreadable(f"the tool name {name!r} is cut off; write it in full ({cut[0]})")
    return name


def mentioned(text: str, tools: Sequence[str]) -> list[str]:
    """The known tools `text` names, each once, in the order of the tool list."""
    return [tool for tool, pattern in _mention_patterns(tuple(tools)) if pattern.search(text)]


def is_answer_tool(name: str, tools: Sequence[str]) -> bool:
    return name not in tools and (key(name) in _ANSWER_TOOLS or name.strip() in _ANSWER_TOOLS_ZH)


def is_callable(name: str, tools: Sequence[str]) -> bool:
    """Whether a call found outside an Action line is one: a known tool or the final answer."""
    return known(name, tools) is not None or is_answer_tool(name, tools)


def answer_of(tool: str, args: dict[str, Any], tools: Sequence[str]) -> str | None:
    """`Final Answer` written as a tool (`final_answer(...)`, `finish(answer=...)`, JSON
    `{"action": "Final Answer", ...}`): its input is the answer."""
    if not args or not is_answer_tool(tool, tools):
        return None
    value = next(iter(args.values())) if len(args) == 1 else args
    text = value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text or None
