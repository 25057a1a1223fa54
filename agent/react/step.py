"""One step of the ReAct text protocol (the seed's multimodal header): stream the model's text,
forward what follows `Answer:` as it arrives (after its Thought), read the step, and act on it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import acting
from ..calls import Ready
from ..events import AnswerDeltaEvent, AnswerEvent, ModelDeltaEvent, ThoughtEvent
from ..images.store import ImageStore
from ..messages import Detail, StepRecord, step_messages
from ..offload import Overdue, run_quick
from ..turn import Terminal, TurnState
from .parser import AnswerStream, ParseError, Step, parse_step
from .reasoning import ReasoningFilter
from .repair import repair_budget

# A reply up to this long is read on the loop, where a thread hop would cost more than the
# reading (a millisecond or two at worst), with repair work enough for the short broken inputs
# models write. A longer reply, or one whose repair needs more, is read in a worker thread,
# within `READ_DEADLINE`; the reading is bounded there too (see `repair`).
INLINE_READ_CHARS = 1_000
INLINE_REPAIR_WORK = 2_048
READ_DEADLINE = 5.0


async def read(text: str, tools: Sequence[str] = ()) -> Step:
    """`parse_step(text, tools)` where it cannot stall other sessions; `ParseError` as it."""
    if len(text) <= INLINE_READ_CHARS:
        with repair_budget(INLINE_REPAIR_WORK) as budget:
            try:
                step = parse_step(text, tools)
            except ParseError:
                if not budget.refused:
                    raise
            else:
                if not budget.refused:
                    return step
    try:
        return await run_quick(
            parse_step, text, tools, deadline=READ_DEADLINE, what="reading the reply"
        )
    except Overdue as exc:
        raise ParseError("it took too long to read; write a shorter reply", tools) from exc


class ReactText:
    """The ReAct text protocol: the model writes Thought, Action and Action Input (or
    Answer) as text, and each step's Observation goes back as the next user message."""

    name = "react"

    async def step(self, turn: TurnState, step_no: int) -> Terminal | None:
        raw, answer_stream, thought_sent = await _stream(turn, step_no)
        try:
            action = await read(raw, turn.known_names())
        except ParseError as exc:
            return acting.retry(turn, step_no, raw, str(exc))
        return await take(turn, step_no, action, thought_sent, answer_stream.finish)

    @staticmethod
    def step_messages(
        steps: Sequence[StepRecord], store: ImageStore, detail: Detail
    ) -> list[dict[str, Any]]:
        return step_messages(steps, store, detail)


async def take(
    turn: TurnState,
    step_no: int,
    action: Step,
    thought_sent: bool = False,
    unsent: Callable[[], str] | None = None,
) -> Terminal | None:
    """Act on a step read from ReAct text: its Thought (unless it went out while streaming),
    then its answer, or its action decided and run. `unsent` gives the part of the answer
    not streamed yet (all of it when None)."""
    if action.thought and not thought_sent:
        turn.emit(ThoughtEvent(step=step_no, text=action.thought))
    if action.kind == "answer":
        answer = (action.answer or "").strip()
        rest = unsent() if unsent is not None else answer
        if rest:
            turn.emit(AnswerDeltaEvent(text=rest))
        turn.draft.task = None
        return AnswerEvent(text=answer)
    outcome = await acting.act(turn, action, step_no)
    if isinstance(outcome, Ready):
        return await acting.run_ready(turn, outcome)
    return outcome


async def _stream(turn: TurnState, step_no: int) -> tuple[str, AnswerStream, bool]:
    """One model call; the answer goes out as it arrives, its Thought first."""
    request = turn.request()
    answer_stream = AnswerStream()
    thought_sent = False
    reasoning = ReasoningFilter()
    raw = ""
    turn.model_calls += 1
    async with turn.model_stream(request, step_no) as chunks:
        async for chunk in chunks:
            if not chunk:
                continue
            raw += chunk
            turn.emit(ModelDeltaEvent(step=step_no, text=chunk))
            forwarded = answer_stream.feed(reasoning.feed(chunk))
            if forwarded:
                if not thought_sent:
                    thought_sent = True
                    early = await _thought_of(raw)
                    if early:
                        turn.emit(ThoughtEvent(step=step_no, text=early))
                turn.emit(AnswerDeltaEvent(text=forwarded))
    return raw, answer_stream, thought_sent


async def _thought_of(text: str) -> str:
    try:
        return (await read(text)).thought
    except ParseError:
        return ""
