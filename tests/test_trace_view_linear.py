"""The trace view replays a huge turn (a hostile upload or stored history) in one pass: each
event costs what it holds, and what it shows stays the same as before for a real turn."""

from __future__ import annotations

from agent.events import ModelDelta, Thought, ToolCall, ToolResultEvent
from ui.trace.thought import PREVIEW_CHARS
from ui.trace.view import TurnView, render


def test_a_turn_of_200000_tool_calls_replays():
    # As the 1.1 MB zip: one call, again and again (one object, to spare the test
    # building 200,000 of them).
    call = ToolCall(step=1, call_id="c", tool="calculator", arguments={"expression": "1+1"})
    view = render([call] * 200_000)
    assert len(view.messages) == 1 + 200_000
    assert view.tool_calls == 200_000
    assert view.messages[-1]["metadata"]["id"] == "turn-1/call-c"


def test_a_step_of_200000_deltas_replays_and_its_thought_preview_is_bounded():
    view = TurnView()
    for _ in range(200_000):
        view.apply(ModelDelta(step=1, text="word "))
    (thought,) = [m for m in view.messages if m["metadata"]["title"] == "Thought 1"]
    assert thought["content"].endswith("…")
    assert len(thought["content"]) <= PREVIEW_CHARS + 1
    whole = "word " * 2_000
    view.apply(Thought(step=1, text=whole))
    assert thought["content"] == whole  # the step's Thought event gives it whole


def test_the_preview_still_stops_at_a_label_that_arrives_in_pieces():
    view = TurnView()
    for piece in ["Thought: I should", " zoom in.\nAct", "ion", " Input", ": {}", " more"]:
        view.apply(ModelDelta(step=1, text=piece))
    assert view.messages[-1]["content"] == "I should zoom in."


def test_a_second_result_for_a_call_replaces_the_first():
    view = TurnView()
    view.apply(ToolCall(step=1, call_id="c", tool="zoom", arguments={"image_id": "img_1"}))
    for text in ("first", "second"):
        view.apply(
            ToolResultEvent(step=1, call_id="c", tool="zoom", ok=True, text=text, duration=0.1)
        )
    content = view.messages[-1]["content"]
    assert '"image_id": "img_1"' in content and content.endswith("second")
    assert "first" not in content
