"""The task dialogue over an HTTP plugin declared in the seed's manifest format, against a local
server: the plugin is called with the merged known parameters, never with the question."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from agent import Agent, Session
from agent.models import ScriptedModel
from tests.conftest import collect
from tools.plugins import PluginManifest, plugin_from_manifest

CALLS: list[dict] = []


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        CALLS.append(query)
        body = json.dumps({"booked": query}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def hotel_tool():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    manifest = {
        "name_for_model": "book_hotel",
        "name_for_human": "Hotel booking",
        "description_for_human": "Book a hotel room in a city for a number of nights.",
        "url": f"http://127.0.0.1:{httpd.server_address[1]}/book",
        "method": "GET",
        # As in the seed's manifests: `enum` given for one field, absent for the others.
        "request_body": [
            {"name": "city", "description": "The city.", "required": True, "type": "string"},
            {
                "name": "nights",
                "description": "How many nights.",
                "required": True,
                "type": "integer",
            },
            {
                "name": "room",
                "description": "Room type.",
                "type": "string",
                "enum": ["single", "double"],
            },
        ],
    }
    yield plugin_from_manifest(PluginManifest.model_validate(manifest))()
    httpd.shutdown()
    httpd.server_close()


def step(tool, args, known):
    thought = {"content": "book it", "tool_to_use_for_user": "book_hotel", "known_params": known}
    return f"Thought: {json.dumps(thought)}\nAction: {tool}\nAction Input: {json.dumps(args)}"


async def test_slot_filling_over_a_plugin(hotel_tool):
    CALLS.clear()
    session = Session()

    def agent(*replies):
        return Agent(
            ScriptedModel(list(replies)), [hotel_tool], style="plugin-task", approval="always"
        )

    events = await collect(
        agent(step("book_hotel", {"city": "Oslo"}, {"city": "Oslo"})),
        "book a hotel in Oslo",
        session=session,
    )
    assert events[-1].type == "ask_user" and events[-1].missing == ["nights"]
    # The model asks again, forgets the city and writes the number as a string; the code
    # merges what it knows and calls the plugin itself.
    events = await collect(
        agent(
            step("ASK_USER_FOR_REQUIRED_PARAMS", {"question": "How many nights?"}, {"nights": "3"}),
            "Booked Oslo for 3 nights.",
        ),
        "3 nights",
        session=session,
    )
    assert CALLS == [{"city": "Oslo", "nights": "3"}]
    assert events[-1].type == "answer" and events[-1].text == "Booked Oslo for 3 nights."
    assert session.task is None
