"""Serving a page on this machine and driving it with Debian's Chromium (tests, benchmarks)."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from typing import Any

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# The network here is closed: without these, Chromium keeps trying to reach Google's hosts.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # A tab a test hands back leaves the page for another: nothing of it is kept alive.
    "--disable-back-forward-cache",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(demo: Any, **launch: Any) -> str:
    """Launch a Gradio `demo` in this process on a free local port and return its URL;
    `demo.close()` ends it."""
    launch.setdefault("server_name", "127.0.0.1")
    launch.setdefault("server_port", free_port())
    launch.update(prevent_thread_lock=True, quiet=True, share=False, inbrowser=False)
    demo.launch(**launch)
    return f"http://127.0.0.1:{launch['server_port']}/"


# Gradio's progress tracker counts a pending event's seconds on every frame until the event
# ends. The one shown while the app loads is taken off the page in the same moment the load
# ends, before it sees the end: its count goes on, for nothing, at 60 frames a second for as
# long as the page is open, most of what an idle page costs the renderer (0.08 of a core).
# This ends that one loop once the app has loaded (Gradio then names the page's session);
# every tracker of the app itself counts as before.
CALM_TRACKERS = """(() => {
  const frame = window.requestAnimationFrame.bind(window);
  let loading = false;
  window.requestAnimationFrame = (callback) => {
    const loaded = window.__gradio_session_hash__ !== undefined;
    if (!loading && (loaded || !/statustracker[^/]*\\.js/.test(new Error().stack || ""))) {
      return frame(callback);
    }
    if (loaded) return 0;
    return frame((time) => {
      loading = true;
      try { callback(time); } finally { loading = false; }
    });
  };
})();"""


# Gradio pulses and slides what a pending event shows, and the renderer draws every frame of it
# for as long as the event runs. Tests read the state the page comes to, never its motion.
STILL = """addEventListener("DOMContentLoaded", () => {
  const still = document.createElement("style");
  still.textContent = "*,*::before,*::after{animation:none!important;transition:none!important}";
  document.head.appendChild(still);
});"""


@contextlib.contextmanager
def launched_chromium() -> Iterator[Any]:
    """Debian's Chromium through Playwright, with the flags this machine needs; closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        new_context = browser.new_context

        def calm_context(*args: Any, **kwargs: Any) -> Any:
            context = new_context(*args, **kwargs)
            context.add_init_script(CALM_TRACKERS)
            context.add_init_script(STILL)
            return context

        browser.new_context = calm_context  # type: ignore[method-assign]
        try:
            yield browser
        finally:
            browser.close()


DESKTOP = {"width": 1400, "height": 1000}


def open_page(browser: Any, url: str, locale: str = "en-US", viewport: Any = None) -> Any:
    """The page at `url` (at a desktop's size unless `viewport` says) in a context of its own,
    once it has finished loading: its input is there and the conversation the tab had is back,
    which the page's script marks by naming the tab's conversation in its sessionStorage.
    Closing its context hands the tab back, emptied, for the next one (`kept_pages`)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from tests.support import kept_pages
    from ui.conversations.panel import STORAGE_PREFIX

    for reuse in (True, False):
        page = kept_pages.take(browser, locale, viewport or DESKTOP, reuse=reuse)
        page.set_default_timeout(30_000)
        page.goto(url)
        page.wait_for_selector("#input textarea")
        try:
            # A tab handed back has, twice in many runs, never finished loading the page
            # again; a fresh context then does, so that one stuck tab fails no test.
            page.wait_for_function(
                "key => sessionStorage.getItem(key) !== null",
                arg=STORAGE_PREFIX + "current",
                timeout=45_000 if reuse else 90_000,
            )
            return page
        except PlaywrightTimeout:
            if not reuse:
                raise
            kept_pages.discard(page)
    raise AssertionError("unreachable")
