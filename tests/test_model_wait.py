"""A silent model is shown: while it has sent nothing, the turn says so about every second,
the page's status line counts the seconds in the page's language, and the export keeps none of
it."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from agent import Agent
from agent.events import ModelWaitEvent, export_trace
from agent.models.base import ModelRequest
from ui.page.values import status_text
from ui.trace.view import TurnView


class Gated:
    """Sends nothing until the test opens its gate."""

    offline = False
    name = "gated"

    def __init__(self) -> None:
        self.gate = asyncio.Event()

    async def stream(self, request: ModelRequest):
        await self.gate.wait()
        yield "Thought: easy.\nAnswer: 4"


async def test_the_turn_says_how_long_the_model_has_been_silent():
    model = Gated()
    events = []
    async for event in Agent(model, [], language="en").run("What is 2 + 2?"):
        events.append(event)
        if event.type == "model_wait" and event.seconds >= 2:
            model.gate.set()
    waits = [e for e in events if e.type == "model_wait"]
    assert [w.seconds for w in waits] == [1, 2] and {w.step for w in waits} == {1}
    assert events[-1].type == "answer" and events[-1].text == "4"
    assert "model_wait" not in {e["type"] for e in json.loads(export_trace(events))}


async def test_a_model_that_answers_at_once_is_never_said_to_wait():
    model = Gated()
    model.gate.set()
    events = [e async for e in Agent(model, [], language="en").run("What is 2 + 2?")]
    assert not any(e.type == "model_wait" for e in events)


@pytest.mark.parametrize(
    ("language", "said"), [("en", "Waiting for the model · 4 s"), ("zh", "等待模型回应 · 4 秒")]
)
def test_the_status_line_counts_the_seconds_in_the_pages_language(language, said):
    view = TurnView(1, language, "hi")
    view.apply(ModelWaitEvent(step=1, seconds=4))
    state = SimpleNamespace(
        turns=[SimpleNamespace(view=view)],
        prefs=SimpleNamespace(language=language),
        vision_state=lambda: "",
    )
    assert status_text(state).startswith(said)
