"""The load benchmark's quick run: parallel conversations against a slow model, no errors, and
the app's disk back to where it started once the idle time has passed."""

from __future__ import annotations

import pytest

from bench import load

pytestmark = pytest.mark.bench


def test_the_quick_load_run_has_no_errors_and_leaves_nothing_on_disk():
    run = load.measure(
        conversations=6,
        seconds=5,
        turns_per_conversation=5,
        idle_minutes=0.05,
        delay=0.5,
        warm_seconds=2,
        recorded_ocr=True,  # no turn reads text: the OCR workers need not load the engine
    )
    assert run.errors == [] and run.log_tracebacks == 0
    # Six conversations sending turns of at least half a second, back to back, for 5 s.
    assert 12 <= run.turns <= 60
    assert all(seconds >= 0.5 for seconds, _ in run.turn_seconds)
    assert any(zoom for _, zoom in run.turn_seconds)
    assert run.disk["end_of_load"][1] > run.disk["before"][1]
    assert run.disk["after_idle"] == run.disk["before"]
    assert "p50" in load.report(run)


def test_the_model_zooms_when_asked_and_answers_after_the_observation():
    def body(text):
        return {"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}

    assert "Action: zoom" in load.reply(body("Zoom into the top left"))
    assert load.reply(body("Observation: zoomed into img_1")).endswith("Answer: hello")
    assert load.reply({"messages": [{"role": "user", "content": "Say hello."}]}).endswith("hello")
