"""The agent's tools. `default_tools()` lists them; see `tools.registry` for how."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .registry import default_tools, tool_map

__all__ = ["default_tools", "tool_map"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: the OCR worker process imports `tools.ocr.worker` and nothing else,
    # and the registry would pull in every tool with it.
    if name in __all__:
        from tools import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'tools' has no attribute {name!r}")
