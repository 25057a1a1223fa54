"""`python -m agent` prints the trace as it streams, then the answer or the question."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}  # no key: the offline model answers
    return subprocess.run(
        [sys.executable, "-m", "agent", *args],
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


def test_cli_asks_for_what_is_missing_and_reads_an_image():
    done = run_cli("What time is it?", "--quiet")
    assert done.returncode == 0 and done.stdout.strip() == "Question: Which city or time zone?"
    sign = ROOT / "assets" / "examples" / "sign.png"
    done = run_cli("What does the sign say?", "--image", str(sign))
    assert "Action: read_text" in done.stdout and "Answer:" in done.stdout
