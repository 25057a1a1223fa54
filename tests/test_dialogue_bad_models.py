"""The task dialogue with models that behave as real ones do: they drop a known value, repeat a
call, answer in the other prompt style, or ask for what the user already said. A value the user
gave is never asked for again in that task, and a tool that ran with it ends the task."""

from __future__ import annotations

import json

import pytest

from agent import Agent, Session
from agent.models import ScriptedModel
from tests.conftest import collect
from tools.convert_units import ConvertUnits


def call(args: dict, thought: str = "convert") -> str:
    return f"Thought: {thought}\nAction: convert_units\nAction Input: {json.dumps(args)}"


MILES = {"value": 5, "from_unit": "mile"}
FULL = {**MILES, "to_unit": "km"}


async def conversation(second_turn_replies: list[str], style: str = "react") -> tuple:
    """Turn 1 asks for the unit; turn 2 answers "km" and the model does what it is given."""
    model = ScriptedModel([call(MILES), *second_turn_replies])
    agent = Agent(model, [ConvertUnits()], style=style)
    session = Session()
    first = await collect(agent, "Convert 5 miles", session=session)
    assert first[-1].type == "ask_user" and first[-1].missing == ["to_unit"]
    second = await collect(agent, "km", session=session)
    return second, session, model


def asked_again(events) -> bool:
    return events[-1].type == "ask_user" or any(
        e.type == "task_state" and e.status == "collecting" and e.missing for e in events[1:]
    )


async def test_a_repeated_call_without_the_unit_after_the_tool_ran_is_not_a_new_question():
    events, session, _ = await conversation(
        [call(MILES), call(MILES), "Thought: done\nAnswer: 5 miles is 8.05 km."]
    )
    results = [e for e in events if e.type == "tool_result"]
    assert len(results) == 1 and "8.04672 km" in results[0].text
    assert events[-1].type == "answer" and "8.05" in events[-1].text
    assert session.task is None
    assert not [e for e in events if e.type == "ask_user"]
    done = [e for e in events if e.type == "task_state" and e.status == "done"]
    assert done and all(not e.missing for e in events if e.type == "task_state" and e.known)


async def test_a_model_that_drops_the_known_value_gets_it_merged():
    events, _, _ = await conversation([call({"from_unit": "mile"}), "Answer: 8.05 km"])
    (result,) = [e for e in events if e.type == "tool_result"]
    assert result.ok and "8.04672 km" in result.text


async def test_a_model_asking_for_what_the_user_said_calls_the_tool_instead():
    ask = (
        "Thought: need the unit\nAction: ASK_USER_FOR_REQUIRED_PARAMS\n"
        'Action Input: {"question": "Which unit should I convert it to?"}'
    )
    events, _, _ = await conversation([ask, "Answer: 8.05 km"])
    assert [e.type for e in events if e.type in ("tool_result", "ask_user")] == ["tool_result"]
    assert events[-1].type == "answer"


async def test_a_model_that_answers_in_the_other_style_still_completes_the_task():
    plugin_call = (
        'Thought: {"content": "convert", "tool_to_use_for_user": "convert_units", '
        '"known_params": {"value": 5, "from_unit": "mile"}}\nAction: convert_units\n'
        'Action Input: {"value": 5, "from_unit": "mile"}'
    )
    events, _, _ = await conversation([plugin_call, "Thought: ok\nAnswer: 8.05 km"])
    (result,) = [e for e in events if e.type == "tool_result"]
    assert result.ok and events[-1].type == "answer"


@pytest.mark.parametrize("style", ["react", "plugin-task"])
async def test_a_model_that_keeps_repeating_after_the_result_is_stopped_without_asking(style):
    events, _, _ = await conversation([call(MILES)] * 8, style=style)
    assert not asked_again(events)
    assert [e.ok for e in events if e.type == "tool_result"] == [True]


async def test_a_different_call_after_the_task_is_done_is_not_filled_with_its_values():
    events, _, _ = await conversation(
        [call(MILES), call({"value": 3, "from_unit": "kg"}), "Answer: never"]
    )
    assert events[-1].type == "ask_user" and events[-1].missing == ["to_unit"]
