"""What keeping conversations costs a turn: a browser that keeps 10 conversations of 30 turns
each, beside a fresh browser, answering the same questions.

The app runs as `python app.py` sets it up (its `main()`, with the offline model), and Chromium
(Playwright) opens it. The kept conversations are made once, in this process, by running their
turns through the page's handlers with the offline model (sums, conversions, an image zoomed or
measured every few turns), and written into each "kept" browser's storage in the format of the
page under test, before its page opens; the page then opens in a tab of its own, so its
conversation is a new one and the kept ones are listed. A "fresh" browser has nothing stored.

For each try a new browser (context) is used; the two kinds take turns, try by try, so a busy
machine slows both alike. A text question and an image question are timed from the press of
the send button to the turn's end on the page (the answer shown, the status line saying how
many model calls it took), in the browser with `performance.now()`. Chromium counts the bytes
each way while the page loads and during each turn (request bodies up; response bodies down,
the event streams included), until the network has been quiet for half a second (two seconds
after the page loads). Target: the kept browser's median within 1.25x (+0.3 s) of the fresh
one's.

Run from the repository root:

    .venv/bin/python bench/history_cost.py
    .venv/bin/python bench/history_cost.py --tries 6 --conversations 10 --turns 30

The figures before the browser kept each conversation under its own key came from this script
run on the commit before that change (it writes either storage format: the page's
`gr.BrowserState` value, encrypted, when the panel, `ui.history_panel` then, has a `SECRET`). It
uses Debian's /usr/bin/chromium (CHROMIUM overrides the path).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import os
import secrets
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from playwright.sync_api import Page, sync_playwright

from bench.bare_page import serve
from bench.concurrency import app_from_main
from tests.support.local import CHROMIUM, CHROMIUM_FLAGS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "assets" / "examples"
IMAGES = [EXAMPLES / name for name in ("label.png", "receipt.png", "sign.png")]
QUESTIONS = {"text": ("What is 50*3?", []), "image": ("Zoom into the top left", [IMAGES[0]])}
RATIO, SLACK = 1.25, 0.3
# No turn limits: the benchmark sends many turns a minute from one address.
NO_LIMITS = {
    "AGENT_TURNS_PER_MINUTE": "0",
    "AGENT_TURNS_PER_SESSION": "0",
    "AGENT_CLIENT_TURNS_PER_MINUTE": "0",
    "AGENT_SERVER_TURNS_PER_MINUTE": "0",
}
QUIET_S = 0.5
# A page that loads much can be busy for a while between two requests (decrypting, parsing).
LOAD_QUIET_S = 2.0
# Resolves with the milliseconds from the press of send to the turn's end on the page.
_PRESS_AND_WAIT = """
([doneText, timeoutMs]) => new Promise((resolve, reject) => {
  const button = document.querySelector('#input button.submit-button');
  if (!button) { reject(new Error('no send button')); return; }
  let pressed = null;
  const done = () => {
    const status = document.querySelector('#run-status');
    return document.querySelectorAll('#chat .bot-row').length > 0 && status
      && status.textContent.includes(doneText);
  };
  const observer = new MutationObserver(() => {
    if (pressed !== null && done()) {
      observer.disconnect();
      resolve(performance.now() - pressed);
    }
  });
  observer.observe(document.body, {childList: true, subtree: true, characterData: true});
  setTimeout(() => { observer.disconnect(); reject(new Error('no answer in time')); }, timeoutMs);
  pressed = performance.now();
  button.click();
})
"""
_STORED_CHARS = """() => {
  let n = 0;
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    n += key.length + localStorage.getItem(key).length;
  }
  return n;
}"""
_WRITE = "items => { for (const [k, v] of items) localStorage.setItem(k, v); }"


# -- the kept conversations ---------------------------------------------------------------------


def question(number: int) -> tuple[str, list[str]]:
    """The turn `number` of a kept conversation: mostly text, an image every fifth turn."""
    image = str(IMAGES[number // 5 % len(IMAGES)])
    if number % 10 == 4:
        return "Zoom into the top left", [image]
    if number % 10 == 9:
        return "How big is this image?", [image]
    if number % 3 == 0:
        return f"convert {number + 2} miles to km", []
    return f"what is {number + 3}*{number + 7}", []


def make_conversations(count: int, turns: int) -> tuple[list[dict[str, Any]], list[Any]]:
    """`count` conversations of `turns` turns, as the browser keeps them, newest first; and
    their sessions, which must stay open while the page may restore their images."""
    from agent.config import Settings
    from agent.models import OfflineModel
    from tools.calculator import Calculator
    from tools.convert_units import ConvertUnits
    from tools.image_info import ImageInfo
    from tools.zoom import Zoom
    from ui.handlers import PageHandlers

    try:
        from ui.conversations.snapshot import snapshot
    except ImportError:  # a commit from before ui/conversations/
        from ui.history import snapshot

    tools = [Calculator(), ConvertUnits(), ImageInfo(), Zoom()]
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(**NO_LIMITS), tools)

    async def one(index: int) -> tuple[dict[str, Any], Any]:
        state = page.new_state()
        for number in range(turns):
            text, files = question(number)
            async for _ in page.chat({"text": text, "files": files}, state):
                pass
        return snapshot(state, now=time.time() - 3600 * (count - index)), state

    made = [asyncio.run(one(i)) for i in range(count)]
    return [c for c, _ in reversed(made)], [s for _, s in made]


def storage_items(conversations: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], str]:
    """What a browser keeping `conversations` has in its localStorage, in the format of the
    page under test, and the name of that format."""
    try:
        from ui.conversations import panel as history_panel
        from ui.conversations import stored as history
    except ImportError:  # a commit from before ui/conversations/
        from ui import history, history_panel

    prefs = conversations[0]["prefs"] if conversations else {}
    if hasattr(history_panel, "SECRET"):  # one gr.BrowserState value, encrypted
        saved = history.empty()
        for conversation in reversed(conversations):
            saved = {**history.put(saved, conversation, conversation["id"]), "prefs": prefs}
        saved["current"] = None  # a new tab: the kept ones are listed, none is shown
        value = encrypted(json.dumps(saved, ensure_ascii=False), history_panel.SECRET)
        kept = len(saved["conversations"])
        return [(history_panel.STORAGE_KEY, value)], f"one encrypted value ({kept} kept)"
    prefix = history_panel.STORAGE_PREFIX
    entries = [
        {"id": c["id"], "title": c["title"], "saved_at": c["saved_at"], "turns": len(c["turns"])}
        for c in conversations
    ]
    index = {"format": history.FORMAT, "version": history.VERSION, "conversations": entries}
    items = [(prefix + "index", json.dumps({**index, "prefs": prefs}))]
    items += [(prefix + "c/" + c["id"], json.dumps(c, ensure_ascii=False)) for c in conversations]
    return items, "a key a conversation"


def encrypted(text: str, secret: str) -> str:
    """`text` as Gradio's BrowserState stores it: CryptoJS AES with a passphrase (the SHA-256
    of the secret, in hex), in OpenSSL's salted format, after a base64 IV it does not use."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    salt = secrets.token_bytes(8)
    passphrase = hashlib.sha256(secret.encode()).hexdigest().encode()
    derived, block = b"", b""
    while len(derived) < 48:  # OpenSSL's EVP_BytesToKey with MD5: a 32-byte key, a 16-byte IV
        block = hashlib.md5(block + passphrase + salt).digest()
        derived += block
    padder = padding.PKCS7(128).padder()
    plain = padder.update(text.encode("utf-8")) + padder.finalize()
    encryptor = Cipher(algorithms.AES(derived[:32]), modes.CBC(derived[32:48])).encryptor()
    body = b"Salted__" + salt + encryptor.update(plain) + encryptor.finalize()
    iv = base64.b64encode(secrets.token_bytes(16)).decode()
    return iv + ":" + base64.b64encode(body).decode()


