"""The stall check: hostile inputs against `python app.py` leave other sessions served.

The test asks only that every other session is answered at all (`--liveness`): a stalled
server cannot answer, a slow machine can. The times against their targets are the benchmark's
(`bench/stall.py`, figures in BENCHMARKS.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_hostile_input_stalls_the_server():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "stall.py"), "--quick", "--liveness"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "BAD" not in done.stdout
