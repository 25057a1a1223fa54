"""Time from pressing send to the first step in the trace panel, beside a bare Gradio page.

Chromium (Playwright) opens the app as `python app.py` sets it up (its `main()`, with the offline
model, so the model takes no time) and a bare page whose generator puts one message into a
chatbot `#trace`. For each try the page is loaded afresh, a MutationObserver is set on `#trace`,
and the send button is clicked; both moments are read in the browser with `performance.now()`,
so the figure is what a person sees, not Python timers across processes. The pages take turns,
try by try, so a busy machine slows both alike. Target: the app's median within 50 ms of the bare
page's.

Run from the repository root:

    /work/venv/bin/python bench/first_event.py
    /work/venv/bin/python bench/first_event.py --tries 20 --headed   # watch it

It uses Debian's /usr/bin/chromium (CHROMIUM overrides the path).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from playwright.sync_api import Page, sync_playwright

from bench.bare_page import serve, trace_page
from bench.concurrency import app_from_main
from tests.support.local import CHROMIUM, CHROMIUM_FLAGS

QUESTION = "What is 12 * 7?"
TARGET_MS = 50.0
SETTLE_MS = 500
# Resolves with [click time, time #trace first holds a message], both from performance.now().
# The observer is in place before the click; a message is a rendered chat bubble, not the
# placeholder or a progress overlay.
_PRESS_AND_WATCH = """
([selector, timeoutMs]) => new Promise((resolve, reject) => {
    const trace = document.querySelector('#trace');
    const button = document.querySelector('#input button.submit-button');
    if (!trace || !button) { reject(new Error('no #trace or send button')); return; }
    let clicked = null;
    const observer = new MutationObserver(() => {
        if (clicked !== null && trace.querySelector(selector)) {
            const seen = performance.now();
            observer.disconnect();
            resolve([clicked, seen]);
        }
    });
    observer.observe(trace, {childList: true, subtree: true});
    setTimeout(() => { observer.disconnect(); reject(new Error('no step within timeout')); },
               timeoutMs);
    clicked = performance.now();
    button.click();
})
"""
MESSAGE = ".message-row"


@dataclass
class Side:
    name: str
    url: str
    times: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def p90(self) -> float:
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def first_step_ms(page: Page, url: str, timeout_ms: float = 15000) -> float:
    page.goto(url, wait_until="load")
    box = page.locator("#input textarea")
    box.wait_for()
    box.fill(QUESTION)
    # A person reads the page before sending; the page's own loading work is not timed.
    page.wait_for_timeout(SETTLE_MS)
    clicked, seen = page.evaluate(_PRESS_AND_WATCH, [MESSAGE, timeout_ms])
    # Let the turn finish so its work does not spill into the next try.
    page.wait_for_timeout(300)
    return seen - clicked


def measure(tries: int = 10, warmup: int = 2, headed: bool = False) -> list[Side]:
    app_demo, launch = app_from_main({})
    bare_demo = trace_page()
    try:
        sides = [Side("app", serve(app_demo, **launch)), Side("bare", serve(bare_demo))]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=not headed, args=CHROMIUM_FLAGS
            )
            page = browser.new_page()
            for attempt in range(warmup + tries):
                for side in sides:
                    ms = first_step_ms(page, side.url)
                    if attempt >= warmup:
                        side.times.append(ms)
            browser.close()
        return sides
    finally:
        app_demo.close()
        bare_demo.close()


def report(sides: list[Side]) -> str:
    lines = [
        "send -> first step in #trace, measured in Chromium (ms)",
        "",
        f"{'page':<6} {'tries':>5} {'median':>8} {'p90':>8} {'min':>8} {'max':>8}",
    ]
    for s in sides:
        lines.append(
            f"{s.name:<6} {len(s.times):>5} {s.median:>8.1f} {s.p90:>8.1f} "
            f"{min(s.times):>8.1f} {max(s.times):>8.1f}"
        )
    by_name = {s.name: s for s in sides}
    gap = by_name["app"].median - by_name["bare"].median
    verdict = "meets" if gap <= TARGET_MS else "misses"
    lines += ["", f"app - bare (median) = {gap:+.1f} ms ({verdict} the target of {TARGET_MS:g} ms)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=10, help="timed tries per page")
    parser.add_argument("--warmup", type=int, default=2, help="untimed tries per page first")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    args = parser.parse_args(argv)
    print(report(measure(args.tries, args.warmup, args.headed)))


if __name__ == "__main__":
    main()
