"""The tools of MCP servers as the agent's tools, named `server.tool`.

Each MCP tool becomes a `Tool` subclass made at start-up: its `Args` come from the tool's input
schema (`tools.mcp.schema`), so a missing required argument is asked of the person like any
other; it runs with the agent's timeout, progress and trace. Image ids in arguments that want
image data are sent as the image itself; images in the result become images of the
conversation, which the model sees next step. MCP tools act on the world (`acts_on_world`).
"""

from __future__ import annotations

import atexit
import base64
import binascii
import io
import json
import logging
import re
import threading
from pathlib import Path
from typing import Any, ClassVar

from PIL import Image
from pydantic import BaseModel

from tools.base import Tool, ToolContext, ToolInputError, ToolResult, ToolSettings
from tools.mcp.client import McpToolError
from tools.mcp.hub import Hub
from tools.mcp.schema import ImageEncoding, args_model, image_fields

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 4000
MAX_DESCRIPTION_CHARS = 1200
_HUBS: dict[Path, Hub] = {}
_HUBS_LOCK = threading.Lock()


class McpTool(Tool[BaseModel]):
    """A tool of an MCP server; `make_tool` sets the class attributes."""

    hub: ClassVar[Hub]
    server: ClassVar[str]
    remote_name: ClassVar[str]
    image_args: ClassVar[dict[str, ImageEncoding]] = {}
    acts_on_world = True

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        arguments = args.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)
        for name, encoding in self.image_args.items():
            if isinstance(arguments.get(name), str):
                arguments[name] = _image_data(ctx, arguments[name], encoding)
        result = await self.hub.call(
            self.server, self.remote_name, arguments, ctx.replies, ctx.progress
        )
        return _tool_result(self.name, result, ctx)


def make_tool(hub: Hub, server: str, spec: Any) -> type[McpTool]:
    """A tool class for the MCP tool `spec` (an `mcp.types.Tool`) of `server`."""
    name = f"{server}.{re.sub(r'[^A-Za-z0-9_-]', '_', spec.name)}"
    schema = spec.inputSchema if isinstance(spec.inputSchema, dict) else {}
    description = " ".join((spec.description or spec.title or "").split())
    description = description[:MAX_DESCRIPTION_CHARS] or f"The {spec.name} tool of {server}."
    images = image_fields(schema)
    attributes: dict[str, Any] = {
        "name": name,
        "description": description,
        "Args": args_model(_class_name(name) + "Args", schema),
        "hub": hub,
        "server": server,
        "remote_name": spec.name,
        "image_args": images,
        "uses_images": bool(images),
    }
    timeout = hub.connections[server].spec.timeout
    if timeout is not None:
        attributes["timeout"] = timeout
    return type(_class_name(name), (McpTool,), attributes)


def mcp_tools(settings: ToolSettings | None = None) -> list[Tool]:
    """One tool per tool of each server in the settings' `mcp.json`; none without one."""
    path = settings.mcp_config if settings is not None else None
    if path is None:
        return []
    hub = hub_for(Path(path))
    tools: list[Tool] = []
    for server, connection in hub.start().items():
        for spec in connection.tools:
            try:
                tools.append(make_tool(hub, server, spec)())
            except Exception as error:
                hub.notice(f"The MCP tool {server}.{spec.name} was skipped: {error}")
    return tools


def hub_for(path: Path) -> Hub:
    """The one hub of this file for the life of the process."""
    key = path.expanduser().resolve()
    with _HUBS_LOCK:
        if key not in _HUBS:
            if not _HUBS:
                atexit.register(close_all)
            _HUBS[key] = Hub(key)
        return _HUBS[key]


def mcp_notices() -> list[str]:
    """Sentences for the page about MCP servers that could not be used."""
    with _HUBS_LOCK:
        hubs = list(_HUBS.values())
    return [sentence for hub in hubs for sentence in hub.notices()]


def close_all() -> None:
    """End every MCP session (stdio servers exit); the next use starts them again."""
    with _HUBS_LOCK:
        hubs = list(_HUBS.values())
        _HUBS.clear()
    for hub in hubs:
        hub.close()


def _class_name(name: str) -> str:
    return "Mcp" + "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]", name) if part)


def _image_data(ctx: ToolContext, value: str, encoding: ImageEncoding) -> str:
    """The image an id names, as the field wants it; a URL or data URL the model wrote stays."""
    try:
        image = ctx.open_image(value)
    except ToolInputError:
        if value.startswith(("http://", "https://", "data:")):
            return value
        raise
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return data if encoding == "base64" else f"data:image/png;base64,{data}"


def _tool_result(name: str, result: Any, ctx: ToolContext) -> ToolResult:
    texts: list[str] = []
    images = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "image":
            image = _decode(block.data)
            if image is None:
                texts.append("(an image that could not be read)")
            else:
                images.append(ctx.add_image(image, label=f"{name} result"))
        elif kind == "resource":
            resource = block.resource
            blob, media = getattr(resource, "blob", None), resource.mimeType or ""
            image = _decode(blob) if blob and media.startswith("image/") else None
            if image is not None:
                images.append(ctx.add_image(image, label=f"{name} result"))
            else:
                texts.append(getattr(resource, "text", None) or f"(resource {resource.uri})")
        elif kind == "resource_link":
            texts.append(f"{block.name}: {block.uri}")
        else:
            texts.append(f"({kind or 'unknown'} content left out)")
    if not texts and result.structuredContent is not None:
        texts.append(json.dumps(result.structuredContent, ensure_ascii=False, default=str))
    text = "\n".join(t for t in texts if t).strip()
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + " …(cut)"
    if result.isError:
        raise McpToolError(text or f"{name} failed.", tool_name=name)
    if images:
        listed = ", ".join(ref.id for ref in images)
        text = f"{text}\nNew image: {listed}".strip()
    data = {"structured": result.structuredContent} if result.structuredContent else None
    return ToolResult(text=text or "(no output)", images=images, data=data)


def _decode(data: str) -> Image.Image | None:
    try:
        image = Image.open(io.BytesIO(base64.b64decode(data, validate=False)))
        image.load()
        return image
    except (binascii.Error, OSError, ValueError, Image.DecompressionBombError):
        return None
