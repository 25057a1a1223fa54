"""How the cost of reading a reply and replaying a trace grows with the input: each case at n and
at 4n, and the ratio of their times (about 4 when linear, 16 when quadratic).

The cases are the hostile inputs of issue 19 and the shapes found beside them: replies that
once took seconds to a minute to read (json_repair on `{"{"{"...`, a call of 8,000 names, a
line of commas, an answer of blank lines) and a trace of tool calls or streamed deltas that
the trace view once re-read at every event.

    .venv/bin/python bench/reply_scaling.py            # n = 4,000 characters / 10,000 events
    .venv/bin/python bench/reply_scaling.py --scale 2  # twice that
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent.events import ModelDeltaEvent, ToolCallEvent
from agent.react.parser import AnswerStream, ParseError, parse_step
from ui.trace.view import render

TOOLS = ["calculator", "zoom"]


def _read(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_step(text, TOOLS)


def _stream(text: str) -> None:
    stream = AnswerStream()
    for start in range(0, len(text), 4):
        stream.feed(text[start : start + 4])
    stream.finish()


def _calls(n: int) -> None:
    call = ToolCallEvent(step=1, call_id="c", tool="calculator", arguments={"expression": "1"})
    render([call] * n)


def _deltas(n: int) -> None:
    render([ModelDeltaEvent(step=i // 2_000, text="word ") for i in range(n)])


# name -> (size at scale 1, what to run at size n)
CASES: dict[str, tuple[int, Callable[[int], None]]] = {
    "repair bomb": (4_000, lambda n: _read("Action: calculator\nAction Input: " + '{"' * (n // 2))),
    "call of names": (4_000, lambda n: _read("calculator(" + "a," * (n // 2))),
    "line of commas": (4_000, lambda n: _read("Action: " + "," * n)),
    "fenced blobs": (
        4_000,
        lambda n: _read("```\n" + '{"name": "zoom", "arguments": \n' * (n // 32)),
    ),
    "answer of blank lines": (4_000, lambda n: _stream("Answer: " + "\n" * n + "done")),
    "trace of tool calls": (10_000, _calls),
    "trace of deltas": (10_000, _deltas),
}


def timed(run: Callable[[int], None], n: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run(n)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every n by this")
    args = parser.parse_args(argv)
    print(f"{'case':24} {'n':>8} {'time n':>10} {'time 4n':>10} {'ratio':>6}")
    for name, (size, run) in CASES.items():
        n = int(size * args.scale)
        small, large = timed(run, n), timed(run, 4 * n)
        print(f"{name:24} {n:8,} {small * 1000:8.1f}ms {large * 1000:8.1f}ms {large / small:6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
