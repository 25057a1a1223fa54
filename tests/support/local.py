"""Serving a page on this machine and driving it with Debian's Chromium (tests, benchmarks)."""

from __future__ import annotations

import os
import socket
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
