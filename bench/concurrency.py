"""How the page holds up under parallel conversations, beside a bare page making the same call.

A local OpenAI-compatible server answers every call after a fixed delay (3 s) with a reply that
ends a turn in one model call. N conversations (one `gradio_client.Client` each) send a message
at once, and the wall time until all have their answer is taken for N = 1 and N = 16, first
through the app as `python app.py` sets it up (its `main()`, queue included), then through a bare
page whose one async generator relays the same `OpenAIChatModel` call and streams its text. The
bare page is queued the Gradio default way, with the app's concurrency limit on its event.

If nothing serialises the turns, 16 take about as long as 1; a limit of 1 (Gradio's default)
makes it about 16 times as long. The figure that matters is the app's slowdown N16/N1 divided by
the bare page's: the target is at most 1.10.

Run from the repository root:

    /work/venv/bin/python bench/concurrency.py
    /work/venv/bin/python bench/concurrency.py --repeat 3 --gradio-default   # + limit-1 page

Everything runs in this process: the model server and the pages each in their own thread.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr
from gradio_client import Client

from agent.models import OpenAIChatModel
from bench.bare_page import relay_page, serve
from tests.support.openai_server import OpenAIServer

REPLY = "Thought: done\nAnswer: hello"
ANSWER = "hello"
MODEL = "test-model"
TARGET = 1.10
# Settings of the environment that choose or shape the model; the app gets only ours.
_MODEL_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN")


# -- the pages ----------------------------------------------------------------------------------


def app_from_main(env: dict[str, str]) -> tuple[gr.Blocks, dict[str, Any]]:
    """The page exactly as `app.main()` builds and queues it, and the launch arguments it gives.

    `main()` runs with `env` as its environment and `launch` intercepted, so the benchmark serves
    the same page `python app.py` would, only on a port of its choosing.
    """
    import app

    seen: dict[str, Any] = {}

    def intercept(self: gr.Blocks, *args: Any, **kwargs: Any) -> None:
        seen.update(demo=self, launch=kwargs)

    cleared = {name: "" for name in _MODEL_ENV}
    with (
        mock.patch.dict(os.environ, {**cleared, "LOG_LEVEL": "WARNING", **env}),
        mock.patch.object(gr.Blocks, "launch", intercept),
        # `main()` returns at once here, and its run would remove the folders the page serves
        # from; the benchmark's process ends them itself.
        mock.patch.object(app.process_folders, "running", contextlib.nullcontext),
    ):
        for name in _MODEL_ENV:
            if name not in env:
                del os.environ[name]
        app.main()
    launch = dict(seen["launch"])
    for name in ("server_name", "server_port"):
        launch.pop(name, None)
    return seen["demo"], launch


def chat_concurrency(demo: gr.Blocks) -> int | None:
    """How many `/chat` turns the running page lets run at once (None: no limit)."""
    fn = next(f for f in demo.fns.values() if f.api_name == "chat")
    queues = demo._queue.event_queue_per_concurrency_id
    if fn.concurrency_id in queues:
        return queues[fn.concurrency_id].concurrency_limit
    if fn.concurrency_limit == "default":
        return demo._queue.default_concurrency_limit
    return fn.concurrency_limit


@dataclass
class Page:
    name: str
    url: str
    payload: Any
    answer_of: Callable[[Any], str]
    demo: gr.Blocks
    limit: int | None = None


def app_answer(result: Any) -> str:
    """The last chat message's text; the API gives content as a string or as typed parts."""
    chat = result[0]
    if not chat:
        return ""
    content = chat[-1]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def bare_answer(result: Any) -> str:
    text = str(result)
    return text.split("Answer:", 1)[-1].strip()


def start_app(base_url: str) -> Page:
    env = {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "bench-key", "AGENT_MODEL": MODEL}
    demo, launch = app_from_main(env)
    url = serve(demo, **launch)
    payload = {"text": "Say hello.", "files": []}
    return Page("app", url, payload, app_answer, demo, chat_concurrency(demo))


def start_bare(base_url: str, limit: int | str | None, name: str = "bare") -> Page:
    def make_model() -> OpenAIChatModel:
        return OpenAIChatModel(model=MODEL, base_url=base_url, api_key="bench-key", max_retries=0)

    demo = relay_page(make_model, limit)
    url = serve(demo)
    return Page(name, url, "Say hello.", bare_answer, demo, chat_concurrency(demo))


