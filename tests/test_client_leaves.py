"""A client that leaves mid-turn stops the turn: the model stream is closed within seconds."""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import pytest

import app
from tests.support.local import serve


class Endless:
    """Thinks forever; records when its stream is closed."""

    offline = False
    name = "endless"

    def __init__(self, closed: dict) -> None:
        self.closed = closed

    async def stream(self, request):
        try:
            yield "Thought: "
            while True:
                await asyncio.sleep(0.05)
                yield "more "
        finally:
            self.closed["at"] = time.monotonic()


class Silent:
    """Says nothing at all, as a model still loading or queueing does; records its close."""

    offline = False
    name = "silent"

    def __init__(self, closed: dict) -> None:
        self.closed = closed

    async def stream(self, request):
        try:
            await asyncio.sleep(120)
            yield "Answer: too late"
        finally:
            self.closed["at"] = time.monotonic()


@pytest.mark.parametrize(
    ("model", "leave_after"),
    [(Endless, "more"), (Silent, "Waiting for the model")],
    ids=["streaming", "silent"],
)
def test_the_model_stream_closes_soon_after_the_client_leaves(model, leave_after):
    closed: dict = {}
    demo = app.build_demo(model_factory=lambda prefs: model(closed))
    url = serve(demo, **app.launch_options())
    try:
        config = httpx.get(url + "config").json()
        fn_index = next(d["id"] for d in config["dependencies"] if d.get("api_name") == "chat")
        session = uuid.uuid4().hex[:10]
        joined = httpx.post(
            url + "gradio_api/queue/join",
            json={
                "data": [{"text": "think", "files": []}, None],
                "fn_index": fn_index,
                "session_hash": session,
            },
        )
        assert joined.status_code == 200
        with httpx.stream(
            "GET", url + f"gradio_api/queue/data?session_hash={session}", timeout=30
        ) as stream:
            for line in stream.iter_lines():
                if leave_after in line:  # the turn is under way, and shows it: leave
                    break
        left = time.monotonic()
        deadline = left + 10
        while "at" not in closed and time.monotonic() < deadline:
            time.sleep(0.05)
        # Within 8 s of leaving, however silent the model is (the bound).
        assert "at" in closed and closed["at"] - left < 8
    finally:
        demo.close()
