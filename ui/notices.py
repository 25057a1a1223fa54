"""What the page says once when a session starts: registered tools that could not be loaded
(`tools.registry.tool_problems`) and MCP servers that could not be used
(`tools.mcp.tools.mcp_notices`), each as one warning in the browser's language."""

from __future__ import annotations

from typing import Any

import gradio as gr

from tools.mcp.tools import mcp_notices
from tools.registry import tool_problems

from .labels import browser_language, t


def tell_mcp_notices(request: gr.Request) -> None:
    """A warning naming the tools left out, and one naming the MCP servers left out, if any
    (a warning needs a queued event)."""
    headers: Any = getattr(request, "headers", None) or {}
    language = browser_language(headers.get("accept-language")) or "en"
    for key, notices in (("tool_notice", tool_problems()), ("mcp_notice", mcp_notices())):
        if notices:
            gr.Warning(t(key, language).format(notices=" ".join(notices)), duration=None)
