"""The page's endpoints for scripts, `/ask` and `/reset`, through `gradio_client` against the
launched page with the offline model, as QA scripts use them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from gradio_client import Client, handle_file

import app
from agent.config import Settings
from agent.events import load_trace
from agent.models import OfflineModel
from agent.models.offline import NAME
from tests.support.local import serve

EXAMPLES = Path(app.__file__).resolve().parent / "assets" / "examples"
FIELDS = {
    "outcome",
    "answer",
    "question",
    "approval",
    "error",
    "events",
    "notices",
    "images",
    "model_calls",
    "tokens",
    "cost",
    "duration",
}
# The offline model priced, so that `/ask`'s cost shows (per million tokens).
PRICES = json.dumps({NAME: {"input": 1.0, "output": 2.0}})


@pytest.fixture(scope="module")
def url():
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=Settings(prices=PRICES))
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


def ask(client: Client, text: str, files=()) -> dict:
    message = {"text": text, "files": [handle_file(str(f)) for f in files]}
    return client.predict(message, api_name="/ask")


def types(result: dict) -> list[str]:
    return [event["type"] for event in result["events"]]


def test_endpoints_have_readable_names(url):
    endpoints = Client(url, verbose=False).view_api(print_info=False, return_format="dict")
    named = endpoints["named_endpoints"]
    assert [p["parameter_name"] for p in named["/ask"]["parameters"]] == ["message", "approval"]
    assert [r["label"] for r in named["/ask"]["returns"]] == ["result"]
    assert named["/reset"]["parameters"] == []


def test_answer_with_a_tool_and_its_events(url):
    result = ask(Client(url, verbose=False), "convert 5 miles to km")
    assert set(result) == FIELDS
    assert result["outcome"] == "answer" and "8.04" in result["answer"]
    assert result["question"] is None and result["error"] is None
    assert result["notices"] == [] and result["images"] == []
    kinds = types(result)
    assert kinds[0] == "run_started" and kinds[-2:] == ["run_finished", "answer"]
    call = next(e for e in result["events"] if e["type"] == "tool_call")
    assert call["tool"] == "convert_units"
    done = next(e for e in result["events"] if e["type"] == "tool_result")
    assert done["ok"] and done["call_id"] == call["call_id"]
    assert result["model_calls"] == kinds.count("model_call") >= 2
    assert result["duration"] > 0
    # The offline model counts nothing: its tokens are estimated, and said to be.
    calls = [e for e in result["events"] if e["type"] == "model_call"]
    assert result["tokens"] == {
        "input": sum(c["input_tokens"] for c in calls),
        "output": sum(c["output_tokens"] for c in calls),
        "cached": None,
        "estimated": True,
    }
    assert result["tokens"]["input"] > result["tokens"]["output"] > 0
    priced = result["tokens"]["input"] * 1.0 + result["tokens"]["output"] * 2.0
    assert result["cost"] == pytest.approx(priced / 1_000_000)
    # The events are the export format: they load back as a trace.
    assert len(load_trace(json.dumps(result["events"]))) == len(kinds)


def test_ask_then_answer_across_two_calls(url):
    client = Client(url, verbose=False)
    first = ask(client, "convert 5 miles")
    assert first["outcome"] == "ask" and first["answer"] is None
    assert "unit" in first["question"].lower()
    second = ask(client, "km")
    assert second["outcome"] == "answer" and "8.0" in second["answer"]


def test_chat_and_ask_of_one_client_continue_one_conversation(url):
    client = Client(url, verbose=False)
    client.predict({"text": "convert 5 miles", "files": []}, api_name="/chat")
    assert "8.0" in ask(client, "km")["answer"]


def test_refused_file_is_a_notice_with_its_name(url, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("just some words")
    client = Client(url, verbose=False)
    result = ask(client, "convert 5 miles to km", [notes])
    assert result["outcome"] == "answer" and "8.0" in result["answer"]
    (notice,) = result["notices"]
    assert notice["file"] == "notes.txt" and "not an image" in notice["reason"]
    # Nothing but the refused file: the turn does not start, and says why.
    alone = ask(client, "", [notes])
    assert alone["outcome"] == "error" and "notes.txt" in alone["error"]
    assert [n["file"] for n in alone["notices"]] == ["notes.txt"]
    assert alone["events"] == []


def test_image_a_tool_made_is_listed_and_fetchable(url):
    result = ask(Client(url, verbose=False), "Zoom into the top left", [EXAMPLES / "label.png"])
    assert result["outcome"] == "answer"
    (image,) = result["images"]
    assert image["id"] in result["answer"] and image["width"] > 0
    assert image["url"].startswith("/gradio_api/file=")
    fetched = httpx.get(url.rstrip("/") + image["url"])
    assert fetched.status_code == 200
    assert fetched.headers["content-type"].startswith("image/")
    # The events name images by id; where the server keeps them stays out of the export.
    shown = [i for e in result["events"] for i in e.get("images") or ()]
    assert {i["id"] for i in shown} >= {"img_1", image["id"]}
    assert all("path" not in i for i in shown)
    assert not re.search(r"/tmp/|agent-sessions", str(result["events"]))


def test_reset_starts_a_new_conversation(url):
    client = Client(url, verbose=False)
    assert ask(client, "convert 5 miles")["outcome"] == "ask"
    assert client.predict(api_name="/reset") == {"ok": True}
    result = ask(client, "km")
    assert "convert_units" not in [e.get("tool") for e in result["events"]]
    assert "8.0" not in (result["answer"] or "")
    # The conversation goes on from the reset, in the same session.
    assert ask(client, "convert 5 miles")["outcome"] == "ask"
    assert "8.0" in ask(client, "km")["answer"]


def test_reset_clears_the_pages_conversation(url):
    client = Client(url, verbose=False)
    client.predict({"text": "convert 5 miles", "files": []}, api_name="/chat")
    client.predict(api_name="/reset")
    conversation, *_ = client.predict({"text": "hello", "files": []}, api_name="/chat")
    assert len(conversation) == 2


def test_chinese_question(url):
    result = ask(Client(url, verbose=False), "把5英里换算成公里")
    assert result["outcome"] == "answer"
    assert "8.04" in result["answer"] and re.search(r"[\u4e00-\u9fff]", result["answer"])
    started = result["events"][0]
    assert started["type"] == "run_started" and started["language"] == "zh"
