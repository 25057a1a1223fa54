"""No single input stalls the server: hostile messages against `python app.py`, with figures.

The app runs as its own process (offline model), as a Space runs it. For each hostile input,
one client sends it while a second client keeps running a trivial turn ("What is 2 + 2?") and a
third keeps asking `/gradio_api/info`. Printed per input: how the hostile turn ended, the worst
trivial-turn and info latency while it ran, and the server's memory (peak and after, against
the baseline before it). The reference is the same two latencies with nothing else running,
measured first in the same run. Last, SIGTERM must end the server within 5 s.

Targets (issue "Bounded and trustworthy", section 1): trivial turn < 1 s, info < 0.5 s, memory
rise < 300 MB and back afterwards.

    .venv/bin/python bench/stall.py            # every input
    .venv/bin/python bench/stall.py --quick    # fewer probes
    .venv/bin/python bench/stall.py --quick --liveness  # what the tests run: served at all
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gradio_client import Client, handle_file
from PIL import Image

from tests.support.hostile import FORMAT_WIDTH, UNIT_TOWER, png_bomb
from tests.support.local import free_port

ROOT = Path(__file__).resolve().parent.parent
TRIVIAL = "What is 2 + 2?"
TURN_TARGET, INFO_TARGET, MEMORY_TARGET_MB = 1.0, 0.5, 300


@dataclass
class Case:
    name: str
    text: str
    files: list[Path] = field(default_factory=list)
    senders: int = 1


@dataclass
class Figures:
    name: str
    outcome: str = ""
    hostile_s: float = 0.0
    turn_s: list[float] = field(default_factory=list)
    info_s: list[float] = field(default_factory=list)
    rss_before: float = 0.0
    rss_peak: float = 0.0
    rss_after: float = 0.0

    @property
    def worst_turn(self) -> float:
        return max(self.turn_s, default=0.0)

    @property
    def worst_info(self) -> float:
        return max(self.info_s, default=0.0)

    def ok(self, liveness: bool = False) -> bool:
        """Within the targets; with `liveness`, only served at all: every trivial turn and
        info request answered (within 10 s), which a stalled server cannot do. The test suite
        checks liveness, since a test's timing on a shared machine proves nothing."""
        if liveness:
            turn_ok = bool(self.turn_s) and self.worst_turn != float("inf")
            info_ok = bool(self.info_s) and self.worst_info != float("inf")
        else:
            turn_ok, info_ok = self.worst_turn < TURN_TARGET, self.worst_info < INFO_TARGET
        return turn_ok and info_ok and self.rss_peak - self.rss_before < MEMORY_TARGET_MB


def cases(folder: Path) -> list[Case]:
    bomb = folder / "bomb.png"
    bomb.write_bytes(png_bomb())
    small = []
    for i in range(100):
        path = folder / f"tiny-{i}.png"
        Image.new("RGB", (8, 8), (i, 0, 0)).save(path)
        small.append(path)
    return [
        Case("unit power tower", UNIT_TOWER),
        Case("format width 2e9", FORMAT_WIDTH),
        Case("PNG bomb 10900x10900", "what does this say?", [bomb]),
        Case("3 PNG bombs at once", "what does this say?", [bomb], senders=3),
        Case("2 MB message", "a" * 2_000_000),
        Case("100 images", "look at these", small),
    ]


@contextlib.contextmanager
def served_app() -> Iterator[tuple[str, int]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env.pop("HF_TOKEN", None)
    # The probing client sends turns faster than a person; the per-minute limit is off here.
    env.update(
        GRADIO_SERVER_PORT=str(port),
        LOG_LEVEL="WARNING",
        GRADIO_ANALYTICS_ENABLED="0",
        AGENT_TURNS_PER_MINUTE="0",
    )
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "app.py")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "gradio_api/info", timeout=2).status_code == 200:
                    break
            if process.poll() is not None:
                raise RuntimeError(process.stderr.read().decode()[-2000:])
            time.sleep(0.3)
        yield url, process.pid
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


CASE_LIMIT = 60.0


def send(client: Client, text: str, files: list[Path], timeout: float = CASE_LIMIT) -> str:
    try:
        job = client.submit(
            {"text": text, "files": [handle_file(str(f)) for f in files]}, api_name="/chat"
        )
        result = job.result(timeout=timeout)
    except TimeoutError:
        return f"no reply within {timeout:g} s"
    except Exception as exc:  # a refusal reaches the client as an error with our sentence
        return f"refused: {' '.join(str(exc).split())[:90]}"
    chat = result[0]
    last = chat[-1]["content"] if chat else []
    text_parts = [p.get("text", "") for p in last if isinstance(p, dict)]
    return f"replied: {' '.join(' '.join(text_parts).split())[:90]}"


