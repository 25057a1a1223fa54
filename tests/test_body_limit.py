"""Request bodies are capped before Gradio parses them (`ui.body_limit`): against the launched
page, an oversized JSON body is refused with 413 and one sentence, whether it says its length
or comes chunked, and the page's own requests (a question, an image upload) still work."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from gradio_client import Client, handle_file

import app
from agent.config import Settings
from agent.models import OfflineModel
from tests.support.local import serve
from ui.body_limit import MAX_CONTAINERS, TOO_LARGE, caps_for
from ui.conversations.stored import MAX_BYTES as HISTORY_BYTES

EXAMPLES = Path(app.__file__).resolve().parent / "assets" / "examples"
# 30 MB of nested empty lists, as the stored history or an extra key of `/ask`'s message.
NESTED = b"[" + b"[[],[]]," * (30 * 2**20 // 8) + b"[]]"


@pytest.fixture(scope="module")
def url():
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel())
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


def body(data: bytes) -> bytes:
    return b'{"data": [' + data + b', null], "fn_index": 0, "session_hash": "abc"}'


def chunks(data: bytes, size: int = 256 * 1024):
    for start in range(0, len(data), size):
        yield data[start : start + size]


def refused(response: httpx.Response) -> None:
    assert response.status_code == 413
    assert response.json() == {"detail": TOO_LARGE}


@pytest.mark.parametrize("path", ["gradio_api/queue/join", "gradio_api/call/ask"])
def test_a_30_mb_json_body_is_refused_before_it_is_read(url, path):
    with httpx.Client(base_url=url, timeout=60) as client:
        refused(
            client.post(path, content=body(NESTED), headers={"content-type": "application/json"})
        )
        # Without a length, chunk by chunk: counted as it arrives.
        chunked = client.post(path, content=chunks(body(NESTED)))
        assert chunked.request.headers.get("transfer-encoding") == "chunked"
        refused(chunked)
        # The server is not held up by either.
        assert client.get("gradio_api/info").status_code == 200


def test_a_small_body_of_too_many_lists_is_refused(url):
    lists = b"[" + b"[]," * (MAX_CONTAINERS + 1) + b"[]]"
    assert len(body(lists)) < caps_for(Settings()).json
    with httpx.Client(base_url=url, timeout=60) as client:
        refused(client.post("gradio_api/queue/join", content=chunks(body(lists))))


def test_the_page_still_takes_a_question_an_image_and_a_full_stored_history(url):
    client = Client(url, verbose=False)
    image = handle_file(str(EXAMPLES / "label.png"))  # uploaded to /gradio_api/upload
    message = {"text": "Zoom into the top left", "files": [image]}
    result = client.predict(message, api_name="/ask")
    assert result["outcome"] == "answer" and result["error"] is None
    assert len(result["images"]) == 1  # the zoomed copy of the uploaded image
    # The largest stored history the page keeps, with the request around it, is let through
    # (Gradio says what it thinks of it; the cap does not).
    history = json.dumps({"conversations": [{"text": "x" * HISTORY_BYTES}]}).encode()
    with httpx.Client(base_url=url, timeout=60) as raw:
        for content in (body(history), chunks(body(history))):
            assert raw.post("gradio_api/queue/join", content=content).status_code != 413


def test_uploads_have_their_own_cap_from_the_upload_settings():
    env = Settings(AGENT_MAX_UPLOAD_MB=1, AGENT_MAX_IMAGES_PER_MESSAGE=2)
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env)
    try:
        url = serve(demo, **app.launch_options(env))
        image = (EXAMPLES / "label.png").read_bytes()
        padded = image + bytes(900_000 - len(image))  # under the 1 MB a file may have
        with httpx.Client(base_url=url, timeout=60) as client:
            files = [("files", (f"{i}.png", padded, "image/png")) for i in range(2)]
            taken = client.post("gradio_api/upload", files=files)
            assert taken.status_code == 200 and len(taken.json()) == 2
            # More than a message's images together.
            files = [("files", (f"{i}.png", padded, "image/png")) for i in range(3)]
            assert caps_for(env).upload < 3 * len(padded)
            refused(client.post("gradio_api/upload", files=files))
    finally:
        demo.close()


def test_caps_follow_the_operators_settings():
    default = caps_for(Settings())
    larger = caps_for(Settings(AGENT_MAX_UPLOAD_MB=50, AGENT_MAX_MESSAGE_CHARS=1_000_000))
    assert default.upload >= 20 * 2**20 * 10 and larger.upload > default.upload
    assert larger.json >= 6 * 1_000_000 > default.json >= HISTORY_BYTES
    assert default.mcp > default.upload  # images come as base64 there
