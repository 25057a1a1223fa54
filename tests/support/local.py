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


@contextlib.contextmanager
def launched_chromium() -> Iterator[Any]:
    """Debian's Chromium through Playwright, with the flags this machine needs; closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
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
