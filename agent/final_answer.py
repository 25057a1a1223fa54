"""The plugin-task style's last model call: the answer, from the request and the transcript."""

from __future__ import annotations

from . import prompts
from .events import AnswerDeltaEvent, AnswerEvent, ModelDeltaEvent
from .react.grammar import without_label
from .turn import Terminal, TurnState


async def final_answer(turn: TurnState, question: str) -> Terminal:
    """The plugin-task style's last call: answer from the request and the task transcript.
    With the step budget spent, the last observation is the answer: no call past the limit."""
    if turn.model_calls >= turn.agent.max_steps:
        last = turn.steps[-1].observation if turn.steps else ""
        return AnswerEvent(text=last or prompts.phrase(turn.language, "no_tool"))
    messages = [{"role": "user", "content": prompts.final_prompt(question, turn.transcript())}]
    request = turn.request(messages, purpose="final")
    turn.model_calls += 1
    text = ""
    async with turn.model_stream(request, turn.model_calls) as chunks:
        async for chunk in chunks:
            if chunk:
                text += chunk
                turn.emit(ModelDeltaEvent(step=turn.model_calls, text=chunk))
                turn.emit(AnswerDeltaEvent(text=chunk))
    return AnswerEvent(text=without_label(text, "answer"))
