"""Calling a page's events over HTTP as its browser does, private ones included.

`gradio_client` calls only the events the API lists; the page's own (the Scenarios tab's Run,
the conversation viewer's upload) are `api_visibility="private"`, as they are for anyone
outside a browser. A browser finds an event in `/config` (its `fn_index` is the dependency
whose trigger is the component with the given `elem_id`), uploads files to
`/gradio_api/upload`, joins the queue with the event's inputs, and reads the result from the
session's event stream. This does the same, so benchmarks can send what a visitor can.

    page = PageEvents(url)
    run = page.fn_index("scenario-run", "click")
    files = page.upload([Path("a.yaml")])
    outcome = page.call(run, [None, files, None])  # a gr.State input is None: it is the server's
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx


class EventFailed(Exception):
    """The event did not finish: no answer in time, an error, or a refusal (its text)."""


@dataclass
class Outcome:
    """A finished event: its outputs, or the error the server gave for it."""

    success: bool
    data: list[Any] = field(default_factory=list)
    error: str = ""


class PageEvents:
    def __init__(self, url: str, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/") + "/"
        self.timeout = timeout
        self.config = httpx.get(self.url + "config", timeout=timeout).raise_for_status().json()

    def fn_index(self, elem_id: str, event: str) -> int:
        """The event `event` ("click", "upload", ...) of the component with `elem_id`."""
        ids = {
            c["id"]
            for c in self.config["components"]
            if c.get("props", {}).get("elem_id") == elem_id
        }
        for dependency in self.config["dependencies"]:
            if dependency.get("trigger_after") is not None:
                continue  # a `.then` of another event
            if any(target in ids and kind == event for target, kind in dependency["targets"]):
                return int(dependency["id"])
        raise KeyError(f"no {event} event on #{elem_id}")

    def api_index(self, api_name: str) -> int:
        """The event the API names `api_name` (without its slash)."""
        for dependency in self.config["dependencies"]:
            if dependency.get("api_name") == api_name:
                return int(dependency["id"])
        raise KeyError(f"no event named {api_name}")

    def _body(self, fn_index: int, data: list[Any], session: str) -> dict[str, Any]:
        trigger = None
        for dependency in self.config["dependencies"]:
            if dependency["id"] == fn_index and dependency["targets"]:
                trigger = int(dependency["targets"][0][0])
        return {
            "data": data,
            "fn_index": fn_index,
            "session_hash": session,
            "event_data": None,
            "trigger_id": trigger,
        }

    def upload(self, paths: list[Path]) -> list[dict[str, Any]]:
        """Each file uploaded as the page uploads it; the values an event takes for them."""
        handles = [path.open("rb") for path in paths]
        try:
            response = httpx.post(
                self.url + "gradio_api/upload",
                params={"upload_id": uuid.uuid4().hex[:11]},
                files=[("files", (p.name, h)) for p, h in zip(paths, handles, strict=True)],
                timeout=self.timeout,
            )
        finally:
            for handle in handles:
                handle.close()
        if response.status_code != 200:
            raise EventFailed(f"upload refused: HTTP {response.status_code} {response.text[:90]}")
        return [
            {
                "path": server_path,
                "orig_name": path.name,
                "size": path.stat().st_size,
                "mime_type": None,
                "meta": {"_type": "gradio.FileData"},
            }
            for path, server_path in zip(paths, response.json(), strict=True)
        ]

    @staticmethod
    def new_session() -> str:
        """A browser session's id: the events called with it share its `gr.State` values."""
        return uuid.uuid4().hex[:11]

    def predict(self, fn_index: int, data: list[Any], session: str) -> list[Any]:
        """Run an event that is not queued (`queue=False`, as the settings' changes are)."""
        response = httpx.post(
            self.url + "gradio_api/run/predict",
            json=self._body(fn_index, data, session),
            timeout=self.timeout,
        )
        if response.status_code != 200:
            raise EventFailed(f"HTTP {response.status_code}: {response.text[:90]}")
        return list(response.json().get("data") or [])

    def call(
        self,
        fn_index: int,
        data: list[Any],
        timeout: float | None = None,
        session: str | None = None,
    ) -> Outcome:
        """Run the queued event with `data` as its inputs until it ends, in `session` (by
        default one of its own)."""
        timeout = timeout or self.timeout
        session = session or self.new_session()
        joined = httpx.post(
            self.url + "gradio_api/queue/join",
            json=self._body(fn_index, data, session),
            timeout=timeout,
        )
        if joined.status_code != 200:
            raise EventFailed(f"HTTP {joined.status_code}: {joined.text[:90]}")
        event_id = joined.json().get("event_id")
        limits = httpx.Timeout(timeout, read=timeout)
        # The stream's heartbeats keep it open while the event runs: the deadline is ours.
        deadline = time.monotonic() + timeout
        try:
            with httpx.stream(
                "GET",
                self.url + "gradio_api/queue/data",
                params={"session_hash": session},
                timeout=limits,
            ) as stream:
                for line in stream.iter_lines():
                    if time.monotonic() > deadline:
                        raise httpx.ReadTimeout("past the deadline")
                    if not line.startswith("data:"):
                        continue
                    message = json.loads(line[5:])
                    if message.get("event_id") not in (None, event_id):
                        continue
                    if message.get("msg") == "process_completed":
                        output = message.get("output") or {}
                        if message.get("success"):
                            return Outcome(True, list(output.get("data") or []))
                        return Outcome(False, error=str(output.get("error") or "no sentence"))
                    if message.get("msg") == "close_stream":
                        break
        except httpx.TimeoutException:
            raise EventFailed(f"no reply within {timeout:g} s") from None
        raise EventFailed("the event stream ended without a result")
