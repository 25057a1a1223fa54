"""No single input stalls the server: hostile inputs against `python app.py`, with figures.

The app runs as its own process (offline model), as a Space runs it, with the weather plugin
pointed at a server on 127.0.0.1 that counts requests and with AGENT_APPROVAL=never. For each
hostile input (`bench/stall_cases.py`: messages, images, scenario files, conversation files, a
raw 30 MB body, `/ask` asking for more approval than the operator allows, and a session whose
settings point at a hostile model, `bench/hostile_model.py`), one client sends it while a
second keeps running a trivial turn ("What is 2 + 2?") in another session and a third keeps
asking `/gradio_api/info`. Printed per input: how it ended and how long it took, the worst
trivial-turn and info latency while it ran, the server's memory (peak and after, against the
baseline before it), and the requests the weather server got ("out"). The reference is the
same two latencies with nothing else running, measured first in the same run. Last, SIGTERM
must end the server within 5 s, a client still connected.

Targets (issue "One gate for untrusted input"): trivial turn < 1 s, info < 0.5 s, memory
rise < 300 MB at its peak and < 100 MB once the input is done, no outbound request.

    .venv/bin/python bench/stall.py            # every input
    .venv/bin/python bench/stall.py --quick    # one input of each kind, shorter probes
    .venv/bin/python bench/stall.py --quick --liveness --recorded-ocr  # what the tests run
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

from gradio_client import Client

from bench.stall_cases import (
    CASE_LIMIT,
    TRIVIAL,
    VERIFY_TLS,
    Case,
    OutboundCounter,
    Served,
    cases,
    chat_turn,
)
from tests.support import recorded_run
from tests.support.local import free_port

ROOT = Path(__file__).resolve().parent.parent
TURN_TARGET, INFO_TARGET, MEMORY_TARGET_MB, KEPT_TARGET_MB = 1.0, 0.5, 300, 100
BENCH_FAILED = "bench failed:"  # the input could not be sent: the page changed, not held


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
    outbound: int = 0  # requests the weather server got, which the operator's policy forbids

    @property
    def worst_turn(self) -> float:
        return max(self.turn_s, default=0.0)

    @property
    def worst_info(self) -> float:
        return max(self.info_s, default=0.0)

    def ok(self, liveness: bool = False) -> bool:
        """Within the targets; with `liveness`, only served at all: every trivial turn and
        info request answered (within 10 s), which a stalled server cannot do. The test suite
        checks liveness, since a test's timing on a shared machine proves nothing; memory and
        outbound requests are checked either way, memory kept only with time to settle."""
        if liveness:
            turn_ok = bool(self.turn_s) and self.worst_turn != float("inf")
            info_ok = bool(self.info_s) and self.worst_info != float("inf")
            kept_ok = True
        else:
            turn_ok, info_ok = self.worst_turn < TURN_TARGET, self.worst_info < INFO_TARGET
            kept_ok = self.rss_after - self.rss_before < KEPT_TARGET_MB
        peak_ok = self.rss_peak - self.rss_before < MEMORY_TARGET_MB
        sent = not self.outcome.startswith(BENCH_FAILED)
        return turn_ok and info_ok and peak_ok and kept_ok and self.outbound == 0 and sent


@contextlib.contextmanager
def served_app(
    weather_url: str, log_path: str | None = None, recorded_ocr: bool = False
) -> Iterator[tuple[str, int]]:
    port = free_port()
    drop = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HF_TOKEN", "AGENT_MODEL", "AGENT_PUBLIC")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    # The probing client sends turns faster than a person; the turn limits are off here.
    env.update(
        GRADIO_SERVER_PORT=str(port),
        LOG_LEVEL="WARNING",
        GRADIO_ANALYTICS_ENABLED="0",
        AGENT_TURNS_PER_MINUTE="0",
        AGENT_CLIENT_TURNS_PER_MINUTE="0",
        AGENT_SERVER_TURNS_PER_MINUTE="0",
        AGENT_ENABLE_WEATHER="1",
        WEATHER_BASE_URL=weather_url,
        AGENT_APPROVAL="never",
    )
    # Its log goes to a file: a pipe nobody reads would fill and block the server's logging.
    log = open(log_path, "w+b") if log_path else tempfile.TemporaryFile()  # noqa: SIM115
    script = str(ROOT / "app.py")
    process = subprocess.Popen(
        [sys.executable, *(recorded_run.command(script) if recorded_ocr else [script])],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                ready = httpx.get(url + "gradio_api/info", timeout=2, verify=VERIFY_TLS)
                if ready.status_code == 200:
                    break
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(log.read().decode(errors="replace")[-2000:])
            time.sleep(0.3)
        yield url, process.pid
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        log.close()


@contextlib.contextmanager
def hostile_model() -> Iterator[str]:
    """The hostile model's base URL, served by `bench/hostile_model.py` in its own process."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "hostile_model.py")],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # a client that leaves mid-reply is no news here
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().decode().strip()
        if not url:
            raise RuntimeError("the hostile model server did not start")
        yield url
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def timed(fn: Callable[[], object]) -> float:
    """Seconds `fn` took; a failure (a stalled server's timeout) counts as forever."""
    started = time.perf_counter()
    try:
        fn()
    except Exception:
        return float("inf")
    return time.perf_counter() - started


