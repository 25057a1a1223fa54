"""The launched page through `gradio_client`, as scripted QA uses it: the `/chat` endpoint."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradio_client import Client, handle_file

import app
from agent.models import OfflineModel, ScriptedModel
from tests.support.local import serve as serve_locally
from ui.server import PROGRESS_IDLE_SECONDS, QUEUE_IDLE_SECONDS

EXAMPLES = Path(app.__file__).resolve().parent / "assets" / "examples"


def serve(demo):
    return serve_locally(demo, **app.launch_options())


@pytest.fixture(scope="module")
def launched():
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel())
    try:
        yield demo, serve(demo)
    finally:
        demo.close()


@pytest.fixture(scope="module")
def url(launched):
    return launched[1]


def test_an_idle_server_looks_for_work_at_a_persons_pace(launched):
    """Gradio's queue would look every millisecond while idle (8% of a core); the launched
    page paces it, and the turns below still run."""
    queue = launched[0]._queue
    assert queue.sleep_when_free == QUEUE_IDLE_SECONDS
    assert queue.progress_update_sleep_when_free == PROGRESS_IDLE_SECONDS


def client_of(url: str) -> Client:
    # Plain HTTP on 127.0.0.1: with certificate checking on, each of gradio_client's requests
    # (a new httpx client each) first loads the system's certificates, 50 ms of CPU.
    return Client(url, verbose=False, ssl_verify=False)


def text_of(message: dict) -> str:
    return " ".join(part.get("text", "") for part in message["content"])


def chat(client: Client, text: str, files=()) -> tuple:
    return client.predict(
        {"text": text, "files": [handle_file(str(f)) for f in files]}, api_name="/chat"
    )


def test_only_chat_ask_and_reset_are_offered_to_clients(url):
    endpoints = client_of(url).view_api(print_info=False, return_format="dict")
    assert list(endpoints["named_endpoints"]) == ["/chat", "/ask", "/reset"]
    assert not endpoints["unnamed_endpoints"]


def test_turn_with_an_image(url):
    client = client_of(url)
    conversation, trace, status = chat(client, "What does this sign say?", [EXAMPLES / "sign.png"])
    user, reply = conversation
    # The question, the thumbnail and the thumbnail's id under it.
    assert [part["type"] for part in user["content"]] == ["text", "file", "text"]
    assert user["content"][2]["text"] == "`img_1`"
    assert "LIBRARY" in text_of(reply)
    titles = [m["metadata"]["title"] for m in trace]
    assert "Tool: read_text" in titles
    # The finished turn stays open while it is the latest (no status: open, no spinner).
    assert "status" not in trace[0]["metadata"]
    assert all(m["metadata"].get("status") != "pending" for m in trace)
    assert "model call" in status and "offline demo model" in status


def test_same_client_continues_the_conversation(url):
    client = client_of(url)
    conversation, *_ = chat(client, "convert 5 miles")
    assert "unit" in text_of(conversation[-1]).lower()
    conversation, trace, *_ = chat(client, "km")
    assert len(conversation) == 4
    assert "8.0" in text_of(conversation[-1]) and "km" in text_of(conversation[-1])
    assert trace[0]["metadata"]["id"] == "turn-1" and any(
        m["metadata"]["id"] == "turn-2" for m in trace
    )


def test_other_clients_have_their_own_conversation(url):
    first, second = client_of(url), client_of(url)
    chat(first, "convert 5 miles")
    conversation, *_ = chat(second, "km")
    assert len(conversation) == 2
    assert "8.0" not in text_of(conversation[-1])


def test_upload_that_is_not_an_image(url, tmp_path):
    client = client_of(url)
    chat(client, "convert 5 miles")
    notes = tmp_path / "notes.txt"
    notes.write_text("just some words")
    with pytest.raises(Exception, match=r"notes\.txt is not an image"):
        chat(client, "", [notes])
    conversation, trace, *_ = chat(client, "km", [notes])
    assert "8.0" in text_of(conversation[-1])
    assert any("notes.txt" in text_of(m) for m in trace if m["metadata"]["title"] == "Notice")
    # The refused file is not shown as the person's upload.
    assert [part["type"] for part in conversation[-2]["content"]] == ["text"]


def test_scripted_model_turn_through_the_api(tmp_path):
    replies = [
        'Thought: add them.\nAction: calculator\nAction Input: {"expression": "2+3"}',
        "Thought: done.\nAnswer: It is 5.",
    ]
    demo = app.build_demo(model_factory=lambda prefs: ScriptedModel(list(replies), name="fake"))
    try:
        client = client_of(serve(demo))
        conversation, trace, status = chat(client, "what is 2+3?")
    finally:
        demo.close()
    assert text_of(conversation[-1]) == "It is 5."
    assert status.startswith("fake · ReAct text · 1 tool call · 2 model calls")
    titles = [m["metadata"]["title"] for m in trace]
    assert "Tool: calculator" in titles


def test_hosted_model_without_key_or_url_says_what_to_do():
    env = app.Settings()
    prefs = app.Prefs(source="openai", base_url="", api_key="")
    if app.server_key(env, None):
        pytest.skip("the environment has a key")
    with pytest.raises(app.ModelNotConfigured, match="API key or a base URL"):
        app.default_model(prefs, env)


def test_server_key_goes_only_where_it_was_configured():
    env = app.Settings(OPENAI_API_KEY="sk-server", OPENAI_BASE_URL=None, HF_TOKEN="hf-server")
    assert app.server_key(env, None) == "sk-server"
    assert app.server_key(env, "http://attacker.example/v1") == ""
    assert app.server_key(env, app.HF_ROUTER_URL) == "hf-server"
    assert "sk-server" not in repr(app.Prefs(api_key="sk-server"))


def test_a_session_keeps_its_model_until_its_settings_change():
    made = []

    def make(prefs):
        made.append(prefs.model)
        return object()

    state = app.PageState(
        app.Prefs(source="openai", base_url="http://127.0.0.1:1/v1"), app.Settings()
    )
    first = state.model(make)
    assert state.model(make) is first and made == [""]
    state.prefs.model = "other-model"
    assert state.model(make) is not first and made == ["", "other-model"]
    state.reset()
    state.model(make)
    assert len(made) == 3


def test_tool_images_are_served_and_nothing_else_of_the_disk(url):
    import re

    import httpx

    client = client_of(url)
    _, trace, _ = chat(client, "Zoom into the top left", [EXAMPLES / "label.png"])
    zoom = next(m for m in trace if m["metadata"]["title"] == "Tool: zoom")
    text = " ".join(part.get("text", "") for part in zoom["content"])
    (link,) = re.findall(r"\((/gradio_api/file=[^)]+)\)", text)
    image = httpx.get(url.rstrip("/") + link)
    assert image.status_code == 200 and image.headers["content-type"].startswith("image/")
    for path in ("/etc/passwd", str(Path(app.__file__).resolve())):
        assert httpx.get(f"{url}gradio_api/file={path}").status_code in (403, 404)
