"""Scores and reports on hand-made results, where the right numbers are known."""

import xml.etree.ElementTree as ET

import pytest

from agent.scenarios import FileError, RunResult, TurnResult, macro_f1, score
from agent.scenarios.junit import junit_xml
from agent.scenarios.report import results_json, table, transcript
from agent.scenarios.results import Call
from agent.scenarios.score import score_lines
from agent.tokens import Tokens


def turn(expected=None, seen="tool", failures=(), checks=None, **fields) -> TurnResult:
    outcome = {"tool": "answer", "no_tool": "answer"}.get(seen, seen)
    return TurnResult(
        user="u",
        outcome=outcome,
        decision=seen,
        expected_decision=expected,
        failures=list(failures),
        checks=checks or {},
        **fields,
    )


def run(name, *turns, run=1, file="s.yaml") -> RunResult:
    return RunResult(scenario=name, file=file, run=run, turns=list(turns), duration=0.5)


def test_macro_f1_of_a_small_known_confusion():
    pairs = [
        ("tool", "tool"),
        ("tool", "ask"),
        ("ask", "ask"),
        ("no_tool", "no_tool"),
        ("end", "error"),
    ]
    f1, per_class = macro_f1(pairs)
    # tool: P 1, R 1/2; ask: P 1/2, R 1; no_tool: 1; end: 0. "error" is never expected.
    assert per_class == pytest.approx({"tool": 2 / 3, "ask": 2 / 3, "no_tool": 1.0, "end": 0.0})
    assert f1 == pytest.approx(7 / 12)


def test_macro_f1_of_nothing_is_undefined():
    assert macro_f1([]) == (None, {})


def test_pass_rate_and_pass_k_over_repeats():
    results = [
        run("steady", turn("tool"), run=1),
        run("steady", turn("tool"), run=2),
        run("flaky", turn("tool"), run=1),
        run("flaky", turn("tool", failures=["turn 1: outcome expected answer"]), run=2),
    ]
    scores = score(results, repeat=2)
    assert (scores.runs.hits, scores.runs.total) == (3, 4)
    assert (scores.pass_k.hits, scores.pass_k.total, scores.k) == (1, 2, 2)
    assert scores.pass_k.value == 0.5


def test_accuracies_count_only_turns_that_state_the_expectation():
    results = [
        run(
            "a",
            turn("tool", checks={"tools": True, "args": False}),
            turn("ask", seen="ask"),
            turn(None, seen="tool", checks={"answer": True}),
        ),
        run("b", turn("tool", checks={"tools": False, "answer": False})),
    ]
    scores = score(results)
    assert (scores.tool_accuracy.hits, scores.tool_accuracy.total) == (1, 2)
    assert (scores.args_accuracy.hits, scores.args_accuracy.total) == (0, 1)
    assert (scores.answer_accuracy.hits, scores.answer_accuracy.total) == (1, 2)
    # The turn without an expected decision is left out of the F1.
    assert scores.decision_turns == 3 and scores.decision_f1 == 1.0
    lines = "\n".join(score_lines(scores))
    assert "pass^1" in lines and "decision F1      1.000" in lines
    assert "tool accuracy    1/2 (50.0%)" in lines


def test_the_table_shows_the_first_failure_and_invalid_files():
    results = [
        run("passes", turn("tool", model_calls=2)),
        run("fails", turn("tool", failures=["turn 1: first", "turn 1: second"])),
        run("fails", turn("tool"), run=2),
    ]
    invalid = [FileError(file="bad.yaml", problems=["bad.yaml:3: unknown key 'x'", "more"])]
    text = table(results, invalid)
    rows = text.splitlines()
    assert rows[0].startswith("scenario")
    assert "PASS" in rows[1] and rows[1].rstrip().endswith("2")
    assert "FAIL" in rows[2] and rows[2].endswith("turn 1: first")
    assert rows[3].startswith("fails [run 2]")
    assert "INVALID" in rows[4] and "unknown key 'x' (and 1 more)" in rows[4]


def test_the_table_counts_tokens_per_run_and_in_all_with_the_cost_when_priced():
    counted = Tokens(input=1000, output=200, cost=0.5)
    guessed = Tokens(input=3000, output=34, estimated=True, cost=0.25)
    results = [
        run("counted", turn("tool", tokens=counted), turn("tool", tokens=counted)),
        run("guessed", turn("tool", tokens=guessed)),
    ]
    assert results[0].tokens.total == 2400 and results[0].tokens.cost == 1.0
    rows = table(results, []).splitlines()
    assert rows[0].split()[:5] == ["scenario", "result", "time", "calls", "tokens"]
    assert rows[1].rstrip().endswith(" 2,400") and rows[2].rstrip().endswith("≈3,034")
    # The total is an estimate as soon as any part of it is one.
    assert rows[3].startswith("total") and rows[3].rstrip().endswith("≈5,434")
    assert rows[4] == "cost ≈1.2500"
    assert "model call(s), 1,200 tokens," in transcript(results[0])
    data = results_json(results, [], score(results))
    assert data["tokens"] == {
        "input": 5000, "output": 434, "cached": None, "estimated": True, "cost": 1.25
    }  # fmt: skip
    assert data["scenarios"][1]["runs"][0]["tokens"]["estimated"] is True
    case = junit_xml(results, []).find(".//testcase")
    assert case is not None
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["tokens.input"] == "2000" and properties["tokens.estimated"] == "false"
    assert properties["cost"] == "1.000000" and "tokens.cached" not in properties


def test_transcript_and_json_carry_each_turn():
    result = run(
        "r",
        turn(
            "tool",
            calls=[Call(tool="calculator", arguments={"expression": "1+1"}, ok=True)],
            text="1+1 = 2",
            events=[{"type": "answer", "text": "1+1 = 2"}],
        ),
    )
    text = transcript(result)
    assert "tool calculator" in text and "answer: 1+1 = 2" in text
    data = results_json([result], [], score([result]))
    (scenario,) = data["scenarios"]
    (entry,) = scenario["runs"]
    assert scenario["passed"] and entry["passed"] and entry["test_name"] == "r"
    assert entry["turns"][0]["tools"] == ["calculator"]
    assert entry["turns"][0]["events"] == [{"type": "answer", "text": "1+1 = 2"}]
    assert data["scores"]["runs"]["value"] == 1.0


def test_junit_has_a_case_per_scenario_run_and_a_failure_element():
    results = [
        run("ok", turn("tool"), file="scenarios/a.yaml"),
        run("bad", turn("tool", failures=["turn 1: tools expected [x], saw [y]"]), run=1),
        run("bad", turn("tool", failures=["turn 1: outcome expected end\x01"]), run=2),
    ]
    invalid = [FileError(file="scenarios/broken.yaml", problems=["line 2: unknown key 'z'"])]
    root = junit_xml(results, invalid)
    ET.fromstring(ET.tostring(root))  # well-formed, control characters included
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "2", "1")
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"ok", "bad", "bad [run 2]", "broken.yaml"}
    assert cases["ok"].find("failure") is None
    assert cases["ok"].get("classname") == "scenarios.a"
    failure = cases["bad"].find("failure")
    assert failure.get("message") == "turn 1: tools expected [x], saw [y]"
    assert cases["bad"].find("system-out").text.startswith("turn 1 > u")
    assert cases["broken.yaml"].find("error").get("message") == "line 2: unknown key 'z'"
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    assert suites["s.yaml"].get("tests") == "2" and suites["s.yaml"].get("failures") == "2"
