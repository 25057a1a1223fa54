"""Each model call leaves a `model_call` event, and a failed tool call says what kind of failure."""

from __future__ import annotations

from agent import Agent
from agent.events import export_trace, load_trace
from agent.models import ModelError, ScriptedModel
from agent.tokens import text_tokens
from tests.conftest import collect, types

ANSWER = "Thought: done\nAnswer: 4"


async def test_each_model_call_is_reported_when_it_ends(test_tools):
    replies = ['Thought: t\nAction: echo\nAction Input: {"text": "a"}', ANSWER]
    events = await collect(Agent(ScriptedModel(replies), test_tools, temperature=0.3), "echo a")
    calls = [e for e in events if e.type == "model_call"]
    assert [c.step for c in calls] == [1, 2]
    assert all(c.model == "scripted" and c.temperature == 0.3 and c.error is None for c in calls)
    assert all(c.duration >= 0 for c in calls)
    # A model that counts nothing has its tokens estimated from the text, and said to be.
    assert all(c.estimated and c.input_tokens > 0 and c.cost is None for c in calls)
    assert [c.output_tokens for c in calls] == [text_tokens(r) for r in replies]
    # After the call's text, before what the agent makes of it.
    kinds = types(events)
    assert kinds.index("model_call") > kinds.index("model_delta")
    assert kinds.index("model_call") < kinds.index("tool_call")
    assert load_trace(export_trace(events)) == events


async def test_a_failed_model_call_is_reported_with_its_kind(test_tools):
    failure = ModelError("The service is down; try again.", kind="server")
    events = await collect(Agent(ScriptedModel([failure]), test_tools), "hi")
    (call,) = [e for e in events if e.type == "model_call"]
    assert call.error == "server"
    assert call.input_tokens is None and call.output_tokens is None  # nothing was read
    assert events[-1].type == "error" and events[-1].kind == "server"


async def test_a_failed_tool_result_says_what_kind_of_failure(test_tools):
    replies = [
        'Thought: t\nAction: refuse\nAction Input: {"text": "a"}',
        'Thought: t\nAction: slow\nAction Input: {"seconds": 5}',
        ANSWER,
    ]
    events = await collect(Agent(ScriptedModel(replies), test_tools), "go")
    results = [e for e in events if e.type == "tool_result"]
    assert [r.error_type for r in results] == ["ToolInputError", "timeout"]
