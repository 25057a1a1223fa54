"""The overhead benchmark still runs: a few turns of each side, checked like the real run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench

_PATH = Path(__file__).resolve().parent.parent / "bench" / "overhead.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_overhead", _PATH)
    module = importlib.util.module_from_spec(spec)
    # dataclasses look their module up by name while the class is being built
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


overhead = _load()


async def test_our_agent_runs_the_scripted_task():
    sides = await overhead.measure(turns=3, warmup=1, chunk_size=8, with_llama=False)

    (ours,) = sides
    assert len(ours.times) == 3
    assert ours.per_step > 0
    assert "ours" in overhead.report(sides, 8)


async def test_a_wrong_tool_count_is_caught():
    agent = overhead.make_ours()
    replies = overhead.scripted_replies()
    short = [*replies[:2], replies[-1]]

    result = await overhead.ours_turn(agent, short, 8)

    with pytest.raises(AssertionError, match="tool steps"):
        overhead.check("ours", result)


async def test_llama_index_side_runs_the_same_task():
    pytest.importorskip("llama_index.core")
    sides = await overhead.measure(turns=2, warmup=0, chunk_size=8, with_llama=True)

    assert [s.name for s in sides] == ["ours", "llama-index"]
    assert "llama-index / ours" in overhead.report(sides, 8)


def test_our_side_runs_traced(capsys):
    from agent.tracing import telemetry

    try:
        assert overhead.main(["--ours-only", "--turns", "2", "--warmup", "0", "--trace"]) == 0
    finally:
        telemetry.stop_tracing()
    assert "tracing: on" in capsys.readouterr().out
