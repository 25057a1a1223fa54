"""Every refusal through `/ask` is its JSON, `outcome` "error" and the sentence, never an opaque
error: a turn limit, a message over the length limit, a refused base URL, and a turn that
carries a notice while the message had no files (the notices are matched to file names, and
there were none to match)."""

from __future__ import annotations

import json

import httpx
import pytest
from gradio_client import Client

import app
from agent.config import Settings
from agent.models import OfflineModel
from tests.support.local import serve
from tests.support.openai_server import OpenAIServer, rate_limited
from ui.handlers import PageHandlers
from ui.script_api import ask_endpoint, attribute

ANSWER = "Thought: easy.\nAnswer: hello"
FIELDS = {"outcome", "answer", "question", "approval", "error", "events", "notices", "images"}
FIELDS |= {"model_calls", "tokens", "cost", "duration"}


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def url():
    env = Settings(AGENT_TURNS_PER_MINUTE=1, AGENT_MAX_MESSAGE_CHARS=1000)
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env, tools=[])
    try:
        yield serve(demo, **app.launch_options(env))
    finally:
        demo.close()


def refused(result: dict) -> str:
    """The sentence of a refusal, once its JSON is checked to be one."""
    assert set(result) == FIELDS
    assert result["outcome"] == "error" and result["answer"] is None
    assert result["events"] == [] and result["model_calls"] == 0
    assert result["tokens"]["input"] == 0 and result["cost"] is None
    return result["error"]


def test_a_turn_limit_is_an_error_with_its_sentence(url):
    client = Client(url, verbose=False)
    assert client.predict({"text": "hello", "files": []}, api_name="/ask")["outcome"] != "error"
    sentence = refused(client.predict({"text": "hello again", "files": []}, api_name="/ask"))
    assert sentence.startswith("This session has started 1 turns in the last minute")


def test_a_message_over_the_length_limit_is_an_error_with_its_sentence(url):
    result = Client(url, verbose=False).predict({"text": "a" * 1001, "files": []}, api_name="/ask")
    assert "1,001" in refused(result) and "1,000" in refused(result)


@pytest.mark.parametrize("path", ["/etc/passwd", "/no/such/upload.png", "../../secret.png"])
def test_a_file_not_uploaded_through_the_page_is_an_error_with_its_sentence(url, path):
    # Gradio refuses such a path before the endpoint runs; /ask still answers in its JSON.
    body = {
        "data": [
            {
                "text": "what is this?",
                "files": [{"path": path, "meta": {"_type": "gradio.FileData"}}],
            },
            None,
        ],
    }
    started = httpx.post(url + "gradio_api/call/ask", json=body, timeout=30)
    assert started.status_code == 200
    event_id = started.json()["event_id"]
    with httpx.stream("GET", url + f"gradio_api/call/ask/{event_id}", timeout=30) as stream:
        lines = [line for line in stream.iter_lines() if line.startswith("data:")]
    result = json.loads(lines[-1].removeprefix("data:"))[0]
    assert "not uploaded through this page" in refused(result)


async def test_a_refused_base_url_is_an_error_with_its_sentence():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(AGENT_PUBLIC=True), [])
    state = page.new_state()
    state.prefs.source, state.prefs.base_url = "openai", "http://example.com/v1"
    try:
        result, _ = await ask_endpoint(page)({"text": "hello", "files": []}, state)
        assert refused(result).startswith("This public page connects only to the model service")
    finally:
        state.close()


def test_a_turn_with_a_notice_and_no_files_lists_the_notice():
    # The service says "slow down" once: the turn goes on after a notice, with no upload.
    with OpenAIServer(replies=[rate_limited(retry_after=0), ANSWER]) as server:
        env = Settings(
            OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-server", AGENT_MODEL="test-model"
        )
        demo = app.build_demo(env=env, tools=[])
        try:
            result = Client(serve(demo, **app.launch_options(env)), verbose=False).predict(
                {"text": "hello", "files": []}, api_name="/ask"
            )
        finally:
            demo.close()
    assert result["outcome"] == "answer" and result["answer"] == "hello"
    (notice,) = result["notices"]
    assert notice["file"] is None and notice["reason"]


def test_a_sentence_that_names_no_upload_is_attributed_to_none():
    assert attribute("This session has started 20 turns in the last minute.", []) == []
    assert attribute("Slow down.", ["photo.png"]) == []
