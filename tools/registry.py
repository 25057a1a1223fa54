"""Which tools the agent has: the built-in tools listed here, the tools outside packages
register, and one tool per plugin manifest.

A tool is one module with a `Tool` subclass and one line in `BUILT_IN` ("module:Class"); a
package outside this project registers its tools under the entry-point group `ENTRY_POINTS`
(each entry a `Tool` subclass), as simonw/llm's plugins do. A manifest in `assets/plugins/` (or
the folder the settings name, `AGENT_PLUGIN_DIR`) adds a plugin. A registered tool that fails
to load is left out and said: `tool_problems()` has one sentence for it, which the page shows
as the session starts and the command line prints, so one broken tool never takes the app down
and never goes unnoticed. The tools of the MCP servers in the settings' `mcp.json`
(`AGENT_MCP_CONFIG`) join as `server.tool` (`tools.mcp.tools`).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import threading
from collections.abc import Iterable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolSettings
from tools.mcp.tools import mcp_tools
from tools.plugins import load_plugins

log = logging.getLogger(__name__)

BUILT_IN = (
    "tools.calculator:Calculator",
    "tools.colors:Colors",
    "tools.convert_units:ConvertUnits",
    "tools.image_edit:ImageEdit",
    "tools.image_info:ImageInfo",
    "tools.read_text:ReadText",
    "tools.scan_code:ScanCode",
    "tools.world_clock:WorldClock",
    "tools.zoom:Zoom",
)
ENTRY_POINTS = "multimodal_react_agent.tools"
DEFAULT_PLUGIN_DIR = Path(__file__).resolve().parent.parent / "assets" / "plugins"

# Why each registered tool that failed to load is missing, by its registration.
_PROBLEMS: dict[str, str] = {}
_PROBLEMS_LOCK = threading.Lock()


def plugin_dir(settings: ToolSettings | None = None) -> Path:
    configured = settings.plugin_dir if settings is not None else None
    return Path(configured) if configured else DEFAULT_PLUGIN_DIR


def tool_problems() -> list[str]:
    """One sentence for each registered tool that could not be loaded, in English (the
    page says them in its language through `ui.notices`)."""
    with _PROBLEMS_LOCK:
        return list(_PROBLEMS.values())


def _load(spec: str, target: Any) -> Tool | None:
    """An instance of the tool class `target` (a "module:Class" string, or a loader with a
    `load()` method, as an entry point is), or None with the reason kept."""
    try:
        if isinstance(target, str):
            module_name, _, class_name = target.partition(":")
            cls = getattr(importlib.import_module(module_name), class_name)
        else:
            cls = target.load()
        if not _complete(cls):
            raise TypeError(f"{cls!r} is not a Tool with a name, an Args model and a run")
        tool = cls()
    except Exception as error:
        reason = f"{type(error).__name__}: {error}"
        log.error("tool %s could not be loaded: %s", spec, reason)
        with _PROBLEMS_LOCK:
            _PROBLEMS[spec] = f"The tool {spec} could not be loaded ({reason[:300]})."
        return None
    with _PROBLEMS_LOCK:
        _PROBLEMS.pop(spec, None)
    return tool


def _complete(cls: Any) -> bool:
    return (
        inspect.isclass(cls)
        and issubclass(cls, Tool)
        and not inspect.isabstract(cls)
        and isinstance(getattr(cls, "name", None), str)
        and getattr(cls, "Args", None) is not None
        and cls.run is not Tool.run
    )


def builtin_tools(registered: Sequence[str] | None = None) -> list[Tool]:
    """An instance of each registered tool class that loads (`BUILT_IN` unless given)."""
    loaded = (_load(spec, spec) for spec in (BUILT_IN if registered is None else registered))
    return [tool for tool in loaded if tool is not None]


def outside_tools(group: str = ENTRY_POINTS) -> list[Tool]:
    """The tools installed packages register under the entry-point `group`."""
    loaded = (_load(f"{ep.name} ({ep.value})", ep) for ep in entry_points(group=group))
    return [tool for tool in loaded if tool is not None]


def _unique(tools: Iterable[Tool]) -> list[Tool]:
    seen: dict[str, Tool] = {}
    for tool in tools:
        if tool.name in seen:
            log.warning("tool %r defined twice; keeping the first", tool.name)
            continue
        seen[tool.name] = tool
    return sorted(seen.values(), key=lambda t: t.name)


def default_tools(settings: ToolSettings | None = None) -> list[Tool]:
    """The built-in tools, the registered outside tools, the enabled plugins and the MCP
    servers' tools, sorted by name; built-ins win a name clash.

    Without settings the plugins come from `assets/plugins/`, each switched on only by its own
    environment variable, and there are no MCP tools."""
    plugins = load_plugins(plugin_dir(settings), settings)
    return _unique([*builtin_tools(), *outside_tools(), *plugins, *mcp_tools(settings)])


def tool_map(tools: Iterable[Tool]) -> dict[str, Tool]:
    return {tool.name: tool for tool in tools}