# -- one browser --------------------------------------------------------------------------------


class Traffic:
    """The bytes a page sends and receives, as Chromium counts them, and when it last did."""

    def __init__(self, page: Page) -> None:
        self.up = self.down = 0
        self.last = time.monotonic()
        session = page.context.new_cdp_session(page)
        session.send("Network.enable")
        session.on("Network.dataReceived", self._received)
        page.on("request", self._sent)

    def _received(self, event: dict[str, Any]) -> None:
        self.down += int(event.get("dataLength") or 0)
        self.last = time.monotonic()

    def _sent(self, request: Any) -> None:
        self.up += len(request.post_data_buffer or b"")
        self.last = time.monotonic()

    def reset(self) -> None:
        self.up = self.down = 0

    def quiet(self, page: Page, quiet_s: float = QUIET_S, limit_s: float = 20.0) -> tuple:
        """Wait until nothing has been sent or received for `quiet_s`; the bytes each way."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() - self.last < quiet_s and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        return self.up, self.down


@dataclass
class Side:
    name: str
    seconds: dict[str, list[float]] = field(default_factory=dict)
    sent: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    stored_chars: int = 0

    def add(self, what: str, seconds: float | None, traffic: tuple[int, int]) -> None:
        if seconds is not None:
            self.seconds.setdefault(what, []).append(seconds)
        self.sent.setdefault(what, []).append(traffic)

    def median(self, what: str) -> float:
        return statistics.median(self.seconds[what])

    def bytes(self, what: str) -> tuple[int, int]:
        ups, downs = zip(*self.sent[what], strict=True)
        return int(statistics.median(ups)), int(statistics.median(downs))


def one_try(browser: Any, url: str, side: Side, items: list[tuple[str, str]], what: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        if items:
            # Written from a page of the same site that is not the app, before the app opens.
            writer = context.new_page()
            writer.goto(url + "config")
            writer.evaluate(_WRITE, items)
            side.stored_chars = writer.evaluate(_STORED_CHARS)
            writer.close()
        page = context.new_page()
        traffic = Traffic(page)
        page.goto(url)
        page.wait_for_selector("#input textarea")
        side.add("load", None, traffic.quiet(page, LOAD_QUIET_S))
        text, images = QUESTIONS[what]
        if images:
            page.set_input_files("#input input[type=file]", [str(i) for i in images])
            page.wait_for_function(
                "n => document.querySelectorAll('#input img').length >= n", arg=len(images)
            )
        page.fill("#input textarea", text)
        traffic.quiet(page)
        traffic.reset()
        ms = page.evaluate(_PRESS_AND_WAIT, ["model call", 60_000])
        side.add(what, ms / 1000, traffic.quiet(page))
    finally:
        context.close()


def measure(tries: int, conversations: int, turns: int, headed: bool = False) -> tuple:
    from ui.page.state import sessions_root, traces_root

    demo, launch = app_from_main(NO_LIMITS)
    # Before `app_from_main` kept them, `main()` removed its folders as it returned (its launch
    # was only intercepted): made again, so that this script also measures older commits.
    for folder in (sessions_root(), traces_root()):
        folder.mkdir(exist_ok=True)
    made, sessions = make_conversations(conversations, turns)
    items, storage = storage_items(made)
    sides = [Side("fresh"), Side("kept")]
    try:
        url = serve(demo, **launch)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=not headed, args=CHROMIUM_FLAGS
            )
            for attempt in range(tries + 1):  # the first round warms up, untimed
                for what in QUESTIONS:
                    for side in sides:
                        kept = side.name == "kept"
                        timed = Side(side.name) if attempt == 0 else side
                        one_try(browser, url, timed, items if kept else [], what)
                        side.stored_chars = timed.stored_chars
            browser.close()
    finally:
        demo.close()
        for state in sessions:
            state.close()
    return sides, storage, conversations, turns


def report(sides: list[Side], storage: str, conversations: int, turns: int) -> str:
    fresh, kept = sides
    lines = [
        f"{conversations} conversations of {turns} turns kept as {storage}: "
        f"{kept.stored_chars:,} characters in localStorage",
        "",
        f"{'question':<8} {'fresh (s)':>10} {'kept (s)':>10} {'kept/fresh':>11}"
        f" {'up/down per turn, fresh (B)':>29} {'kept (B)':>18}",
    ]
    verdicts = []
    for what in QUESTIONS:
        f, k = fresh.median(what), kept.median(what)
        ok = k <= RATIO * f + SLACK
        verdicts.append(ok)
        fu, fd = fresh.bytes(what)
        ku, kd = kept.bytes(what)
        lines.append(
            f"{what:<8} {f:>10.2f} {k:>10.2f} {k / f:>10.2f}x {fu:>14,} / {fd:<12,}"
            f" {ku:>9,} / {kd:<,}"
        )
    fu, fd = fresh.bytes("load")
    ku, kd = kept.bytes("load")
    lines.append(
        f"{'page load':<8} {'':>10} {'':>10} {'':>11} {fu:>14,} / {fd:<12,} {ku:>9,} / {kd:<,}"
    )
    verdict = "meets" if all(verdicts) else "misses"
    lines += ["", f"kept within {RATIO}x (+{SLACK} s) of fresh (medians): {verdict} the target"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=5, help="timed tries per question and side")
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    args = parser.parse_args(argv)
    print(report(*measure(args.tries, args.conversations, args.turns, args.headed)))


if __name__ == "__main__":
    main()
