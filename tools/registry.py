"""Which tools the agent has: every tool module in this package, plus one tool per manifest.

A tool is added by dropping a module into `tools/` (each concrete `Tool` subclass defined there
is instantiated with no arguments) or a manifest into `assets/plugins/` (or the folder the
settings name, `AGENT_PLUGIN_DIR`). A module or manifest that fails to load is logged and
skipped, so one broken tool never takes the app down. The tools of the MCP servers in the
settings' `mcp.json` (`AGENT_MCP_CONFIG`) join as `server.tool` (`tools.mcp_tools`).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import pkgutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolSettings
from tools.mcp_tools import mcp_tools
from tools.plugins import load_plugins

log = logging.getLogger(__name__)

PACKAGE = "tools"
# Modules that hold machinery rather than tools (and every `mcp_*` module).
NOT_TOOL_MODULES = frozenset({"base", "registry", "plugins"})
DEFAULT_PLUGIN_DIR = Path(__file__).resolve().parent.parent / "assets" / "plugins"


def plugin_dir(settings: ToolSettings | None = None) -> Path:
    configured = settings.plugin_dir if settings is not None else None
    return Path(configured) if configured else DEFAULT_PLUGIN_DIR


def _tool_classes(module: Any) -> list[type[Tool]]:
    """Concrete tools defined in `module` itself (not ones it imports)."""
    found = []
    for _, value in inspect.getmembers(module, inspect.isclass):
        if (
            issubclass(value, Tool)
            and value is not Tool
            and value.__module__ == module.__name__
            and not value.__name__.startswith("_")
            and not inspect.isabstract(value)
            and isinstance(getattr(value, "name", None), str)
            and getattr(value, "Args", None) is not None
            and value.run is not Tool.run
        ):
            found.append(value)
    return found


def builtin_tools(package: str = PACKAGE) -> list[Tool]:
    """An instance of every tool class defined in the modules of `package`."""
    root = importlib.import_module(package)
    tools: list[Tool] = []
    for info in pkgutil.iter_modules(root.__path__):
        if info.name in NOT_TOOL_MODULES or info.name.startswith(("_", "mcp_")):
            continue
        try:
            module = importlib.import_module(f"{package}.{info.name}")
            tools.extend(cls() for cls in _tool_classes(module))
        except Exception as error:
            log.warning("tool module %s skipped: %s: %s", info.name, type(error).__name__, error)
    return tools


def _unique(tools: Iterable[Tool]) -> list[Tool]:
    seen: dict[str, Tool] = {}
    for tool in tools:
        if tool.name in seen:
            log.warning("tool %r defined twice; keeping the first", tool.name)
            continue
        seen[tool.name] = tool
    return sorted(seen.values(), key=lambda t: t.name)


def default_tools(settings: ToolSettings | None = None) -> list[Tool]:
    """The built-in tools, the enabled plugins and the MCP servers' tools, sorted by name;
    built-ins win a name clash.

    Without settings the plugins come from `assets/plugins/`, each switched on only by its own
    environment variable, and there are no MCP tools."""
    plugins = load_plugins(plugin_dir(settings), settings)
    return _unique([*builtin_tools(), *plugins, *mcp_tools(settings)])


def tool_map(tools: Iterable[Tool]) -> dict[str, Tool]:
    return {tool.name: tool for tool in tools}
