"""The starvation benchmark still runs: a few readings beside calculator turns, one that times
out, and the one after it."""

from __future__ import annotations

import pytest

from bench import starve

pytestmark = [pytest.mark.bench, pytest.mark.real_ocr]


def test_readings_beside_calculator_turns_and_a_timed_out_reading(capsys):
    starve.main(["--quick"])

    out = capsys.readouterr().out
    assert "calculator turn beside:" in out and "workers' CPU in the " in out
    # What holds however busy the machine is; the latency figures are for reading.
    assert "all read right: True" in out
    assert "timed out True; its worker gone" in out and "gone never" not in out
    assert "next reading:            works True" in out
