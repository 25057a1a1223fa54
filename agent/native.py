"""Native tool calling: the endpoint's own `tools` parameter, beside the ReAct text protocol.

The tools go to the model as JSON Schema function specs (`tool_specs`); the four control
actions of the task dialogue are tools too. A reply's text before its calls is the Thought; a
reply without calls is the answer. Each call's arguments are read as JSON (`call_arguments`),
and the call is decided exactly as a ReAct action is (`acting.act`: the same merging, asking
and checking), the ready ones run together, and their results go back in call order as `tool`
messages. A tool's image follows in a user message that says which call made it, since `tool`
messages hold text only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

from . import acting, prompts
from .call_arguments import read_arguments
from .calls import Ready
from .error_words import say
from .events import (
    AnswerDeltaEvent,
    AnswerEvent,
    ModelDeltaEvent,
    NoticeEvent,
    StepRetryEvent,
    ThoughtEvent,
)
from .images.store import ImageStore
from .messages import (
    Detail,
    NativeCall,
    StepRecord,
    history_messages,
    image_part,
    user_message,
)
from .models.base import ToolCallPart
from .react import step as react
from .react.grammar import starts_with_label
from .react.parser import ParseError, Step
from .tool_specs import tool_specs
from .turn import Terminal, TurnState

# Text a reply streams before it is taken for the answer: a reply that calls tools usually
# says little or nothing first, so its words are held back until they cannot be a Thought.
HOLD_CHARS = 240
# (model name, base URL) of endpoints that refused native tool calls in this process.
NO_NATIVE_TOOLS: set[tuple[str, str]] = set()
# Tool calls made of one reply; the model is told in one sentence that the rest were not (a
# reply of 12,000 calls once ran every one of them).
MAX_CALLS_PER_REPLY = 16
_TOO_MANY_CALLS = (
    "This reply asked for more than {limit} tool calls, so only the first {limit} were made; "
    "make at most {limit} calls in one reply."
)


def protocol_for(model: Any, chosen: str) -> react.ReactText | NativeCalls:
    """The protocol a turn starts with, for the protocol `chosen` (react, native, auto):
    `auto` is native for a model that can call tools natively, until its endpoint has refused
    tools once in this process; the offline model always takes the ReAct text."""
    if chosen == "native" and getattr(model, "offline", False):
        return REACT_TEXT  # the offline model reads and writes the ReAct text only
    if chosen != "auto":
        return NATIVE_CALLS if chosen == "native" else REACT_TEXT
    if not getattr(model, "native_tools", False):
        return REACT_TEXT
    return REACT_TEXT if _endpoint(model) in NO_NATIVE_TOOLS else NATIVE_CALLS


def fall_back(turn: TurnState) -> None:
    """The endpoint refused native tools under `auto`: this turn, and every later one with
    the same endpoint in this process, speaks the ReAct text instead."""
    NO_NATIVE_TOOLS.add(_endpoint(turn.agent.model))
    turn.protocol = REACT_TEXT
    turn.emit(NoticeEvent(message=say("native_refused", turn.language)))


def _endpoint(model: Any) -> tuple[str, str]:
    return (str(getattr(model, "name", "")), str(getattr(model, "base_url", "") or ""))


def native_messages(turn: TurnState) -> list[dict[str, Any]]:
    session, detail = turn.draft, cast(Detail, turn.agent.image_detail)
    task = session.task
    state = ""
    if task:
        state = prompts.task_state_text(task.tool, task.known, task.missing, turn.language)
    return [
        {"role": "system", "content": prompts.native_system(turn.language, state)},
        *history_messages(session, detail),
        user_message(turn.text + turn.notes(), turn.refs, detail),
        *NativeCalls.step_messages(turn.steps, turn.draft.images, detail),
    ]


class NativeCalls:
    """The endpoint's own tool calls: the tools go as its `tools` parameter, a reply's calls
    are the step's actions, and their results go back as `tool` messages."""

    name = "native"

    async def step(self, turn: TurnState, step_no: int) -> Terminal | None:
        specs, names = tool_specs(turn.agent.tools)
        request = turn.request(native_messages(turn))
        request.tool_specs = specs
        content, calls, extra = await _stream(turn, step_no, request)
        if not calls:
            if not content.strip():
                reason = "The reply was empty. Call a tool or answer."
                return acting.retry(turn, step_no, "", reason)
            if _looks_like_react(content):
                return await _as_react(turn, step_no, content)
            turn.draft.task = None
            return AnswerEvent(text=content.strip())
        if content.strip():
            turn.emit(ThoughtEvent(step=step_no, text=content.strip()))
        note = _TOO_MANY_CALLS.format(limit=MAX_CALLS_PER_REPLY) if extra else ""
        if note:
            turn.emit(StepRetryEvent(step=step_no, reason=note))
        final = await _run_calls(turn, step_no, calls, names, content)
        if note and final is None:  # after the calls' results, as the model reads its reply's end
            turn.record("", note, kind="feedback", ok=False)  # a note, not a step of its own
        return final

    @staticmethod
    def step_messages(
        steps: Sequence[StepRecord], store: ImageStore, detail: Detail
    ) -> list[dict[str, Any]]:
        """Each reply's calls as one assistant message, its results as `tool` messages in
        call order, then the images they made; a note without a call as a user message."""
        messages: list[dict[str, Any]] = []
        index = 0
        while index < len(steps):
            record = steps[index]
            if record.call is None:
                # A note of the agent's, or a step the model wrote as ReAct text, which goes
                # back as the ReAct protocol gives it: its own words, then the Observation.
                messages += _text_step_messages(record, store, detail)
                index += 1
                continue
            reply = [
                s for s in steps[index:] if s.call is not None and s.call.reply == record.call.reply
            ]
            index += len(reply)
            messages += _reply_messages(reply, store, detail)
        return messages