def timed(fn: Callable[[], object]) -> float:
    """Seconds `fn` took; a failure (a stalled server's timeout) counts as forever."""
    started = time.perf_counter()
    try:
        fn()
    except Exception:
        return float("inf")
    return time.perf_counter() - started


def probe_while(
    running: Callable[[], bool], url: str, pid: int, figures: Figures, min_seconds: float
) -> None:
    """Trivial turns, info requests and memory samples until the hostile turn ends."""
    client = Client(url, verbose=False)
    stop_at = time.monotonic() + min_seconds
    give_up = time.monotonic() + CASE_LIMIT
    real_running = running

    def running() -> bool:
        return real_running() and time.monotonic() < give_up

    def memory() -> None:
        while running() or time.monotonic() < stop_at:
            figures.rss_peak = max(figures.rss_peak, rss_mb(pid))
            time.sleep(0.05)

    def info() -> None:
        while running() or time.monotonic() < stop_at:
            figures.info_s.append(
                timed(lambda: httpx.get(url + "gradio_api/info", timeout=10).raise_for_status())
            )
            time.sleep(0.2)

    watchers = [threading.Thread(target=memory), threading.Thread(target=info)]
    for thread in watchers:
        thread.start()
    while running() or time.monotonic() < stop_at:
        started = time.perf_counter()
        reply = send(client, TRIVIAL, [], timeout=10)
        took = time.perf_counter() - started
        figures.turn_s.append(took if "4" in reply else float("inf"))
    for thread in watchers:
        thread.join()


def run_case(case: Case, url: str, pid: int, min_seconds: float, settle: float = 1.0) -> Figures:
    figures = Figures(case.name, rss_before=rss_mb(pid))
    figures.rss_peak = figures.rss_before
    outcomes: list[str] = []
    started = time.perf_counter()

    def hostile() -> None:
        outcomes.append(send(Client(url, verbose=False), case.text, case.files))

    senders = [threading.Thread(target=hostile) for _ in range(case.senders)]
    for thread in senders:
        thread.start()
    probe_while(lambda: any(t.is_alive() for t in senders), url, pid, figures, min_seconds)
    figures.hostile_s = time.perf_counter() - started
    figures.outcome = outcomes[0] if outcomes else "no reply"
    time.sleep(settle)  # for the memory the input leaves behind
    figures.rss_after = rss_mb(pid)
    return figures


def sigterm_seconds(pid: int) -> float:
    started = time.perf_counter()
    os.kill(pid, signal.SIGTERM)
    while time.perf_counter() - started < 10:
        try:
            os.kill(pid, 0)
            if Path(f"/proc/{pid}/status").read_text().count("zombie"):
                break
        except ProcessLookupError:
            break
        time.sleep(0.05)
    return time.perf_counter() - started


def report(reference: Figures, rows: list[Figures], liveness: bool = False) -> str:
    lines = [
        f"reference (nothing else running): trivial turn {reference.worst_turn * 1000:.0f} ms "
        f"worst, info {reference.worst_info * 1000:.0f} ms worst, "
        f"RSS {reference.rss_before:.0f} MB",
        "",
        f"{'input':<22} {'turn ms':>8} {'x ref':>6} {'info ms':>8} {'+peak MB':>9} "
        f"{'+after MB':>9} {'took s':>7}  outcome",
    ]
    for row in rows:
        ratio = row.worst_turn / max(reference.worst_turn, 1e-3)
        lines.append(
            f"{row.name:<22} {row.worst_turn * 1000:>8.0f} {ratio:>6.1f} "
            f"{row.worst_info * 1000:>8.0f} {row.rss_peak - row.rss_before:>9.0f} "
            f"{row.rss_after - row.rss_before:>9.0f} {row.hostile_s:>7.1f}  "
            f"{'ok ' if row.ok(liveness) else 'BAD'} {row.outcome}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter probes (CI)")
    parser.add_argument(
        "--liveness",
        action="store_true",
        help="pass when every probe is answered at all, whatever its time (the test suite)",
    )
    args = parser.parse_args(argv)
    min_seconds = 1.0 if args.quick else 3.0
    with tempfile.TemporaryDirectory() as folder, served_app() as (url, pid):
        all_cases = cases(Path(folder))
        warm = Client(url, verbose=False)
        for _ in range(3):
            send(warm, TRIVIAL, [])
        reference = Figures("reference", rss_before=rss_mb(pid))
        probe_while(lambda: False, url, pid, reference, min_seconds)
        settle = 0.3 if args.quick else 1.0
        rows = [run_case(case, url, pid, min_seconds, settle) for case in all_cases]
        print(report(reference, rows, args.liveness))
        term = sigterm_seconds(pid)
        print(f"\nSIGTERM to exit: {term:.2f} s (target < 5 s)")
    return 0 if all(row.ok(args.liveness) for row in rows) and term < 5 else 1


if __name__ == "__main__":
    sys.exit(main())
