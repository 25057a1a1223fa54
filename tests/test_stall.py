"""The stall check: hostile inputs against `python app.py` leave other sessions served.

`bench/stall.py --quick` sends one input of each kind (`bench/stall_cases.py`): a message, an
image bomb, scenario files (a catastrophic pattern; one asking for approval the operator's
AGENT_APPROVAL=never does not give), `/ask` asking for "always", a hostile model's 16 KB repair
bomb and 12,000-call reply, a 200,000-event conversation file and a 30 MB request body. The
test asks that every other session is answered at all (`--liveness`): a stalled server cannot
answer, a slow machine can. Memory at its peak, outbound requests the policy forbids and the
exit on SIGTERM are checked too; the times against their targets are the benchmark's (figures
in BENCHMARKS.md). Reading text is not what is tested (no quick input reads any): the server's
OCR workers answer with the engine's recorded replies, so their start costs no seconds of CPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parent.parent


def test_no_hostile_input_stalls_the_server():
    stall = str(ROOT / "bench" / "stall.py")
    done = subprocess.run(
        [sys.executable, stall, "--quick", "--liveness", "--recorded-ocr"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "BAD" not in done.stdout
