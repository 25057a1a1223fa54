"""Load: many conversations at once for minutes, against a model that takes 1 s per call.

The app runs as `python app.py` in its own process, set up by its environment only; its model is
the local OpenAI-compatible test server answering every call after 1 s. N conversations (one
`gradio_client.Client` each) send turns back to back until the time is up; a conversation ends
after K turns and a new one takes its place, so sessions come and go as on a public page. The
second turn of each conversation, and every fifth after it, attaches an example image and asks
for a zoom: a tool call, an image made, two model calls (second, so that a short run on a loaded
machine has some). Each conversation's first turn says hello.

Recorded: turns and errors (a turn that failed or did not end with the expected answer, and
tracebacks in the app's log), p50/p95 turn time, the app's memory (RSS, sampled every second),
and the disk under the app's temporary folder (its sessions, traces and Gradio's cache) before
the load, at its end, and once the idle time has passed. The per-conversation turn limits are
off here (AGENT_TURNS_PER_MINUTE=0), and so are the address's and the server key's: a
conversation sends a turn a second, faster than a person, and every one is from 127.0.0.1.

Run from the repository root:

    .venv/bin/python bench/load.py            # 50 conversations for 5 minutes
    .venv/bin/python bench/load.py --quick    # 10 conversations for 20 s (what the test runs)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gradio_client import Client, handle_file

from tests.support import recorded_run
from tests.support.local import free_port
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parent.parent
IMAGE = ROOT / "assets" / "examples" / "label.png"
ANSWER = "hello"
ZOOM = (
    'Thought: look closer.\nAction: zoom\nAction Input: {"image_id": "img_1", "region": "top-left"}'
)
# Plain HTTP on 127.0.0.1; checking on, each request (gradio_client's too) first loads the
# system's certificates, 50 ms of this process's CPU, which the load's clients share.
VERIFY_TLS = False
# The app reads nothing else of the benchmark's environment that could change what it does.
_CLEARED = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID")


def reply(body: dict[str, Any]) -> str:
    """A zoom for a turn that asks for one, then the answer; the answer right away otherwise."""
    content = body["messages"][-1]["content"]
    if not isinstance(content, str):
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    if "Zoom" in content and not content.lstrip().startswith("Observation"):
        return ZOOM
    return f"Thought: done.\nAnswer: {ANSWER}"


@dataclass
class Run:
    conversations: int
    seconds: float
    turns_per_conversation: int
    idle_minutes: float
    turns: int = 0
    errors: list[str] = field(default_factory=list)
    # Each turn's seconds, and whether it was a zoom (two model calls) or not (one).
    turn_seconds: list[tuple[float, bool]] = field(default_factory=list)
    rss_mb: list[tuple[float, float]] = field(default_factory=list)
    disk: dict[str, tuple[int, int]] = field(default_factory=dict)
    swept_after: float | None = None
    log_tracebacks: int = 0
    # CPU seconds the app's process used during the load, and the machine's load average.
    app_cpu_seconds: float = 0.0
    driver_cpu_seconds: float = 0.0
    load_average: float = 0.0

    def percentile(self, q: float, zoom: bool | None = None) -> float:
        """Over all turns, or only the zoom turns (True) or only the others (False)."""
        ordered = sorted(s for s, kind in self.turn_seconds if zoom is None or kind == zoom)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    def memory(self) -> dict[str, float]:
        """RSS after warm-up (the median over 30-50 % of the load, when the first
        conversations have ended and new ones taken their place), over its last 20 %, the
        peak, and once the idle time has passed."""
        samples = [mb for t, mb in self.rss_mb if t <= self.seconds]
        n = len(samples)
        return {
            "after_warm_up_mb": statistics.median(samples[n * 3 // 10 : n // 2] or samples),
            "end_mb": statistics.median(samples[n * 8 // 10 :] or samples),
            "peak_mb": max(samples),
            "after_sweep_mb": self.rss_mb[-1][1],
        }


# onnxruntime writes one file of its own (a 51-byte session id) into the temp folder when an
# OCR worker first imports it, at whatever moment the warm-up reaches that: not the app's, and
# written once per process, so it is not counted.
NOT_THE_APPS = frozenset({".ses"})


def disk(root: Path) -> tuple[int, int]:
    """Bytes and files under `root` that the app made."""
    size = files = 0
    for base, _, names in os.walk(root):
        for name in names:
            if base == str(root) and name in NOT_THE_APPS:
                continue
            try:
                size += os.path.getsize(os.path.join(base, name))
                files += 1
            except FileNotFoundError:
                continue
    return size, files


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return kb / 1024


def start_app(
    model_url: str, temp: Path, idle_minutes: float, log: Path, recorded_ocr: bool = False
) -> tuple[Any, str]:
    """`python app.py`; with `recorded_ocr`, its text reading answers with the OCR engine's
    recorded replies (no turn here reads text): its workers load in no time."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env.update(
        OPENAI_BASE_URL=model_url,
        OPENAI_API_KEY="bench-key",
        AGENT_MODEL="test-model",
        AGENT_SESSION_IDLE_MINUTES=f"{idle_minutes:g}",
        AGENT_TURNS_PER_MINUTE="0",
        AGENT_CLIENT_TURNS_PER_MINUTE="0",
        AGENT_SERVER_TURNS_PER_MINUTE="0",
        # The scripted replies are ReAct text, read by the observation they end on.
        AGENT_TOOL_PROTOCOL="react",
        GRADIO_SERVER_NAME="127.0.0.1",
        GRADIO_SERVER_PORT=str(port),
        GRADIO_ANALYTICS_ENABLED="False",
        GRADIO_TEMP_DIR=str(temp / "gradio"),
        TMPDIR=str(temp),
        LOG_LEVEL="WARNING",
    )
    with log.open("wb") as out:
        script = str(ROOT / "app.py")
        command = recorded_run.command(script) if recorded_ocr else [script]
        process = subprocess.Popen(
            [sys.executable, *command], cwd=ROOT, env=env, stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{port}/"
    import httpx

    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited at start:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=2, verify=VERIFY_TLS).status_code == 200:
                return process, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.kill()
    raise RuntimeError("the app did not start within 3 minutes")


