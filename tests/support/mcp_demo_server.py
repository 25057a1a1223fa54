"""A small MCP server for the tests, made with the SDK's FastMCP.

`python tests/support/mcp_demo_server.py` serves it over stdio; with the argument `crash` it
exits at once, as a broken server does. Tests serve `server.streamable_http_app()` over HTTP.
"""

from __future__ import annotations

import sys

if __name__ == "__main__" and sys.argv[1:] == ["crash"]:
    sys.exit(3)  # at once, before the SDK's second of imports, as a broken server does

import asyncio
import base64
import io
import os

from mcp.server.fastmcp import Context, FastMCP, Image
from PIL import Image as PILImage
from pydantic import BaseModel, Field

server = FastMCP("demo", log_level="WARNING")


class Colour(BaseModel):
    colour: str = Field(description="The colour to paint it.")


@server.tool()
def echo(text: str) -> str:
    """Repeat the text it is given."""
    return f"echo: {text}"


@server.tool()
def square(colour: str, size: int = 24) -> Image:
    """Draw a square of one colour and return it as an image."""
    buffer = io.BytesIO()
    PILImage.new("RGB", (size, size), colour).save(buffer, "PNG")
    return Image(data=buffer.getvalue(), format="png")


@server.tool()
def image_size(image_base64: str) -> str:
    """The width and height of an image given as base64 data."""
    data = image_base64.split(",", 1)[-1]
    with PILImage.open(io.BytesIO(base64.b64decode(data))) as image:
        return f"{image.width}x{image.height} {image.getpixel((0, 0))}"


@server.tool()
async def paint(item: str, ctx: Context) -> str:
    """Paint an item; asks which colour."""
    answer = await ctx.elicit(f"Which colour should the {item} be?", schema=Colour)
    if answer.action == "accept":
        return f"Painted the {item} {answer.data.colour}."
    return f"The {item} was not painted ({answer.action})."


class Confirm(BaseModel):
    sure: bool = Field(description="Whether to go ahead.")


@server.tool()
async def delete(name: str, ctx: Context) -> str:
    """Delete a file; asks to confirm first."""
    answer = await ctx.elicit(f"Really delete {name}?", schema=Confirm)
    if answer.action == "accept" and answer.data.sure:
        return f"Deleted {name}."
    return f"Kept {name} ({answer.action})."


@server.tool()
async def slow(seconds: float, ctx: Context) -> str:
    """Wait for a number of seconds, reporting progress."""
    await ctx.report_progress(0, seconds, "waiting")
    await asyncio.sleep(seconds)
    return f"waited {seconds:g}s"


@server.tool()
def die() -> str:
    """Exit the server process at once, as a crash would."""
    os._exit(1)


@server.tool()
async def exit_soon() -> str:
    """Exit the server process a moment after answering, as a server that dies between calls."""
    asyncio.get_running_loop().call_later(0.2, os._exit, 1)
    return "bye"


if __name__ == "__main__":
    server.run("stdio")
