"""The page's endpoints for scripts (QA with `gradio_client`): `/ask` and `/reset`.

`/ask` takes `{"text": ..., "files": [...]}` as `/chat` does and runs the same turn in the same
conversation (one `gradio_client.Client` is one session, whichever of the two it calls), but
returns one JSON value with named fields instead of the page's chat and trace. Its second
argument, `approval` ("ask", "always" or "never"; default: the server's AGENT_APPROVAL), is the
approval policy for the turn's calls to tools that act on the outside world; the server's
AGENT_APPROVAL is its ceiling (asking for more than the operator allows gets the operator's).
Every refusal, whatever refused the turn, is the same JSON with `outcome` "error" and the
sentence in `error`:

    outcome      "answer" | "ask" | "approval" | "end" | "error"
    answer       the answer's text (also for "end"), else null
    question     the agent's question when it asks one (or asks for approval), else null
    approval     the call waiting for approval: {"call_id", "tool", "arguments", "problem"},
                 else null; the next `/ask` decides it with "yes" or "no" as its text
    error        the sentence saying what went wrong when the outcome is "error", else null
    events       the turn's events in the trace export format (`agent.events.export_trace`)
    notices      refused uploads: [{"file": name or null, "reason": sentence}]
    images       images tools made in the turn: [{"id", "width", "height", "label", "url"}],
                 `url` a path on the page (/gradio_api/file=...) the client can GET
    model_calls  how many times the model was called
    tokens       the model calls' tokens: {"input", "output", "cached", "estimated"}; `cached`
                 (input tokens the service had cached) null where the service never says;
                 `estimated` true where a figure is the page's estimate, not the service's count
    cost         what the tokens cost by the operator's AGENT_PRICES (per million tokens, in
                 its currency), null unless every call's model is priced there
    duration     the turn's length in seconds

`/reset` starts a new conversation in the same session, as the Clear button does, and returns
`{"ok": true}`. Both are hidden from the MCP server: `ask_agent` is its way to ask.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import gradio as gr
from gradio.components import Component

from agent.events import (
    TERMINAL_TYPES,
    AnswerEvent,
    ApprovalEvent,
    AskUserEvent,
    ErrorEvent,
    ModelCallEvent,
    NoticeEvent,
    RunFinishedEvent,
    ToolResultEvent,
    export_trace,
)
from agent.tokens import Tokens

from .handlers import PageHandlers
from .mcp_endpoints import mark_page_only
from .page.state import PageState, TurnRecord
from .server import REFUSED_KEY
from .turn_runner import file_path

log = logging.getLogger(__name__)

# What `/ask` says of a turn that failed for a reason of the server's own (the log has it).
FAILED = "The server could not run this turn; try again, and report it if it happens again."


def add_script_endpoints(
    page: PageHandlers,
    message: Component,
    state: gr.State,
    cancels: Sequence[Any] = (),
) -> Any:
    """Add `/ask` and `/reset` inside the page's `gr.Blocks`; `message` is the page's input,
    `state` its session state. `/reset` cancels the session's `cancels` and its own `/ask`.
    Returns the `/ask` event."""
    with gr.Column(visible=False):
        result = gr.JSON(label="result", visible=False)
        policy = gr.Radio(
            ["ask", "always", "never"],
            value=page.env.approval,
            label="approval",
            visible=False,
        )
        done = gr.JSON(label="ok", visible=False)
        ask_trigger = gr.Button(visible=False, elem_id="api-ask")
        reset_trigger = gr.Button(visible=False, elem_id="api-reset")
    ask, reset = ask_endpoint(page), reset_endpoint(page)
    asked = ask_trigger.click(
        ask,
        [message, state, policy],
        [result, state],
        api_name="ask",
        api_description="One turn of the conversation; the outcome as named JSON fields.",
        show_progress="hidden",
    )
    reset_trigger.click(
        reset,
        [state],
        [done, state],
        api_name="reset",
        api_description="Start a new conversation in this session.",
        cancels=[*cancels, asked],
        show_progress="hidden",
    )
    return asked


def ask_endpoint(page: PageHandlers) -> Any:
    async def ask(
        message: dict | None, state: PageState | None, approval: str | None = None
    ) -> tuple[dict, PageState]:
        state = page.use(state)
        if approval not in (None, "ask", "always", "never"):
            problem = "approval must be ask, always or never."
            return refused_turn(problem, []), state
        refused = (message or {}).get(REFUSED_KEY)
        if refused:
            return refused_turn(str(refused), []), state
        before = {id(record) for record in state.turns}
        files = [file_path(f) for f in (message or {}).get("files") or []]
        names = [Path(f).name for f in files if f]
        started = time.monotonic()
        try:
            turn = page.chat(message, state, approval or None)
            async with contextlib.aclosing(turn) as updates:
                async for _ in updates:
                    pass
        except gr.Error as error:
            # Refused before the turn began: the message, the limits, or every upload.
            return refused_turn(str(error.message), names), state
        except Exception:
            log.exception("an /ask turn failed")
            return refused_turn(FAILED, []), state
        record = next((r for r in reversed(state.turns) if id(r) not in before), None)
        if record is None:  # the turn could not start (no model): nothing was recorded
            return refused_turn("The turn could not start; check the model settings.", []), state
        return turn_result(record, names, time.monotonic() - started), state

    mark_page_only(ask)
    return ask


def reset_endpoint(page: PageHandlers) -> Any:
    def reset(state: PageState | None) -> tuple[dict, PageState]:
        state = page.use(state, tell=False)
        state.reset()
        return {"ok": True}, state

    mark_page_only(reset)
    return reset


def turn_result(record: TurnRecord, file_names: Sequence[str], elapsed: float) -> dict:
    """The JSON `/ask` returns for a turn that ran."""
    events = record.events
    final = next((e for e in reversed(events) if e.type in TERMINAL_TYPES), None)
    finished = next((e for e in events if isinstance(e, RunFinishedEvent)), None)
    result: dict[str, Any] = {
        "outcome": "error",
        "answer": None,
        "question": None,
        "approval": None,
        "error": None,
    }
    match final:
        case AnswerEvent(ended=True):
            result.update(outcome="end", answer=final.text)
        case AnswerEvent():
            result.update(outcome="answer", answer=final.text)
        case AskUserEvent():
            result.update(outcome="ask", question=final.question)
        case ApprovalEvent():
            call = final.model_dump(include={"call_id", "tool", "arguments", "problem"})
            result.update(outcome="approval", question=final.question, approval=call)
        case ErrorEvent():
            result.update(error=final.message)
        case _:
            result.update(error="The turn was stopped before it finished.")
    notices = [
        notice
        for event in events
        if isinstance(event, NoticeEvent)
        for notice in attribute(event.message, file_names)
        or [{"file": None, "reason": event.message}]
    ]
    images = [
        {
            "id": image.id,
            "width": image.width,
            "height": image.height,
            "label": image.label,
            "url": file_url(image.path),
        }
        for event in events
        if isinstance(event, ToolResultEvent)
        for image in event.images
        if image.path
    ]
    calls = sum(isinstance(e, ModelCallEvent) for e in events)
    tokens = Tokens.of(events)
    return {
        **result,
        "events": json.loads(export_trace(events)),
        "notices": notices,
        "images": images,
        "model_calls": finished.model_calls if finished else calls,
        "tokens": tokens.fields(),
        "cost": tokens.cost,
        "duration": round(finished.duration if finished else elapsed, 3),
    }


def refused_turn(message: str, file_names: Sequence[str]) -> dict:
    """The JSON `/ask` returns for a message refused before its turn began."""
    return {
        "outcome": "error",
        "answer": None,
        "question": None,
        "approval": None,
        "error": message,
        "events": [],
        "notices": attribute(message, file_names),
        "images": [],
        "model_calls": 0,
        "tokens": Tokens().fields(),
        "cost": None,
        "duration": 0.0,
    }


def attribute(message: str, file_names: Sequence[str]) -> list[dict]:
    """The refusals in `message`, one per upload it names (each refusal starts with the
    file's name); none when it names no upload."""
    starts = sorted(
        {(message.find(name), name) for name in set(file_names) if name and name in message}
    )
    if not starts:  # a limit, a refused URL, a message too long: no upload to name
        return []
    ends = [start for start, _ in starts[1:]] + [len(message)]
    return [
        {"file": name, "reason": message[start:end].strip()}
        for (start, name), end in zip(starts, ends, strict=True)
    ]


def file_url(path: str) -> str:
    return f"/gradio_api/file={quote(str(path))}"