def answer_of(result: Any) -> str:
    content = result[0][-1]["content"] if result and result[0] else ""
    if isinstance(content, list):
        # The reply's words come first; images a tool made follow, each with its id.
        texts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("text")]
        return texts[0] if texts else ""
    return str(content)


def converse(url: str, run: Run, deadline: float, lock: threading.Lock) -> None:
    """Conversations one after another, K turns each, until the deadline."""
    while time.monotonic() < deadline:
        client = Client(
            url, verbose=False, download_files=False, analytics_enabled=False, ssl_verify=VERIFY_TLS
        )
        try:
            for number in range(run.turns_per_conversation):
                if time.monotonic() >= deadline:
                    break
                zoom = number % 5 == 1
                message = {"text": "Say hello.", "files": []}
                if zoom:
                    message = {"text": "Zoom into the top left", "files": [handle_file(str(IMAGE))]}
                started = time.perf_counter()
                try:
                    result = client.predict(message, api_name="/chat")
                    wrong = answer_of(result) != ANSWER
                    problem = f"turn ended with {answer_of(result)!r}" if wrong else ""
                except Exception as exc:
                    problem = f"{type(exc).__name__}: {exc}"
                took = time.perf_counter() - started
                with lock:
                    run.turns += 1
                    run.turn_seconds.append((took, zoom))
                    if problem:
                        run.errors.append(problem)
        finally:
            client.close()