REACT_TEXT, NATIVE_CALLS = react.ReactText(), NativeCalls()


def _text_step_messages(
    record: StepRecord, store: ImageStore, detail: Detail
) -> list[dict[str, Any]]:
    if not record.text.strip():
        return [{"role": "user", "content": record.observation}]
    return REACT_TEXT.step_messages([record], store, detail)


def _reply_messages(
    reply: list[StepRecord], store: ImageStore, detail: Detail
) -> list[dict[str, Any]]:
    calls: list[NativeCall] = [s.call for s in reply if s.call is not None]
    first = calls[0]
    tool_calls = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in calls
    ]
    content = first.content or None
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "content": content, "tool_calls": tool_calls}
    ]
    for s, call in zip(reply, calls, strict=True):
        messages.append({"role": "tool", "tool_call_id": call.id, "content": s.observation})
    made = [(s, call, i) for s, call in zip(reply, calls, strict=True) for i in s.image_ids]
    if made:
        note = "; ".join(f"{i} from call {call.id} ({s.tool})" for s, call, i in made)
        parts: list[dict[str, Any]] = [{"type": "text", "text": f"Images the tools made: {note}"}]
        parts += [image_part(store.get(i), detail) for _, _, i in made]
        messages.append({"role": "user", "content": parts})
    return messages


async def _stream(
    turn: TurnState, step_no: int, request: Any
) -> tuple[str, list[ToolCallPart], int]:
    """Stream one reply: its text goes out as the answer once it cannot be a Thought. The
    calls past `MAX_CALLS_PER_REPLY` are only counted."""
    content, shown, extra = "", 0, 0
    calls: list[ToolCallPart] = []
    turn.model_calls += 1
    async with turn.model_stream(request, step_no) as parts:
        async for part in parts:
            if isinstance(part, ToolCallPart):
                if len(calls) < MAX_CALLS_PER_REPLY:
                    calls.append(part)
                else:
                    extra += 1
                continue
            if not part:
                continue
            content += part
            turn.emit(ModelDeltaEvent(step=step_no, text=part))
            if not calls and len(content) > HOLD_CHARS and not _looks_like_react(content):
                turn.emit(AnswerDeltaEvent(text=content[shown:]))
                shown = len(content)
    if not calls and content[shown:] and not _looks_like_react(content):
        turn.emit(AnswerDeltaEvent(text=content[shown:]))
    return content, calls, extra


def _looks_like_react(content: str) -> bool:
    return starts_with_label(content, "thought", "action")


async def _as_react(turn: TurnState, step_no: int, content: str) -> Terminal | None:
    """A model that ignored the `tools` parameter and wrote the ReAct text: read it as such."""
    try:
        action = await react.read(content, turn.known_names())
    except ParseError:
        turn.draft.task = None
        return AnswerEvent(text=content.strip())
    return await react.take(turn, step_no, action)


async def _run_calls(
    turn: TurnState,
    step_no: int,
    calls: list[ToolCallPart],
    names: dict[str, str],
    content: str,
) -> Terminal | None:
    ready: list[Ready] = []
    final: Terminal | None = None
    arguments = await read_arguments(calls)
    for part, given in zip(calls, arguments, strict=True):
        call = NativeCall(
            reply=turn.model_calls,
            id=part.id,
            name=part.name,
            arguments=part.arguments,
            content=content.strip(),
        )
        tool = names.get(part.name, part.name)
        action = Step(kind="action", thought=content.strip(), tool=tool)
        if isinstance(given, str):  # unreadable: the model is told why, the call is not made
            turn.emit(StepRetryEvent(step=step_no, reason=given))
            turn.record(turn.replay(action), given, kind="feedback", ok=False, call=call)
            continue
        action.tool_input = given
        outcome = await acting.act(turn, action, step_no, call)
        if isinstance(outcome, Ready):
            ready.append(outcome)
        elif outcome is not None:
            final = outcome  # asking or ending: the calls after it are not made
            break
    results = await asyncio.gather(*(acting.execute(turn, r) for r in ready))
    for one, result in zip(ready, results, strict=True):
        settled = await acting.settle(turn, one, result)
        final = final or settled
    return final
