"""Tools do not starve each other: OCR turns beside calculator turns, and what a reading that
timed out leaves running, with figures.

All turns go through `Agent(OfflineModel()).run` in one event loop, as the page runs them.

1. Reference: calculator turns ("what is 6*7") with nothing else running.
2. K turns that read the text of a large image start at once; calculator turns run one after
   another until the last reading is done. Printed: calculator latency (median, worst) beside
   the reference, and how long the readings took. Target: worst calculator turn < 1 s.
3. A reading that times out (read_text's timeout set to 0.5 s) on a 1568x1568 page. Printed:
   whether the worker was stopped, and the CPU time the OCR workers used in the 5 s after the
   turn ended (from /proc/<pid>/stat; the quick run watches only until the worker is gone),
   beside the CPU time one reading of the image costs. Target: the worker is gone, and the
   workers use < 0.2 s of CPU in those 5 s.
4. The next reading, with the usual timeout: it works (in a fresh worker) and reads the same.

    .venv/bin/python bench/starve.py            # 8 readings of a 1568x1568 page
    .venv/bin/python bench/starve.py --quick    # 3 readings of a 320x320 page; what CI runs
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image, ImageDraw, ImageFont

from agent import Agent
from agent.models import OfflineModel
from tools import read_text
from tools.read_text import ReadText

CALC_TARGET, IDLE_CPU_TARGET, GONE_WITHIN = 1.0, 0.2, 5.0
# The timed-out reading's page: one that takes seconds to read on any machine, so that it does
# time out, whatever the size of the pages the other readings read.
TIMEOUT_SIDE = 1568
TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Figures:
    readings: int
    side: int
    calc_alone: list[float] = field(default_factory=list)
    calc_busy: list[float] = field(default_factory=list)
    calc_right: bool = True
    reading_s: list[float] = field(default_factory=list)
    readings_right: bool = True
    reading_cpu: float = 0.0
    timed_out: bool = False
    worker_gone: bool = False
    gone_after: float | None = None
    cpu_after: float = 0.0
    watched: float = GONE_WITHIN
    next_ok: bool = False
    next_s: float = 0.0

    def ok(self) -> bool:
        return (
            self.calc_right
            and self.readings_right
            and max(self.calc_busy) < CALC_TARGET
            and self.timed_out
            and self.worker_gone
            and self.cpu_after < IDLE_CPU_TARGET
            and self.next_ok
        )


def page(path: Path, side: int) -> Path:
    """A page of printed lines, as a photographed document might hold."""
    image = Image.new("RGB", (side, side), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=max(14, side // 70))
    step = font.size * 2
    for row in range(1, side // step - 1):
        draw.text((20, row * step), f"Line {row} the quick brown fox jumps over {row * 7} lazy "
                  "dogs and keeps running", fill="black", font=font)  # fmt: skip
    image.save(path)
    return path


def cpu_seconds(pid: int) -> float:
    """User and system time of a process so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


async def turn(text: str, images: tuple[Path, ...] = ()) -> tuple[float, str, list]:
    started = time.perf_counter()
    events = [event async for event in Agent(OfflineModel()).run(text, images)]
    return time.perf_counter() - started, getattr(events[-1], "text", ""), events


async def calculator(figures: Figures, into: list[float]) -> None:
    seconds, answer, _ = await turn("what is 6*7")
    into.append(seconds)
    figures.calc_right &= answer.endswith("42")


async def crowd(figures: Figures, image: Path, expected: str) -> None:
    readings = [
        asyncio.create_task(turn("read the text", (image,))) for _ in range(figures.readings)
    ]
    await asyncio.sleep(0.3)
    while not all(task.done() for task in readings):
        await calculator(figures, figures.calc_busy)
        await asyncio.sleep(0.1)
    for task in readings:
        seconds, answer, _ = task.result()
        figures.reading_s.append(seconds)
        figures.readings_right &= expected in answer