def measure(
    conversations: int = 50,
    seconds: float = 300.0,
    turns_per_conversation: int = 10,
    idle_minutes: float = 0.5,
    delay: float = 1.0,
    warm_seconds: float = 8.0,
    recorded_ocr: bool = False,
) -> Run:
    run = Run(conversations, seconds, turns_per_conversation, idle_minutes)
    temp = Path(tempfile.mkdtemp(prefix="agent-load-"))
    log = temp.parent / f"{temp.name}.log"
    with OpenAIServer(replies=reply, delay=delay) as server:
        process, url = start_app(server.base_url, temp, idle_minutes, log, recorded_ocr)
        try:
            run.disk["before"] = disk(temp)
            # One conversation's turns first: imports, connections and the OCR warm-up. Its
            # files go with the rest.
            warm = Run(1, 0, 5, idle_minutes)
            converse(url, warm, time.monotonic() + warm_seconds, threading.Lock())
            started, cpu_before = time.monotonic(), cpu_seconds(process.pid)
            driver_before = time.process_time()
            stop = threading.Event()

            def sample() -> None:
                while not stop.is_set():
                    run.rss_mb.append((time.monotonic() - started, rss_mb(process.pid)))
                    stop.wait(1.0)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            lock, deadline = threading.Lock(), started + seconds
            workers = [
                threading.Thread(target=converse, args=(url, run, deadline, lock), daemon=True)
                for _ in range(conversations)
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            run.app_cpu_seconds = cpu_seconds(process.pid) - cpu_before
            run.driver_cpu_seconds = time.process_time() - driver_before
            run.load_average = os.getloadavg()[1]
            run.disk["end_of_load"] = disk(temp)
            ended = time.monotonic()
            # Idle time, a sweep interval and Gradio's cache interval, with room to spare.
            limit = ended + idle_minutes * 60 * 2 + 60
            while disk(temp) != run.disk["before"] and time.monotonic() < limit:
                time.sleep(0.5)
            run.swept_after = time.monotonic() - ended
            run.disk["after_idle"] = disk(temp)
            stop.set()
            sampler.join()
            run.rss_mb.append((time.monotonic() - started, rss_mb(process.pid)))
        finally:
            process.terminate()
            process.wait(timeout=30)
            shutil.rmtree(temp, ignore_errors=True)
    text = log.read_text(errors="replace")
    run.log_tracebacks = text.count("Traceback")
    if not run.log_tracebacks:
        log.unlink()
    return run


def report(run: Run) -> str:
    memory = run.memory()
    mb = {k: f"{v:.0f} MB" for k, v in memory.items()}
    kinds = sorted(set(run.errors))[:5]
    lines = [
        f"{run.conversations} conversations for {run.seconds:g} s, model delay 1 s per call, "
        f"{run.turns_per_conversation} turns per conversation, idle time {run.idle_minutes:g} min",
        f"turns: {run.turns}, errors: {len(run.errors)}, tracebacks in the app's log: "
        f"{run.log_tracebacks}" + (f" ({'; '.join(kinds)})" if kinds else ""),
        f"turn time: p50 {run.percentile(0.50):.2f} s, p95 {run.percentile(0.95):.2f} s "
        f"(one model call: p50 {run.percentile(0.5, False):.2f} s, p95 "
        f"{run.percentile(0.95, False):.2f} s; a zoom, two calls: p50 "
        f"{run.percentile(0.5, True):.2f} s, p95 {run.percentile(0.95, True):.2f} s)",
        f"app memory (RSS): after warm-up {mb['after_warm_up_mb']}, at the end {mb['end_mb']}, "
        f"peak {mb['peak_mb']}, after the sweep {mb['after_sweep_mb']}",
        f"CPU in {run.seconds:g} s of load: the app {run.app_cpu_seconds:.0f} s "
        f"({run.app_cpu_seconds / run.seconds:.0%} of one core), this process (the clients and "
        f"the model server) {run.driver_cpu_seconds:.0f} s; machine load average "
        f"{run.load_average:.1f} over the last 5 minutes on {os.cpu_count()} cores",
    ]
    for name, (size, files) in run.disk.items():
        lines.append(f"disk {name.replace('_', ' ')}: {size / 1e6:.2f} MB in {files} files")
    lines.append(f"back to the baseline {run.swept_after:.0f} s after the load ended")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 conversations for 20 s")
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    quick = {"conversations": 10, "seconds": 20.0, "turns_per_conversation": 5}
    settings = {**quick, "idle_minutes": 0.1} if args.quick else {}
    if args.conversations:
        settings["conversations"] = args.conversations
    if args.seconds:
        settings["seconds"] = args.seconds
    run = measure(**settings)
    print(report(run))
    if args.json:
        figures = asdict(run) | {"memory": run.memory(), "p50": run.percentile(0.5)}
        args.json.write_text(json.dumps(figures | {"p95": run.percentile(0.95)}, indent=2))


if __name__ == "__main__":
    main()
