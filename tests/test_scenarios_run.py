"""Running scenarios: each way a turn can miss its expectation fails for that reason."""

import textwrap

import pytest

from agent.models import OfflineModel, ScriptedModel
from agent.scenarios import load_file, run_scenario
from agent.scenarios.expect import matches

CALC = 'Thought: arithmetic.\nAction: calculator\nAction Input: {"expression": "2 + 2"}'
DONE = "Thought: done.\nAnswer: The result is 4."


def scenario_from(tmp_path, text):
    path = tmp_path / "case.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    (scenario,) = load_file(path)
    return scenario


async def run(tmp_path, text, model):
    return await run_scenario(scenario_from(tmp_path, text), model)


async def test_a_scenario_that_holds_passes_with_what_each_turn_did(tmp_path):
    result = await run(
        tmp_path,
        """
        name: adds
        turns:
          - user: what is 2 + 2?
            expect:
              outcome: answer
              tools: [calculator]
              args: {calculator: {expression: "2 + 2"}}
              answer_matches: "\\\\b4\\\\b"
              answer_contains: [result]
        """,
        ScriptedModel([CALC, DONE]),
    )
    assert result.passed and result.failures == []
    (turn,) = result.turns
    assert (turn.outcome, turn.decision, turn.expected_decision) == ("answer", "tool", "tool")
    assert turn.tools == ["calculator"] and turn.calls[0].ok is True
    assert turn.model_calls == 2 == result.model_calls
    assert turn.checks == {"tools": True, "args": True, "answer": True}
    assert turn.events[0]["type"] == "run_started" and turn.events[-1]["type"] == "answer"


async def test_wrong_outcome(tmp_path):
    asking = 'Thought: unclear.\nAction: ASK_USER_FOR_INTENT\nAction Input: {"question": "Which?"}'
    result = await run(
        tmp_path,
        """
        name: should answer
        turns:
          - user: hi
            expect: {outcome: answer}
        """,
        ScriptedModel([asking]),
    )
    assert result.failures == ['turn 1: outcome expected answer, saw ask ("Which?")']


async def test_wrong_asks_for(tmp_path):
    result = await run(
        tmp_path,
        """
        name: asks for the wrong thing
        turns:
          - user: Convert 5 miles
            expect: {outcome: ask, asks_for: [from_unit]}
        """,
        OfflineModel(),
    )
    assert result.failures == ["turn 1: asks_for expected [from_unit], saw [to_unit]"]


async def test_wrong_tool(tmp_path):
    result = await run(
        tmp_path,
        """
        name: wrong tool
        turns:
          - user: what is 2 + 2?
            expect: {outcome: answer, tools: [convert_units]}
        """,
        ScriptedModel([CALC, DONE]),
    )
    assert result.failures == ["turn 1: tools expected [convert_units], saw [calculator]"]
    assert result.turns[0].checks == {"tools": False}


async def test_wrong_args(tmp_path):
    result = await run(
        tmp_path,
        """
        name: wrong args
        turns:
          - user: what is 3 + 3?
            expect:
              outcome: answer
              args: {calculator: {expression: "3 + 3"}}
        """,
        ScriptedModel([CALC, DONE]),
    )
    (failure,) = result.failures
    assert failure.startswith('turn 1: args of calculator expected {"expression": "3 + 3"}')
    assert '"2 + 2"' in failure
    assert result.turns[0].checks == {"args": False}


async def test_args_of_a_tool_never_called(tmp_path):
    result = await run(
        tmp_path,
        """
        name: args of an absent tool
        turns:
          - user: what is 2 + 2?
            expect: {outcome: answer, args: {world_clock: {place: Paris}}}
        """,
        ScriptedModel([CALC, DONE]),
    )
    assert result.failures == [
        'turn 1: args of world_clock expected {"place": "Paris"}, but world_clock was not called'
    ]


async def test_answer_matches_miss(tmp_path):
    result = await run(
        tmp_path,
        """
        name: wrong number
        turns:
          - user: what is 2 + 2?
            expect: {outcome: answer, answer_matches: "\\\\b5\\\\b"}
        """,
        ScriptedModel([CALC, DONE]),
    )
    assert result.failures == ['turn 1: answer_matches /\\b5\\b/ not found in "The result is 4."']
    assert result.turns[0].checks == {"answer": False}


async def test_answer_contains_miss(tmp_path):
    result = await run(
        tmp_path,
        """
        name: missing word
        turns:
          - user: what is 2 + 2?
            expect: {outcome: answer, answer_contains: [result, four]}
        """,
        ScriptedModel([CALC, DONE]),
    )
    assert result.failures == ["turn 1: answer_contains 'four' not in \"The result is 4.\""]


async def test_every_turn_runs_after_a_failure_and_the_first_failure_leads(tmp_path):
    result = await run(
        tmp_path,
        """
        name: two turns
        turns:
          - user: Convert 5 miles
            expect: {outcome: answer}
          - user: km
            expect: {outcome: answer, tools: [calculator]}
        """,
        OfflineModel(),
    )
    first, second = result.failures
    assert first.startswith("turn 1: outcome expected answer, saw ask (")
    assert second == "turn 2: tools expected [calculator], saw [convert_units]"
    assert [t.decision for t in result.turns] == ["ask", "tool"]


async def test_a_model_that_fails_is_an_error_outcome(tmp_path):
    result = await run(
        tmp_path,
        """
        name: no replies
        turns:
          - user: hi
            expect: {outcome: error}
        """,
        ScriptedModel([]),
    )
    assert result.passed
    assert result.turns[0].decision == "error" and result.turns[0].error_kind


async def test_ending_and_no_tool_decisions(tmp_path):
    result = await run(
        tmp_path,
        """
        name: no tool, then the end
        turns:
          - user: What is the capital of France?
            expect: {outcome: answer, tools: []}
          - user: bye
            expect: {outcome: end}
        """,
        OfflineModel(),
    )
    assert result.passed
    assert [t.decision for t in result.turns] == ["no_tool", "end"]
    assert [t.expected_decision for t in result.turns] == ["no_tool", "end"]


@pytest.mark.parametrize(
    ("wanted", "seen", "same"),
    [
        ({"value": 5}, {"value": 5.0, "to_unit": "km"}, True),
        ({"from_unit": "mile"}, {"from_unit": "Miles"}, True),
        ({"to_unit": "inch"}, {"to_unit": "inches"}, True),
        ({"to_unit": "km"}, {"to_unit": "kg"}, False),
        ({"box": [0, 0.5]}, {"box": [0.0, 0.5]}, True),
        ({"box": [0, 0.5]}, {"box": [0.0, 0.5, 1]}, False),
        ({"place": "Paris"}, {}, False),
        ({"flag": True}, {"flag": 1}, False),
    ],
)
def test_argument_subsets(wanted, seen, same):
    assert matches(wanted, seen) is same
