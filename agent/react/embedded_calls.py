"""Tool calls written without an Action label: a reply that is native JSON tool-call syntax,
or a line that opens a JSON call blob or a `tool(...)` call (the ways models that were trained
on native tool calling write a call in a ReAct reply). `agent.react.parser` makes the step."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from . import tool_names
from .action_input import (
    call_input,
    call_name,
    closing,
    json_call,
    split_call,
    strip_fence,
    to_input,
)
from .grammar import FENCE_LINE, labels, match_label

_CALL_START = re.compile(r"^[ \t]*(?=[{A-Za-z_])", re.MULTILINE)
_MAX_CALL_LINES = 32  # lines tried as the start of a call; each try may read to the end
_NEXT_LINE = re.compile(r"\S[^\n]*")
_AFTER_CALL = re.compile(r"```|<|\{|[A-Za-z_][\w.\-]*[ \t]*[(\[]")
_BLOB_NAME = re.compile(r"[\"'](?:name|action|tool|tool_name|function)[\"']\s*:")
_TOOL_TAGS = re.compile(r"</?tool_call>|<\|python_tag\|>|<\|eom_id\|>|<\|eot_id\|>")


def embedded_call(text: str, tools: Sequence[str]) -> tuple[str, dict[str, Any], str] | None:
    """A call without an Action label: the whole reply as native JSON tool-call syntax, or the
    first line that opens a JSON call blob or a `tool(...)` call naming a known tool (or the
    final answer). Only the first whole call is taken; a second one is not glued into it.
    Its name, its input and the thought written before it."""
    body = _TOOL_TAGS.sub("", text)
    whole = strip_fence(body)
    if whole.startswith(("{", "[")) and (call := json_call(whole)) is not None:
        return call[0], to_input(call[1]), ""
    for start in itertools.islice(_CALL_START.finditer(body), _MAX_CALL_LINES):
        at = start.end()
        if body[at] != "{" and not tool_names.is_callable(call_name(body, at) or "", tools):
            continue  # not a tool's call: no need to find where its brackets close
        found = _call_at(body, at)
        if found and tool_names.is_callable(found[0], tools):
            return found[0], found[1](), _before(body, start.end())
    return None


def _call_at(body: str, at: int) -> tuple[str, Callable[[], dict[str, Any]]] | None:
    """The call that opens at `at`: its name and how to read its input (read only once the
    name is known to be a tool's). What follows the call may be more calls, a fence, a tag or
    a label; prose after it means the call is an example inside an answer."""
    if body[at] == "{":
        close = closing(body, at) if _BLOB_NAME.search(body, at, at + 400) else None
        if close is None:
            return None
        call = json_call(body[at : close + 1])
        if call is None or not _ends_calls(body[close + 1 :]):
            return None
        return call[0], functools.partial(to_input, call[1])
    parts = split_call(body[at:])
    if parts is None or not _ends_calls(parts[2]):
        return None
    return parts[0], functools.partial(call_input, parts[1])


def _ends_calls(after: str) -> bool:
    line, _, more = after.partition("\n")
    if line.strip() and not line.lstrip().startswith(";"):
        return False
    following = _NEXT_LINE.search(more)
    return following is None or bool(_AFTER_CALL.match(following[0]) or match_label(following[0]))


def _before(body: str, at: int) -> str:
    """The thought written before a call at `at`: its Thought label's value, or the prose."""
    marks = labels(body[:at])
    if not marks:
        return FENCE_LINE.sub("", body[:at])
    return body[marks[-1].end : at] if marks[-1].kind == "thought" else ""
