"""What the launched page gives away to anyone who can reach it, and what a refusal costs."""

from __future__ import annotations

import json
import logging
import time

import httpx
import pytest
from gradio_client import Client

import app
from agent.models import ScriptedModel
from tests.support.local import serve
from ui.examples import EXAMPLES_DIR

ROOT = EXAMPLES_DIR.parent.parent
SLOW = "Thought: " + "thinking slowly " * 200 + "\nAnswer: never"


@pytest.fixture(scope="module")
def url():
    made = []

    def factory(prefs):
        made.append(prefs)
        # The first turn of the module is slow enough to cancel; every other one answers.
        replies = [SLOW] if len(made) == 1 else ["Answer: ok"]
        return ScriptedModel(replies, delay=0.1, chunk_size=4, name="fake")

    demo = app.build_demo(model_factory=factory)
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


def file_route(url: str, path) -> int:
    return httpx.get(f"{url}gradio_api/file={path}").status_code


def test_only_what_the_page_shows_is_served_from_assets(url):
    for private in ("plugins/weather.json", "words/en.yaml", "make_examples.py", "style.css"):
        assert file_route(url, ROOT / "assets" / private) == 403, private
        assert file_route(url, f"assets/{private}") == 403, private
    assert file_route(url, EXAMPLES_DIR / "sign.png") == 200


def test_example_images_still_load(url):
    config = httpx.get(f"{url}config").json()
    # One example set per language, all inside the element `examples`.
    sets = [
        c
        for c in config["components"]
        if str(c.get("props", {}).get("elem_id", "")).startswith("examples-")
    ]
    samples = json.dumps([c["props"]["samples"] for c in sets])
    links = [part.split('"')[0] for part in samples.split('"url": "')[1:]]
    assert len(links) >= 2
    for link in links:
        image = httpx.get(link if link.startswith("http") else url.rstrip("/") + link)
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"


def test_a_file_that_was_never_uploaded_costs_one_log_line_and_one_sentence(url, caplog):
    payload = {
        "text": "hi",
        "files": [{"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}}],
    }
    with caplog.at_level(logging.WARNING, logger="ui.server"):
        started = httpx.post(f"{url}gradio_api/call/chat", json={"data": [payload]})
        event_id = started.json()["event_id"]
        with httpx.stream("GET", f"{url}gradio_api/call/chat/{event_id}", timeout=30) as stream:
            body = "".join(stream.iter_text())
    assert "was not uploaded through this page" in body and "Traceback" not in body
    lines = [r for r in caplog.records if "/etc/passwd" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert "\n" not in lines[0].getMessage()


def test_a_cancelled_turn_shows_as_stopped_when_the_conversation_goes_on(url):
    client = Client(url, verbose=False)
    job = client.submit({"text": "take your time", "files": []}, api_name="/chat")
    deadline = time.monotonic() + 30
    while not job.outputs() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.cancel()
    while not job.done() and time.monotonic() < deadline:
        time.sleep(0.05)
    conversation, *_ = client.predict({"text": "again", "files": []}, api_name="/chat")
    replies = [m for m in conversation if m["role"] == "assistant"]
    assert [m.get("metadata") for m in replies] == [None, None]
    assert replies[0]["content"][0]["text"] == "Stopped before it finished."
    assert replies[1]["content"][0]["text"] == "ok"
