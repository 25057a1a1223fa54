"""What taking a message apart from its turn buys: the input empties while the queue is full.

The page sends a message in two steps, as Gradio's ChatInterface does: a short request outside
the queue takes it out of the input (and the page saves it), then the queued turn runs from the
copy. One event could do both, its first update emptying the input. Both ways are built here as
bare Gradio pages with one turn at a time, and timed in Chromium from the press of Enter to the
input being empty, first with the queue free, then while another tab's turn holds the one place
in it for HOLD seconds. Where the split buys nothing measured, one event would do.

Run from the repository root:

    .venv/bin/python bench/take_split.py
    .venv/bin/python bench/take_split.py --tries 10 --hold 2

It uses Debian's /usr/bin/chromium (CHROMIUM overrides the path).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr
from playwright.sync_api import Page, sync_playwright

from tests.support.local import CHROMIUM, CHROMIUM_FLAGS, serve

# Resolves with the milliseconds from sending to an empty input, read in the page.
_PRESS_AND_WATCH = """
(timeoutMs) => new Promise((resolve, reject) => {
    const box = document.querySelector('#input textarea');
    const send = document.querySelector('#input button.submit-button');
    const start = performance.now();
    const look = () => {
        if (box.value === '') { resolve(performance.now() - start); return; }
        if (performance.now() - start > timeoutMs) { reject(new Error('still full')); return; }
        requestAnimationFrame(look);
    };
    send.click();
    requestAnimationFrame(look);
})
"""


def _reply(text: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": text}]


def one_event(hold: float) -> gr.Blocks:
    async def turn(message: dict | None) -> AsyncIterator[tuple]:
        text = str((message or {}).get("text") or "")
        yield gr.MultimodalTextbox(value=None), _reply(f"working on {text}")
        await asyncio.sleep(hold)
        yield gr.skip(), _reply(f"done: {text}")

    with gr.Blocks(title="one event") as demo:
        trace = gr.Chatbot(elem_id="trace")
        box = gr.MultimodalTextbox(elem_id="input", show_label=False)
        box.submit(turn, box, [box, trace], concurrency_limit=1, show_progress="hidden")
    return demo


def split(hold: float) -> gr.Blocks:
    def take(message: dict | None) -> tuple:
        return gr.MultimodalTextbox(value=None), message

    async def turn(message: dict | None) -> AsyncIterator[list[dict[str, Any]]]:
        text = str((message or {}).get("text") or "")
        yield _reply(f"working on {text}")
        await asyncio.sleep(hold)
        yield _reply(f"done: {text}")

    with gr.Blocks(title="take, then run") as demo:
        trace = gr.Chatbot(elem_id="trace")
        box = gr.MultimodalTextbox(elem_id="input", show_label=False)
        taken = gr.State()
        box.submit(take, box, [box, taken], queue=False, show_progress="hidden").then(
            turn, taken, trace, concurrency_limit=1, show_progress="hidden"
        )
    return demo


def emptied_ms(page: Page, text: str) -> float:
    page.fill("#input textarea", text)
    return page.evaluate(_PRESS_AND_WATCH, 30_000)


def start_other_turn(other: Page, n: int) -> None:
    """Another tab's turn, holding the one place in the queue once it is running."""
    other.fill("#input textarea", f"other {n}")
    other.press("#input textarea", "Enter")
    other.wait_for_function(
        "n => document.querySelector('#trace').innerText.includes('working on other ' + n)", arg=n
    )


def measure(tries: int, hold: float) -> dict[tuple[str, bool], list[float]]:
    pages = {"one event": one_event(hold), "take, then run": split(hold)}
    times: dict[tuple[str, bool], list[float]] = {}
    try:
        urls = {name: serve(demo) for name, demo in pages.items()}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            for n in range(tries):
                for name, url in urls.items():
                    for busy in (False, True):
                        mine, other = browser.new_page(), browser.new_page()
                        for page in (mine, other):
                            page.goto(url)
                            page.wait_for_selector("#input textarea")
                        if busy:
                            start_other_turn(other, n)
                        times.setdefault((name, busy), []).append(emptied_ms(mine, f"mine {n}"))
                        mine.wait_for_function(
                            "t => document.querySelector('#trace').innerText.includes(t)",
                            arg=f"done: mine {n}",
                            timeout=4 * hold * 1000 + 10_000,
                        )
                        mine.close()
                        other.close()
            browser.close()
        return times
    finally:
        for demo in pages.values():
            demo.close()


def report(times: dict[tuple[str, bool], list[float]], hold: float) -> str:
    lines = [
        f"Enter -> empty input, Chromium, one turn at a time; busy = another tab's {hold:g} s turn",
        "holds the queue (ms, median of each)",
        "",
        f"{'page':<16} {'queue free':>11} {'queue busy':>11}",
    ]
    for name in ("one event", "take, then run"):
        free = statistics.median(times[(name, False)])
        busy = statistics.median(times[(name, True)])
        lines.append(f"{name:<16} {free:>11.1f} {busy:>11.1f}")
    one = statistics.median(times[("one event", True)])
    two = statistics.median(times[("take, then run", True)])
    lines += ["", f"busy queue: one event / take, then run = {one / two:.1f}x"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=5, help="timed tries per page and case")
    parser.add_argument("--hold", type=float, default=2.0, help="seconds the other turn takes")
    args = parser.parse_args(argv)
    print(report(measure(args.tries, args.hold), args.hold))


if __name__ == "__main__":
    main()
