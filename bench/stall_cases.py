"""The hostile inputs of `bench/stall.py`, each sent as a visitor of a public page could send it.

A case is a name and a function that sends its input to the served page (`Served`) and says in
a few words how it ended. The inputs reach the page by every way in: the chat (`/chat`), `/ask`
with its approval argument, the Scenarios tab's Run and the conversation viewer (private
events, called as the browser calls them: `tests.support.page_events`), a raw request body,
and a session whose settings point at a hostile OpenAI-compatible model
(`bench/hostile_model.py`, in a process of its own).

The page runs with the weather plugin on, pointed at `OutboundCounter` on 127.0.0.1, and with
AGENT_APPROVAL=never: whatever a case sends, that server must see no request.
"""

from __future__ import annotations

import html
import json
import re
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from gradio_client import Client, handle_file
from PIL import Image

from bench.hostile_model import CALLS_MARK, REPAIR_MARK
from tests.support.hostile import FORMAT_WIDTH, UNIT_TOWER, png_bomb
from tests.support.page_events import EventFailed, PageEvents
from tests.support.pdfs import busy_pdf, text_pdf

TRIVIAL = "What is 2 + 2?"
WEATHER = "What is the weather in Paris?"
CASE_LIMIT = 60.0
# Plain HTTP on 127.0.0.1; checking on, each request (gradio_client's too) first loads the
# system's certificates, 50 ms of the bench's CPU, many times a second while it probes.
VERIFY_TLS = False


@dataclass
class Served:
    """The page under test and what the cases need around it."""

    url: str
    pid: int
    model_url: str  # the hostile model's base URL
    outbound: OutboundCounter

    @cached_property
    def events(self) -> PageEvents:
        return PageEvents(self.url, timeout=CASE_LIMIT)


@dataclass
class Case:
    name: str
    send: Callable[[Served], str]
    senders: int = 1  # sent by this many clients at once


# -- around the page ---------------------------------------------------------------------------


class OutboundCounter:
    """An HTTP server on 127.0.0.1 that counts the requests it gets (and answers none usefully):
    the weather plugin's base URL, which the operator's policy says never to call."""

    def __init__(self) -> None:
        counter = self
        self.count = 0

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                counter.count += 1
                self.send_error(503)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# -- how an input reaches the page -----------------------------------------------------------