# -- driving them ------------------------------------------------------------------------------


@contextlib.contextmanager
def clients(url: str, n: int) -> Iterator[list[Client]]:
    """`n` fresh conversations, connected before the clock starts."""

    def connect(_: int) -> Client:
        return Client(url, verbose=False, download_files=False, analytics_enabled=False)

    with ThreadPoolExecutor(max_workers=min(n, 8)) as pool:
        made = list(pool.map(connect, range(n)))
    try:
        yield made
    finally:
        for client in made:
            client._kill_heartbeat.set()


def conversations(page: Page, n: int, timeout: float = 120.0) -> float:
    """Wall seconds for `n` conversations to send one message each at once and all be answered."""
    with clients(page.url, n) as made:
        start = time.perf_counter()
        jobs = [client.submit(page.payload, api_name="/chat") for client in made]
        results = [job.result(timeout=timeout) for job in jobs]
        wall = time.perf_counter() - start
    wrong = [page.answer_of(r) for r in results if page.answer_of(r) != ANSWER]
    if wrong:
        raise RuntimeError(f"{page.name}: {len(wrong)} of {n} turns ended with {wrong[0]!r}.")
    return wall


@dataclass
class Row:
    page: str
    limit: int | None
    walls: dict[int, list[float]] = field(default_factory=dict)

    def wall(self, n: int) -> float:
        return statistics.median(self.walls[n])

    def slowdown(self, low: int, high: int) -> float:
        return self.wall(high) / self.wall(low)


def measure(
    n: int = 16, delay: float = 3.0, repeat: int = 1, gradio_default: bool = False
) -> list[Row]:
    """Wall times at 1 and `n` conversations for the app and the bare page(s), same run."""
    sizes = (1, n)
    with OpenAIServer(replies=lambda body: REPLY, delay=delay, chunk_size=4) as server:
        pages = [start_app(server.base_url)]
        try:
            pages.append(start_bare(server.base_url, pages[0].limit))
            if gradio_default:
                pages.append(start_bare(server.base_url, "default", "bare, Gradio default"))
            # One untimed turn each with no model delay: first-call imports and connections.
            server.delay = 0.0
            for page in pages:
                conversations(page, 1)
            server.delay = delay
            rows = {page.name: Row(page.name, page.limit) for page in pages}
            # Sizes outside, pages inside: each round of the two pages sees the same machine.
            for _ in range(repeat):
                for size in sizes:
                    for page in pages:
                        rows[page.name].walls.setdefault(size, []).append(conversations(page, size))
            return list(rows.values())
        finally:
            for page in pages:
                page.demo.close()


def report(rows: list[Row], n: int = 16, delay: float = 3.0) -> str:
    lines = [
        f"{n} vs 1 parallel conversations, model delay {delay:g} s per call, one call per turn",
        "",
        f"{'page':<22} {'limit':>6} {'N':>3} {'wall s':>8} {'slowdown N' + str(n) + '/N1':>16}",
    ]
    for row in rows:
        limit = "none" if row.limit is None else str(row.limit)
        for size in sorted(row.walls):
            slow = f"{row.slowdown(1, n):.2f}x" if size == n else ""
            lines.append(f"{row.page:<22} {limit:>6} {size:>3} {row.wall(size):>8.2f} {slow:>16}")
    by_name = {row.page: row for row in rows}
    ratio = by_name["app"].slowdown(1, n) / by_name["bare"].slowdown(1, n)
    verdict = "meets" if ratio <= TARGET else "misses"
    lines += [
        "",
        f"app slowdown / bare slowdown = {ratio:.3f} ({verdict} the target of {TARGET:.2f})",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=16, help="parallel conversations (vs 1)")
    parser.add_argument("--delay", type=float, default=3.0, help="model delay per call, seconds")
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the median is shown")
    parser.add_argument(
        "--gradio-default",
        action="store_true",
        help="also a bare page with Gradio's default concurrency limit (slow: about N x delay)",
    )
    args = parser.parse_args(argv)
    rows = measure(args.n, args.delay, args.repeat, args.gradio_default)
    print(report(rows, args.n, args.delay))


if __name__ == "__main__":
    main()
