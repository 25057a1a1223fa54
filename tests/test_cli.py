"""`python -m agent` prints the trace as it streams, then the answer or the question."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent.__main__ import main
from agent.events import EVENT_ADAPTER, export_trace, load_trace
from tests.support import recorded_run
from tests.support.local import free_port
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str, recorded_ocr: bool = False) -> subprocess.CompletedProcess:
    """`recorded_ocr`: text reading answers with the OCR engine's recorded replies."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}  # no key: the offline model answers
    command = ["-m", "agent", *args]
    return subprocess.run(
        [sys.executable, *(recorded_run.command(*command) if recorded_ocr else command)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_prints_the_steps_and_the_answer():
    done = run_cli("convert 5 miles to km")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "offline" in out
    assert out.index("Action: convert_units") < out.index("Observation") < out.index("Answer:")
    assert "8.04672 km" in out
    # The answer ends its line; the turn's statistics follow on their own.
    assert "\nAnswer: 5 mi = 8.04672 km\n· 2 model call(s), ≈" in out
    # The offline model counts no tokens: the line gives an estimate and says so.
    assert re.search(r"\n· 2 model call\(s\), ≈[\d,]+ tokens, [\d.]+s\n", out)


def test_cli_asks_for_what_is_missing_and_reads_an_image():
    done = run_cli("What time is it?", "--quiet")
    assert done.returncode == 0 and done.stdout.strip() == "Question: Which city or time zone?"
    sign = ROOT / "assets" / "examples" / "sign.png"
    done = run_cli("What does the sign say?", "--image", str(sign), recorded_ocr=True)
    assert "Action: read_text" in done.stdout and "Answer:" in done.stdout


# -- the flags, through main() in this process ------------------------------------------------

ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AGENT_MODEL",
    "HF_TOKEN",
    "AGENT_LANGUAGE",
    "AGENT_PROMPT_STYLE",
    "AGENT_MAX_STEPS",
    "AGENT_TEMPERATURE",
)
SIGN = ROOT / "assets" / "examples" / "sign.png"


@pytest.fixture
def cli(monkeypatch, capsys):
    """Run `python -m agent` in this process with no model configured: (exit code, stdout)."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)

    def run(*args: str) -> tuple[int, str]:
        code = main(list(args))
        return code, capsys.readouterr().out

    return run


class Terminal(io.StringIO):
    """Standard input as a person at a terminal types it."""

    def isatty(self) -> bool:
        return True


def events_of(out: str) -> list:
    return [EVENT_ADAPTER.validate_json(line) for line in out.splitlines()]


def test_json_prints_each_event_as_one_line_of_the_export_format(cli):
    code, out = cli("convert 5 miles to km", "--json")
    events = events_of(out)
    assert code == 0
    assert events[0].type == "run_started" and events[-1].type == "answer"
    assert "8.04672 km" in events[-1].text
    calls = [e for e in events if e.type == "tool_call"]
    results = [e for e in events if e.type == "tool_result"]
    assert [c.call_id for c in calls] == [r.call_id for r in results] != []
    # The export leaves out the `model_wait`s a slow first call prints (a busy machine).
    said = [e for e in events if e.type != "model_wait"]
    assert load_trace(export_trace(events)) == said
    # Each model call's line carries its tokens, estimated where the model counts none.
    model_calls = [e for e in events if e.type == "model_call"]
    assert model_calls and all(
        c.estimated and c.input_tokens > c.output_tokens > 0 for c in model_calls
    )


def test_a_question_is_answered_by_the_next_call_with_continue(cli, tmp_path):
    saved = tmp_path / "s.json"
    code, out = cli("convert 5 miles", "--session", str(saved))
    assert code == 0 and "Question: Which unit" in out and "Answer" not in out
    code, out = cli("km", "--session", str(saved), "--continue")
    assert code == 0 and "Answer: 5 mi = 8.04672 km" in out
    history = json.loads(saved.read_text())["history"]
    assert [turn["outcome"] for turn in history] == ["asked", "answered"]


def test_a_continued_session_still_has_its_images(cli, tmp_path):
    saved = tmp_path / "s.json"
    code, out = cli("What does the sign say?", "--image", str(SIGN), "--session", str(saved))
    assert code == 0 and "CITY LIBRARY" in out
    assert [p.name for p in (tmp_path / "s.images").iterdir()] == ["img_1.jpg"]
    code, out = cli("what colours are in img_1?", "--session", str(saved), "--continue", "--json")
    events = events_of(out)
    (call,) = [e for e in events if e.type == "tool_call"]
    (result,) = [e for e in events if e.type == "tool_result"]
    assert code == 0 and call.tool == "colors" and call.arguments["image_id"] == "img_1"
    assert result.ok and "dark green" in result.text


def test_without_continue_the_session_starts_again(cli, tmp_path):
    saved = tmp_path / "s.json"
    cli("convert 5 miles", "--session", str(saved))
    code, out = cli("What time is it?", "--session", str(saved), "--quiet")
    assert code == 0 and out.strip() == "Question: Which city or time zone?"
    assert len(json.loads(saved.read_text())["history"]) == 1


def test_at_a_terminal_the_question_is_answered_at_the_prompt(cli, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", Terminal("\nkm\n"))
    code, out = cli("convert 5 miles")
    assert code == 0
    assert out.index("Question: Which unit") < out.index("Answer: 5 mi = 8.04672 km")
    assert "> " not in out  # the prompt goes to stderr; stdout stays the trace


def test_at_a_terminal_the_end_of_input_ends_the_conversation(cli, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "stdin", Terminal(""))
    saved = tmp_path / "s.json"
    code, out = cli("convert 5 miles", "--session", str(saved))
    assert code == 0 and "Question: Which unit" in out
    assert json.loads(saved.read_text())["task"]["tool"] == "convert_units"


def test_max_steps_stops_the_turn(cli):
    code, out = cli("convert 5 miles to km", "--max-steps", "1")
    assert code == 1
    assert "Action: convert_units" in out and "Stopped after 1 model call without" in out
    assert "Answer" not in out


def test_offline_wins_over_the_environment(cli, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    code, out = cli("convert 5 miles to km", "--offline", "--quiet")
    assert code == 0 and "8.04672 km" in out


def test_model_and_base_url_reach_an_openai_compatible_server(cli, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cli")
    with OpenAIServer(replies=["Thought: I know this.\nAnswer: 4"]) as server:
        code, out = cli(
            "What is 2+2?",
            *("--model", "test-model", "--base-url", server.base_url),
            *("--temperature", "0.5", "--style", "plugin-task", "--language", "zh"),
        )
        request = server.requests[0]
    assert code == 0 and "Answer: 4" in out and "test-model" in out
    assert request["model"] == "test-model" and request["temperature"] == 0.5


def test_an_unreachable_service_is_an_error(cli):
    code, out = cli("hi", "--model", "m", "--base-url", f"http://127.0.0.1:{free_port()}/v1")
    assert code == 1 and "Error:" in out


@pytest.mark.parametrize(
    "args",
    [
        ["--max-steps", "0"],
        ["--max-steps", "many"],
        ["--temperature", "3"],
        ["--style", "free"],
        ["--offline", "--model", "m"],
        ["--offline", "--base-url", "http://127.0.0.1:9/v1"],
        ["--json", "--quiet"],
        ["--continue"],
        ["--model", "m"],  # no service to ask: no base URL, no key
        ["--no-such-flag"],
    ],
)
def test_bad_arguments_exit_2(cli, args, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["convert 5 miles", *args])
    assert stopped.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_continue_needs_a_saved_session(cli, tmp_path, capsys):
    for content in (None, "{not json", '{"something": "else"}'):
        saved = tmp_path / "s.json"
        if content is not None:
            saved.write_text(content)
        with pytest.raises(SystemExit) as stopped:
            main(["km", "--session", str(saved), "--continue"])
        assert stopped.value.code == 2 and "--continue" in capsys.readouterr().err


def test_the_process_exits_2_for_bad_arguments():
    done = run_cli("convert 5 miles", "--max-steps", "99")
    assert done.returncode == 2 and "--max-steps" in done.stderr