def _short(text: Any) -> str:
    """The first words of `text`, as a person reads them (without the chat's markup)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", str(text))).split())[:90]


def chat_turn(client: Client, text: str, files: list[Path], timeout: float = CASE_LIMIT) -> str:
    """A turn through `/chat`, as scripts send one; how it ended."""
    try:
        job = client.submit(
            {"text": text, "files": [handle_file(str(f)) for f in files]}, api_name="/chat"
        )
        result = job.result(timeout=timeout)
    except TimeoutError:
        return f"no reply within {timeout:g} s"
    except Exception as exc:  # a refusal reaches the client as an error with our sentence
        return f"refused: {_short(exc)}"
    return f"replied: {_short(_last_words(result[0]))}"


def _last_words(chat: list[Any]) -> str:
    last = chat[-1]["content"] if chat else []
    parts = last if isinstance(last, list) else [last]
    return " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in parts)


def chat(text: str, files: list[Path] | None = None) -> Callable[[Served], str]:
    def send(served: Served) -> str:
        client = Client(served.url, verbose=False, ssl_verify=VERIFY_TLS)
        try:
            return chat_turn(client, text, files or [])
        finally:
            client.close()  # its heartbeat stream, which a server waits for when it stops

    return send


def ask(text: str, policy: str) -> Callable[[Served], str]:
    """`/ask` with its second argument, the approval policy the caller asks for."""

    def send(served: Served) -> str:
        client = Client(served.url, verbose=False, ssl_verify=VERIFY_TLS)
        try:
            result = client.predict({"text": text, "files": []}, policy, api_name="/ask")
        except Exception as exc:
            return f"refused: {_short(exc)}"
        finally:
            client.close()
        said = result.get("answer") or result.get("question") or result.get("error")
        return f"{result.get('outcome')}: {_short(said)}"

    return send


def _said(outcome: Any, *indices: int) -> str:
    if not outcome.success:
        return f"error: {_short(outcome.error)}"
    words = [
        outcome.data[i] for i in indices if isinstance(outcome.data[i], str) and outcome.data[i]
    ]
    return f"replied: {_short(' '.join(words))}"


def scenario(path: Path) -> Callable[[Served], str]:
    """Uploaded in the Scenarios tab and run there, on the session's (offline) model; how it
    ended is the tab's message, or the first result's verdict and first failed expectation."""

    def send(served: Served) -> str:
        page = served.events
        try:
            files = page.upload([path])
            outcome = page.call(page.fn_index("scenario-run", "click"), [None, files, None])
        except EventFailed as exc:
            return str(exc)
        table = outcome.data[2] if outcome.success and len(outcome.data) > 2 else None
        rows = ((table or {}).get("value") or {}).get("data") if isinstance(table, dict) else None
        if rows:
            return f"ran: {_short(' '.join(str(cell) for cell in rows[0][1:3]))}"
        return _said(outcome, 0)

    return send


def viewer(path: Path) -> Callable[[Served], str]:
    """Opened with "Open a conversation file" in the Scenarios tab."""

    def send(served: Served) -> str:
        page = served.events
        try:
            files = page.upload([path])
            fn = page.fn_index("conversation-file", "upload")
            return _said(page.call(fn, [files[0], None, None]), 0, 1)
        except EventFailed as exc:
            return str(exc)

    return send


def raw_body(where: str, megabytes: int = 30) -> Callable[[Served], str]:
    """A JSON body of `megabytes` of empty lists (`[[],[],...]`) joining the queue, as the
    stored history the page sends once it loads (`where="history"`) or as an extra key of
    `/ask`'s message (`where="ask"`)."""

    def send(served: Served) -> str:
        page = served.events
        lists = b"[" + b"[]," * (megabytes * 2**20 // 3) + b"[]]"
        if where == "history":
            # The page's `History.load`, which gets the stored value after the page loads.
            fn = page.api_index("load")
            data = b"[null, " + lists + b"]"
        else:
            fn = page.api_index("ask")
            data = b'[{"text": "hi", "files": [], "extra": ' + lists + b'}, "never", null]'
        head = json.dumps({"fn_index": fn, "session_hash": page.new_session(), "event_data": None})
        body = head[:-1].encode() + b', "data": ' + data + b"}"
        try:
            response = httpx.post(
                served.url + "gradio_api/queue/join",
                content=body,
                headers={"content-type": "application/json"},
                timeout=CASE_LIMIT,
            )
        except httpx.HTTPError as exc:
            return f"failed: {_short(exc)}"
        return f"HTTP {response.status_code}: {_short(response.text)}"

    return send


def hostile(text: str, protocol: str) -> Callable[[Served], str]:
    """A turn in a session whose Settings point at the hostile model (any visitor may, on a
    page that is not public), speaking `protocol` ("react" or "native")."""

    def send(served: Served) -> str:
        page = served.events
        session = page.new_session()
        settings = {
            "source": "openai",
            "base-url": served.model_url,
            "model-name": "test-model",
            "protocol": protocol,
        }
        try:
            for elem_id, value in settings.items():
                page.predict(page.fn_index(elem_id, "change"), [value, None], session)
            message = {"text": text, "files": []}
            outcome = page.call(page.api_index("chat"), [message, None], session=session)
        except EventFailed as exc:
            return str(exc)
        if not outcome.success:
            return f"error: {_short(outcome.error)}"
        return f"replied: {_short(_last_words(outcome.data[0]))}"

    return send


# -- the inputs --------------------------------------------------------------------------------


# The offline model read an expression's end with a pattern tried at every position of a run.
MINUS_RUN = "calculate " + "-" * 10_000 + "1"


def scenario_text(user: str, expect: str, head: str = "name: hostile\n") -> str:
    return f"{head}turns:\n  - user: {json.dumps(user)}\n    expect: {{{expect}}}\n"


def alias_bomb(levels: int = 7) -> str:
    """A scenario file with `levels` levels of 9-fold YAML aliases ("billion laughs")."""
    rows = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    rows += [f"l{n}: &l{n} [{','.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return scenario_text("hello", "outcome: ask") + "\n".join(rows) + "\n"


def aliased_turns(turns: int = 2_000) -> str:
    """One hostile turn written once and used `turns` times through an alias: 24 KB."""
    first = f"  - &t {{user: {json.dumps(MINUS_RUN)}, expect: {{outcome: answer}}}}\n"
    return "name: many\nturns:\n" + first + "  - *t\n" * (turns - 1)


def big_scenarios(megabytes: int = 5) -> str:
    """A valid list of scenarios, `megabytes` long."""
    one = f'- name: big\n  turns:\n    - user: "{TRIVIAL}"\n      expect: {{outcome: answer}}\n'
    return one * (megabytes * 2**20 // len(one) + 1)


def conversation_zip(path: Path, events_text: str) -> Path:
    """A conversation file of the page's download format with one turn of `events_text`."""
    head = '{"format": "multimodal-react-agent/conversation", "version": 1, "turns": '
    turn = '{"number": 1, "text": "hi", "status": "answered", "events": [' + events_text + "]}"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("conversation.json", head + "[" + turn + '], "images": []}')
    return path


CALL_EVENT = '{"type": "tool_call", "step": 1, "call_id": "c1", "tool": "zoom", "arguments": {}}'


def long_pdf() -> bytes:
    return text_pdf([[f"page {n}"] for n in range(500)])


def cases(folder: Path, quick: bool = False, only: str | None = None) -> list[Case]:
    """Every case, or for a quick run one of each kind, or those whose name holds `only`;
    their files are made in `folder`."""
    made: list[Case] = []

    def add(name: str, in_quick: bool, build: Callable[[], Callable[[Served], str]]) -> None:
        if (in_quick or not quick) and (not only or only in name):
            made.append(Case(name, build(), senders=3 if name.startswith("3 ") else 1))

    def file(name: str, make: Callable[[], str | bytes]) -> Path:
        path = folder / name
        if not path.exists():
            data = make()
            path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return path

    def images(count: int) -> list[Path]:
        paths = [folder / f"tiny-{i}.png" for i in range(count)]
        for i, path in enumerate(paths):
            Image.new("RGB", (8, 8), (i, 0, 0)).save(path)
        return paths

    def zipped(name: str, events: Callable[[], str]) -> Path:
        path = folder / name
        return path if path.exists() else conversation_zip(path, events())

    pattern = scenario_text("hello", "outcome: ask, answer_matches: '^.{7}(.|.)*QQQ'")
    weather = scenario_text(WEATHER, "outcome: answer", "name: weather\napproval: always\n")
    add("unit power tower", True, lambda: chat(UNIT_TOWER))
    add("format width 2e9", False, lambda: chat(FORMAT_WIDTH))
    add("PNG bomb 10900x10900", True, lambda: chat("what is this?", [file("bomb.png", png_bomb)]))
    add("3 PNG bombs at once", False, lambda: chat("what is this?", [file("bomb.png", png_bomb)]))
    add("2 MB message", False, lambda: chat("a" * 2_000_000))
    add("calculate 10,000 minus", True, lambda: chat(MINUS_RUN))
    add("100 images", False, lambda: chat("look at these", images(100)))
    add("PDF of 500 pages", True, lambda: chat("total?", [file("long.pdf", long_pdf)]))
    add("PDF of 10 busy pages", False, lambda: chat("total?", [file("busy.pdf", busy_pdf)]))
    add("3 busy PDFs at once", False, lambda: chat("total?", [file("busy.pdf", busy_pdf)]))
    add("scenario ^.{7}(.|.)*QQQ", True, lambda: scenario(file("slow.yaml", lambda: pattern)))
    add("scenario 9^7 aliases", False, lambda: scenario(file("laughs.yaml", alias_bomb)))
    add("scenario of 5 MB", False, lambda: scenario(file("big.yaml", big_scenarios)))
    add("scenario 2,000 aliased turns", False, lambda: scenario(file("many.yaml", aliased_turns)))
    add("scenario weather always", True, lambda: scenario(file("weather.yaml", lambda: weather)))
    add("/ask weather always", True, lambda: ask(WEATHER, "always"))
    add("model: 16 KB repair x3", True, lambda: hostile(f"{REPAIR_MARK}: 1+1", "react"))
    add("model: 12,000 calls", True, lambda: hostile(f"{CALLS_MARK}: add", "native"))
    calls = lambda: ",".join([CALL_EVENT] * 200_000)  # noqa: E731
    add("viewer: 200k events", True, lambda: viewer(zipped("events.zip", calls)))
    lists = lambda: "[]," * (50_000_000 // 3) + "[]"  # noqa: E731
    add("viewer: 50 MB of [],", False, lambda: viewer(zipped("lists.zip", lists)))
    add("30 MB body: history", True, lambda: raw_body("history"))
    add("30 MB body: /ask key", False, lambda: raw_body("ask"))
    return made
