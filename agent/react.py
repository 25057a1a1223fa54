"""One step of the ReAct text protocol (the seed's multimodal header): stream the model's text,
forward what follows `Answer:` as it arrives (after its Thought), read the step, and act on it.
"""

from __future__ import annotations

from . import acting
from .events import AnswerDeltaEvent, AnswerEvent, ModelDeltaEvent, ThoughtEvent
from .parser import AnswerStream, ParseError, parse_step
from .reasoning import ReasoningFilter
from .turn import Terminal, TurnState


async def step(turn: TurnState, step_no: int) -> Terminal | None:
    raw, answer_stream, thought_sent = await _stream(turn, step_no)
    try:
        action = parse_step(raw, turn.known_names())
    except ParseError as exc:
        return acting.retry(turn, step_no, raw, str(exc))
    if action.thought and not thought_sent:
        turn.emit(ThoughtEvent(step=step_no, text=action.thought))
    if action.kind == "answer":
        rest = answer_stream.finish()
        if rest:
            turn.emit(AnswerDeltaEvent(text=rest))
        turn.session.task = None
        return AnswerEvent(text=(action.answer or "").strip())
    outcome = await acting.act(turn, action, step_no)
    if isinstance(outcome, acting.Ready):
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
                    early = _thought_of(raw)
                    if early:
                        turn.emit(ThoughtEvent(step=step_no, text=early))
                turn.emit(AnswerDeltaEvent(text=forwarded))
    return raw, answer_stream, thought_sent


def _thought_of(text: str) -> str:
    try:
        return parse_step(text).thought
    except ParseError:
        return ""