def probe_while(
    running: Callable[[], bool],
    client: Client,
    pid: int,
    figures: Figures,
    min_seconds: float,
) -> None:
    """Trivial turns (from `client`, in a new conversation), info requests and memory
    samples until the hostile input is done."""
    client.reset_session()
    url = client.src
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
                timed(
                    lambda: httpx.get(
                        url + "gradio_api/info", timeout=10, verify=VERIFY_TLS
                    ).raise_for_status()
                )
            )
            time.sleep(0.2)

    watchers = [threading.Thread(target=memory), threading.Thread(target=info)]
    for thread in watchers:
        thread.start()
    while running() or time.monotonic() < stop_at:
        started = time.perf_counter()
        reply = chat_turn(client, TRIVIAL, [], timeout=10)
        took = time.perf_counter() - started
        figures.turn_s.append(took if "4" in reply else float("inf"))
    for thread in watchers:
        thread.join()


def run_case(
    case: Case, served: Served, probe: Client, min_seconds: float, settle: float = 1.0
) -> Figures:
    figures = Figures(case.name, rss_before=rss_mb(served.pid))
    figures.rss_peak = figures.rss_before
    outbound = served.outbound.count
    outcomes: list[str] = []
    ended: list[float] = []
    started = time.perf_counter()

    def hostile() -> None:
        try:
            outcomes.append(case.send(served))
        except Exception as exc:  # the bench's own failure shows in the table, not as a hang
            outcomes.append(f"{BENCH_FAILED} {type(exc).__name__}: {exc}"[:120])
        ended.append(time.perf_counter())

    senders = [threading.Thread(target=hostile) for _ in range(case.senders)]
    for thread in senders:
        thread.start()
    running = lambda: any(t.is_alive() for t in senders)  # noqa: E731
    probe_while(running, probe, served.pid, figures, min_seconds)
    figures.hostile_s = max(ended, default=time.perf_counter()) - started
    figures.outcome = outcomes[0] if outcomes else "no reply"
    time.sleep(settle)  # for the memory the input leaves behind
    figures.rss_after = rss_mb(served.pid)
    figures.outbound = served.outbound.count - outbound
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
        f"{'input':<25} {'turn ms':>8} {'x ref':>6} {'info ms':>8} {'+peak MB':>9} "
        f"{'+after MB':>9} {'out':>4} {'input s':>7}  outcome",
    ]
    for row in rows:
        ratio = row.worst_turn / max(reference.worst_turn, 1e-3)
        lines.append(
            f"{row.name:<25} {row.worst_turn * 1000:>8.0f} {ratio:>6.1f} "
            f"{row.worst_info * 1000:>8.0f} {row.rss_peak - row.rss_before:>9.0f} "
            f"{row.rss_after - row.rss_before:>9.0f} {row.outbound:>4} {row.hostile_s:>7.1f}  "
            f"{'ok ' if row.ok(liveness) else 'BAD'} {row.outcome}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one input of each kind (CI)")
    parser.add_argument(
        "--liveness",
        action="store_true",
        help="pass when every probe is answered at all, whatever its time (the test suite)",
    )
    parser.add_argument("--only", metavar="TEXT", help="only the inputs whose name holds TEXT")
    parser.add_argument("--server-log", metavar="PATH", help="keep the server's log in PATH")
    ocr_help = "the OCR engine's recorded replies, which load at once (the test suite)"
    parser.add_argument("--recorded-ocr", action="store_true", help=ocr_help)
    args = parser.parse_args(argv)
    min_seconds, settle = (0.5, 0.2) if args.quick else (3.0, 1.0)
    outbound = OutboundCounter()
    all_cases: list[Case] = []
    try:
        with tempfile.TemporaryDirectory() as folder, hostile_model() as model_url:
            # The inputs are made while the server starts (the PNG bomb alone takes seconds).
            making = threading.Thread(
                target=lambda: all_cases.extend(cases(Path(folder), args.quick, args.only))
            )
            making.start()
            with contextlib.ExitStack() as stack:
                stack.callback(making.join)  # before the folder goes, whatever happens
                app = served_app(outbound.url, args.server_log, args.recorded_ocr)
                url, pid = stack.enter_context(app)
                making.join()
                served = Served(url, pid, model_url, outbound)
                probe = Client(url, verbose=False, ssl_verify=VERIFY_TLS)
                for _ in range(3):
                    chat_turn(probe, TRIVIAL, [])
                reference = Figures("reference", rss_before=rss_mb(pid))
                probe_while(lambda: False, probe, pid, reference, min_seconds)
                rows = [run_case(case, served, probe, min_seconds, settle) for case in all_cases]
                print(report(reference, rows, args.liveness))
                # As a Space is stopped: with a visitor still connected (the probing client).
                term = sigterm_seconds(pid)
                print(f"\nSIGTERM to exit, a client connected: {term:.2f} s (target < 5 s)")
                probe.close()
    finally:
        outbound.close()
    return 0 if all(row.ok(args.liveness) for row in rows) and term < 5 else 1


if __name__ == "__main__":
    sys.exit(main())
