"""The page as an MCP server (`AGENT_MCP_SERVER=1`): the image tools and utilities, and
`ask_agent`, one whole turn of the agent. Gradio serves them at /gradio_api/mcp/.

Gradio's MCP server makes each named endpoint a tool named after its function (on a Space the
name gets the Space's name in front: `<space>_read_text`), typed by its input components and
described by its docstring. A tool's image parameter is a `gr.Image` input, which Gradio fills
from an http(s) URL or a data URL (`data:image/png;base64,…`); each call loads it into an image
store of its own, runs the tool through a `ToolContext` as the agent would, and removes the
store. These endpoints exist only with the MCP server on: otherwise `/chat`, `/ask` and `/reset`
(`ui.script_api`, hidden from MCP there) are the page's only named endpoints.

Every call waits its turn in a line (`ui.lanes`): the tools a few at once, `ask_agent` more,
each client at most two at once and two waiting, and a call that finds the line full is
refused in one sentence. Read text from one client holds at most one OCR worker
(`tools.ocr.pool.READER`). `ask_agent` counts against the turn limits (`ui.access`) before its
turn runs, and nobody is there to approve a call: the operator's policy decides, `ask` meaning
`never` (`agent.approval.effective_policy`). The endpoints are not in Gradio's queue, whose
MCP path loses the caller's address (`ui.lanes`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import inspect
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from typing import Any

import gradio as gr
from gradio import processing_utils
from gradio.components.api_component import Api
from PIL import Image
from pydantic import ValidationError

from agent.config import ModelNotConfigured
from agent.images.store import ImageRejected, ImageStore
from agent.tool_run import call_tool, one_line, timeout_for
from tools.base import Tool, ToolContext, ToolInputError
from tools.ocr.pool import READER

from .handlers import PageHandlers
from .lanes import Lanes, LineFull

# The tools offered to MCP clients, by name: a stable list, not whatever happens to be loaded.
EXPOSED = (
    "read_text",
    "zoom",
    "image_edit",
    "scan_code",
    "image_info",
    "colors",
    "calculator",
    "convert_units",
    "world_clock",
)
# Tools whose result is an image; the rest answer in text.
IMAGE_RESULTS = frozenset({"zoom", "image_edit"})
IMAGE_PARAMETER = "The image: an http(s) URL, or a data URL such as data:image/png;base64,..."
# The page's own endpoints, which mean nothing to an MCP client (they take and return page
# state); ask_agent does their job.
PAGE_ONLY = ("chat",)
# How many tool calls and `ask_agent` turns run at once, in all and per client, and how many
# wait (in all; each client at most two). The tools are CPU work on a shared machine.
TOOLS_AT_ONCE, TOOL_CALLS_WAITING = 4, 16
TURNS_AT_ONCE, TURNS_WAITING = 16, 32
PER_CLIENT = 2
BUSY = "The server is busy with other calls; try again in a moment."


def add_mcp_endpoints(demo: gr.Blocks, page: PageHandlers) -> None:
    """Add the MCP endpoints to `demo`; call inside its `with gr.Blocks()`."""
    tools = {tool.name: tool for tool in page.tools}
    tool_lanes = Lanes(TOOLS_AT_ONCE, PER_CLIENT, TOOL_CALLS_WAITING)
    turn_lanes = Lanes(TURNS_AT_ONCE, PER_CLIENT, TURNS_WAITING)
    with gr.Column(visible=False):
        trigger = gr.Button(visible=False)  # never pressed: the endpoints are for MCP only
        for name in EXPOSED:
            if name in tools:
                _tool_endpoint(trigger, tools[name], page, tool_lanes)
        answer = gr.Textbox()
        text = _api_input({"type": "string"}, "text")
        images = _api_input({"type": "array", "items": {"type": "string"}}, "images")
        trigger.click(
            _ask_agent(page, turn_lanes),
            [text, images],
            answer,
            api_name="ask_agent",
            queue=False,
            show_progress="hidden",
        )
    for block_fn in demo.fns.values():
        if block_fn.api_name in PAGE_ONLY and block_fn.fn is not None:
            mark_page_only(getattr(block_fn.fn, "__func__", block_fn.fn))


def mark_page_only(fn: object) -> None:
    """Keep the function `fn` out of the MCP tools: gradio.mcp lists a function as a tool
    unless its `_mcp_type` attribute, which no type declares, names it something else."""
    vars(fn)["_mcp_type"] = "page"


def _api_input(schema: dict[str, Any], label: str, value: Any = None) -> Api:
    # `Api` declares its JSON schema as dict[str, str]; a schema nests.
    return Api(value, schema, label=label)


async def in_line(lanes: Lanes, page: PageHandlers, call: Callable[[], Awaitable[Any]]) -> Any:
    """`call()`, once it has a place in `lanes` for the client of the running request; a full
    line is the sentence the client reads. The OCR workers it uses count as that client's."""
    client = page.access.client()
    try:
        async with lanes.lane(client):
            READER.set(client)
            return await call()
    except LineFull:
        raise gr.Error(BUSY, print_exception=False) from None


