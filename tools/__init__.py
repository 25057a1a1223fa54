"""The agent's tools. `default_tools()` lists them; see `tools.registry` for how."""

from tools.registry import default_tools, tool_map

__all__ = ["default_tools", "tool_map"]
