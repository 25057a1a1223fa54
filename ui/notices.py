"""What the page says once when a session starts: MCP servers that could not be used
(`tools.mcp_tools.mcp_notices`), as one warning in the browser's language."""

from __future__ import annotations

from typing import Any

import gradio as gr

from tools.mcp_tools import mcp_notices

from .labels import browser_language, t


def tell_mcp_notices(request: gr.Request) -> None:
    """A warning naming the MCP servers left out, if any (a warning needs a queued event)."""
    notices = mcp_notices()
    if not notices:
        return
    headers: Any = getattr(request, "headers", None) or {}
    language = browser_language(headers.get("accept-language")) or "en"
    gr.Warning(t("mcp_notice", language).format(notices=" ".join(notices)), duration=None)