async def timeout_then_next(
    figures: Figures, image: Path, big: Path, expected: str, until_gone: bool = False
) -> None:
    """`until_gone`: stop watching the workers' CPU once the stopped worker is gone."""
    pids = read_text.POOL.pids()
    usual, ReadText.timeout = ReadText.timeout, 0.5
    try:
        _, _, events = await turn("read the text", (big,))
    finally:
        ReadText.timeout = usual
    result = next(e for e in events if e.type == "tool_result")
    figures.timed_out = not result.ok and "did not finish" in result.text
    # CPU from the moment the turn answered, the stopped worker's included while it lasts.
    ended = time.monotonic()
    first = {pid: cpu_seconds(pid) for pid in pids}
    last = dict(first)
    while time.monotonic() - ended < GONE_WITHIN:
        for pid in pids:
            if alive(pid):
                last[pid] = cpu_seconds(pid)
            elif figures.gone_after is None:
                figures.gone_after = time.monotonic() - ended
        if until_gone and figures.gone_after is not None:
            break
        await asyncio.sleep(0.05)
    figures.watched = time.monotonic() - ended
    figures.worker_gone = figures.gone_after is not None
    figures.cpu_after = sum(last[pid] - first[pid] for pid in pids)
    seconds, answer, _ = await turn("read the text", (image,))
    figures.next_ok, figures.next_s = expected in answer, seconds


async def measure(readings: int, side: int, probes: int, until_gone: bool = False) -> Figures:
    figures = Figures(readings=readings, side=side)
    with tempfile.TemporaryDirectory() as folder:
        image = page(Path(folder) / "page.png", side)
        big = image if side == TIMEOUT_SIDE else page(Path(folder) / "big.png", TIMEOUT_SIDE)
        ReadText().warm_up()
        await turn("what is 6*7")  # the first turn loads the tools
        for _ in range(probes):
            await calculator(figures, figures.calc_alone)
        # One reading alone: what it costs, and what every later one must read.
        pids = read_text.POOL.pids()
        before = sum(cpu_seconds(pid) for pid in pids)
        _, answer, _ = await turn("read the text", (image,))
        figures.reading_cpu = sum(cpu_seconds(pid) for pid in pids) - before
        expected = "Line 3 the quick brown fox"
        if expected not in answer:
            raise SystemExit(f"the page does not read as expected: {answer[:300]!r}")
        await crowd(figures, image, expected)
        await timeout_then_next(figures, image, big, expected, until_gone)
    return figures


def report(figures: Figures) -> str:
    alone, busy = figures.calc_alone, figures.calc_busy
    lines = [
        f"{figures.readings} readings of a {figures.side}x{figures.side} page at once, "
        f"{read_text.POOL.size} OCR workers; one reading costs {figures.reading_cpu:.1f} s CPU",
        f"calculator turn alone:   median {statistics.median(alone) * 1000:.1f} ms, "
        f"worst {max(alone) * 1000:.1f} ms ({len(alone)} turns)",
        f"calculator turn beside:  median {statistics.median(busy) * 1000:.1f} ms, "
        f"worst {max(busy) * 1000:.1f} ms ({len(busy)} turns; target < {CALC_TARGET:g} s)",
        f"readings took:           {min(figures.reading_s):.1f} to "
        f"{max(figures.reading_s):.1f} s; all read right: {figures.readings_right}",
        f"timed-out reading:       timed out {figures.timed_out}; its worker gone "
        f"{_after(figures.gone_after)} the turn ended (target < {GONE_WITHIN:g} s)",
        f"workers' CPU in the {figures.watched:.1f} s after: {figures.cpu_after:.2f} s "
        f"(target < {IDLE_CPU_TARGET:g} s; the reading alone would have used "
        f"{figures.reading_cpu:.1f} s)",
        f"next reading:            works {figures.next_ok}, {figures.next_s:.1f} s "
        "(a fresh worker loads its engine)",
        f"all targets met: {figures.ok()}",
    ]
    return "\n".join(lines)


def _after(seconds: float | None) -> str:
    return "never" if seconds is None else f"{seconds:.2f} s after"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="3 readings of a smaller page, and the CPU watched only until the worker is gone",
    )
    parser.add_argument("--readings", type=int, help="readings at once (default 8, quick 3)")
    args = parser.parse_args(argv)
    readings = args.readings or (3 if args.quick else 8)
    side, probes = (320, 3) if args.quick else (TIMEOUT_SIDE, 10)
    figures = asyncio.run(measure(readings, side, probes, until_gone=args.quick))
    print(report(figures), flush=True)
    return 0 if figures.ok() else 1


if __name__ == "__main__":
    raise SystemExit(main())
