"""`python -m agent.scenarios`: exit codes, output files, the model it picks, and the shipped
scenarios passing on the offline model."""

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from agent.scenarios.__main__ import contenders, model_factory, parse_args
from tests.support import recorded_run

ROOT = Path(__file__).resolve().parent.parent

PASSING = """
- name: adds
  turns:
    - user: "Calculate 2 + 3"
      expect: {outcome: answer, tools: [calculator], answer_matches: "= 5"}
- name: says goodbye
  turns:
    - user: bye
      expect: {outcome: end}
"""
FAILING = """
name: expects the wrong sum
turns:
  - user: "Calculate 2 + 3"
    expect: {outcome: answer, answer_matches: "= 6"}
"""
INVALID = """
name: misspelt
turns:
  - user: hi
    expect: {outcom: ask}
"""


def cli(
    *args: str, timeout: float = 120, recorded_ocr: bool = False
) -> subprocess.CompletedProcess:
    """`recorded_ocr`: text reading answers with the engine's recorded replies
    (`tests.support.recorded_run`), as in-process tests have it."""
    command = ["-m", "agent.scenarios", *args]
    return subprocess.run(
        [sys.executable, *(recorded_run.command(*command) if recorded_ocr else command)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(path)


def test_all_passing_exits_0_and_prints_scores(tmp_path):
    done = cli(write(tmp_path, "ok.yaml", PASSING), "--offline")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "adds" in done.stdout and "PASS" in done.stdout and "FAIL" not in done.stdout
    assert "pass rate        2/2 (100.0%)" in done.stdout
    assert "decision F1      1.000" in done.stdout


def test_a_failure_exits_1_and_writes_json_and_junit(tmp_path):
    path = write(tmp_path, "fail.yaml", FAILING)
    out_json, out_xml = tmp_path / "out.json", tmp_path / "out.xml"
    done = cli(path, "--offline", "--repeat", "2", "--json", str(out_json), "--junit", str(out_xml))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "turn 1: answer_matches /= 6/ not found" in done.stdout
    data = json.loads(out_json.read_text(encoding="utf-8"))
    (scenario,) = data["scenarios"]
    assert [r["run"] for r in scenario["runs"]] == [1, 2] and not scenario["passed"]
    first_turn = scenario["runs"][0]["turns"][0]
    assert first_turn["tools"] == ["calculator"] and first_turn["outcome"] == "answer"
    assert {"run_started", "tool_call", "tool_result", "answer"} <= {
        e["type"] for e in first_turn["events"]
    }
    assert data["scores"]["pass_k"] == {"hits": 0, "total": 1, "value": 0.0}
    # The offline model counts no tokens: each turn's are estimated from the text.
    calls = [e for e in first_turn["events"] if e["type"] == "model_call"]
    assert first_turn["tokens"]["input"] == sum(c["input_tokens"] for c in calls) > 0
    assert first_turn["tokens"]["estimated"] and data["tokens"]["estimated"]
    assert data["tokens"]["output"] == sum(run["tokens"]["output"] for run in scenario["runs"])
    assert data["tokens"]["cost"] is None  # no price table
    cases = ET.parse(out_xml).getroot().findall(".//testcase")
    assert [c.get("name") for c in cases] == [
        "expects the wrong sum",
        "expects the wrong sum [run 2]",
    ]
    assert all(c.find("failure") is not None for c in cases)
    assert all(c.find("properties/property[@name='tokens.input']") is not None for c in cases)


def test_an_invalid_file_exits_2_and_the_valid_ones_still_run(tmp_path):
    good = write(tmp_path, "a_good.yaml", PASSING)
    bad = write(tmp_path, "b_bad.yaml", INVALID)
    done = cli(str(tmp_path), "--offline")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "adds" in done.stdout and "PASS" in done.stdout
    assert "INVALID" in done.stdout and f"{bad}:4:" in done.stdout
    assert "unknown key 'outcom'" in done.stderr
    assert good not in done.stderr


def test_a_missing_path_is_invalid(tmp_path):
    done = cli(str(tmp_path / "nowhere.yaml"), "--offline")
    assert done.returncode == 2 and "no such file" in done.stdout


def test_without_a_choice_the_environment_decides(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HF_TOKEN", "AGENT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    make = model_factory(parse_args(["x.yaml"]))
    first, second = make(), make()
    assert first.offline and first is not second


def test_model_and_base_url_make_an_openai_compatible_model(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    args = parse_args(["x.yaml", "--model", "qwen", "--base-url", "http://127.0.0.1:9/v1"])
    model = model_factory(args)()
    assert (model.name, model.base_url) == ("qwen", "http://127.0.0.1:9/v1")
    assert model._api_key.get_secret_value() == "sk-test"


@pytest.mark.parametrize(
    "argv",
    [["x.yaml", "--base-url", "http://h/v1"], ["x.yaml", "--repeat", "0"]],
)
def test_contradictory_options_are_refused(argv):
    with pytest.raises(SystemExit) as caught:
        parse_args(argv)
    assert caught.value.code == 2


def test_the_shipped_scenarios_pass_offline(tmp_path):
    out = tmp_path / "shipped.json"
    args = ("scenarios/", "--offline", "--workers", "2", "--json", str(out))
    done = cli(*args, timeout=300, recorded_ocr=True)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(data["scenarios"]) >= 40
    used = {tool for s in data["scenarios"] for t in s["runs"][0]["turns"] for tool in t["tools"]}
    assert used >= {
        "image_info", "read_text", "zoom", "image_edit", "colors", "scan_code",
        "calculator", "convert_units", "world_clock",
    }  # fmt: skip
    decisions = {t["decision"] for s in data["scenarios"] for t in s["runs"][0]["turns"]}
    assert decisions >= {"tool", "ask", "no_tool", "end"}


def test_several_models_run_the_suite_side_by_side(tmp_path):
    from tests.support.openai_server import OpenAIServer

    suite = write(tmp_path, "suite.yaml", PASSING)
    out, junit = tmp_path / "both.json", tmp_path / "report.xml"
    # A second model that answers every question at once, without a tool, and never ends.
    with OpenAIServer(lambda body: "Thought: I know this.\nAnswer: = 5") as server:
        done = cli(
            suite, "--offline", "--model", "test-model", "--base-url", server.base_url,
            "--json", str(out), "--junit", str(junit),
        )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    scores, scenarios = done.stdout.split("\n\nmodel ")[-1].split("\n\n")
    rows = {line.split()[0]: line.split() for line in scores.splitlines()[1:]}
    assert rows["offline"][1:3] == ["2/2", "100%"] and rows["test-model"][1:3] == ["0/2", "0%"]
    assert scenarios.splitlines()[1].split()[-2:] == ["PASS", "FAIL"]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [m["model"] for m in data["models"]] == ["offline", "test-model"]
    assert data["passed"] is False and data["models"][0]["passed"] is True
    for name, failures in (("offline", "0"), ("test-model", "2")):
        suites = ET.parse(tmp_path / f"report.{name}.xml").getroot()
        assert suites.get("failures") == failures


def test_one_base_url_per_model_or_one_for_all():
    args = parse_args(["x.yaml", "--model", "a", "--model", "b", "--base-url", "http://h/v1"])
    assert [name for name, _ in contenders(args)] == ["a", "b"]
    with pytest.raises(SystemExit):
        parse_args(
            ["x.yaml", "--model", "a", "--base-url", "http://h/v1", "--base-url", "http://i"]
        )