def _tool_endpoint(trigger: gr.Button, tool: Tool, page: PageHandlers, lanes: Lanes) -> None:
    properties = tool.schema().get("properties", {})
    parameters, inputs, lines = [], [], []
    for field, info in tool.Args.model_fields.items():
        prop = {k: v for k, v in properties.get(field, {}).items() if k != "description"}
        default = inspect.Parameter.empty if info.is_required() else info.get_default()
        if field == "image_id":
            name, description = "image", IMAGE_PARAMETER
            inputs.append(gr.Image(type="filepath", label=name))
        else:
            name, description = field, " ".join((info.description or field).split())
            value = None if default is inspect.Parameter.empty else default
            inputs.append(_api_input(prop, name, value))
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters.append(inspect.Parameter(name, kind, default=default))
        lines.append(f"    {name}: {description}")

    async def endpoint(*values: Any) -> Any:
        given = dict(zip((p.name for p in parameters), values, strict=True))
        return await in_line(lanes, page, lambda: run_tool(tool, given, page))

    endpoint.__name__ = tool.name
    endpoint.__doc__ = f"{tool.description}\n\nArgs:\n" + "\n".join(lines)
    # What gradio reads the endpoint's parameters from (`inspect.signature`).
    vars(endpoint)["__signature__"] = inspect.Signature(parameters)
    outputs: list[Any] = [gr.Textbox(label="text")]
    if tool.name in IMAGE_RESULTS:
        outputs.append(gr.Image(type="pil", label="image"))
    trigger.click(
        endpoint,
        inputs,
        outputs,
        api_name=tool.name,
        api_description=tool.description,
        queue=False,
        show_progress="hidden",
    )


async def run_tool(tool: Tool, given: dict[str, Any], page: PageHandlers) -> Any:
    """One call of `tool` with an image store of its own; the text, and the image if the tool
    makes one. A problem is a `gr.Error` with the tool's sentence, which the client reads."""
    env = page.env
    store = ImageStore.for_settings(env)
    timeout = timeout_for(tool, env.tool_timeout)
    try:
        arguments = {k: v for k, v in given.items() if k != "image" and v is not None}
        if "image" in given:
            if not given["image"]:
                raise gr.Error("An image is needed: give its URL or a data URL.")
            arguments["image_id"] = (await store.load_async(given["image"])).id
        args = tool.Args.model_validate(arguments)
        result = await call_tool(tool, args, ToolContext(store), timeout)
        if tool.name not in IMAGE_RESULTS:
            return result.text
        image = None
        if result.images:
            with Image.open(result.images[-1].path) as opened:
                image = opened.copy()
        return result.text, image
    except (ImageRejected, ToolInputError, ValidationError) as error:
        raise gr.Error(one_line(error), print_exception=False) from None
    except TimeoutError:
        message = f"{tool.name} did not finish within {timeout:g} seconds."
        raise gr.Error(message, print_exception=False) from None
    finally:
        shutil.rmtree(store.root, ignore_errors=True)


def _ask_agent(page: PageHandlers, lanes: Lanes) -> Callable[..., Any]:
    async def ask_agent(text: str, images: list[str] | None = None) -> str:
        """Ask the multimodal agent a question, with images if you have them: it reads text
        (OCR), zooms, scans QR codes and barcodes, lists colours, calculates, converts units
        and tells the time in a city, step by step, and answers in text. When it needs
        something only you know, the answer is its question: ask again with the detail.

        Args:
            text: The question or request, in English or Chinese.
            images: Images to ask about: http(s) URLs or data URLs (data:image/png;base64,...).
        """
        return await in_line(lanes, page, lambda: run_turn(page, text or "", images or []))

    return ask_agent


async def run_turn(page: PageHandlers, text: str, images: list[str]) -> str:
    """A fresh conversation of one turn; the answer's text or the agent's question."""
    prefs = page.prefs0
    try:
        model = page.make_model(prefs)
    except ModelNotConfigured as error:
        raise gr.Error(str(error), print_exception=False) from None
    # Counted before anything of it runs, the images' downloads included; a message the page
    # would refuse is refused here too.
    problem = page.refusal({"text": text, "files": images}, prefs.language)
    problem = problem or page.access.admit(None, prefs=prefs)
    if problem:
        raise gr.Error(problem, print_exception=False)
    # A conversation of one turn has nobody to approve a call: `ask` refuses such calls.
    agent = page.agent_for(prefs, model, attended=False)
    session = agent.new_session()
    downloads = tempfile.mkdtemp(prefix="mcp-images-")
    try:
        sources = [await _image_source(item, downloads) for item in images]
        final = None
        async with contextlib.aclosing(agent.run(text, sources, session)) as events:
            async for event in events:
                final = event
    finally:
        shutil.rmtree(session.images.root, ignore_errors=True)
        shutil.rmtree(downloads, ignore_errors=True)
    if final is not None and final.type == "answer":
        return final.text
    if final is not None and final.type == "ask_user":
        return final.question
    message = getattr(final, "message", None) or "The agent gave no answer; please try again."
    raise gr.Error(message, print_exception=False)


async def _image_source(item: Any, folder: str) -> bytes | str:
    """An image given as a data URL (its bytes) or an http(s) URL (fetched as Gradio fetches
    images, refusing private addresses)."""
    value = str(item or "").strip()
    if value.startswith("data:"):
        try:
            return base64.b64decode(value.split(",", 1)[-1], validate=False)
        except (binascii.Error, ValueError):
            raise gr.Error("An image's data URL is not valid base64.") from None
    if value.startswith(("http://", "https://")):
        try:
            return await processing_utils.async_ssrf_protected_download(value, folder)
        except Exception as error:
            raise gr.Error(f"The image at {value[:200]} could not be fetched: {error}") from None
    raise gr.Error("Each image must be an http(s) URL or a data URL (data:image/...;base64,...).")
