"""The `tools` parameter of native tool calling: each tool as a JSON Schema function spec (from
its pydantic arguments), and the four control actions of the task dialogue as tools too."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_CONTROL_SPECS = {
    "end_conversation": (
        "End the conversation when the user wants to stop.",
        {"end_phrase": "A short goodbye to the user."},
    ),
    "ASK_USER_FOR_INTENT": (
        "Ask the user what they want when the request is unclear.",
        {"question": "The question to ask the user."},
    ),
    "ASK_USER_FOR_REQUIRED_PARAMS": (
        "Ask the user for a value a tool needs that only the user knows.",
        {"question": "The question to ask the user."},
    ),
    "TOOL_OTHER": (
        "Say that no tool fits the request.",
        {"intent": "What the user wants, in a few words."},
    ),
}


def spec_name(name: str) -> str:
    """A function name endpoints accept (letters, digits, _ and -; at most 64)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]


def tool_specs(tools: Sequence[Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The `tools` parameter, and each spec's name -> the tool's own name."""
    specs: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for tool in tools:
        names[spec_name(tool.name)] = tool.name
        specs.append(_function(spec_name(tool.name), tool.description, tool.schema()))
    for name, (description, fields) in _CONTROL_SPECS.items():
        names[name] = name
        properties = {key: {"type": "string", "description": text} for key, text in fields.items()}
        schema = {"type": "object", "properties": properties}
        specs.append(_function(name, description, schema))
    return specs, names


def _function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}
