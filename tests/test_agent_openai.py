"""The whole agent over real HTTP: OpenAIChatModel against the local OpenAI-compatible server."""

from __future__ import annotations

import json
import time

from agent import Agent, Session
from agent.models import OpenAIChatModel
from tests.conftest import collect, types
from tests.support.openai_server import Forever, Hang, OpenAIServer, unauthorized, unavailable
from tests.support.sockets import wait_until_closed

KEY = "sk-test-secret-0123456789"


def model_for(server, **options):
    options = {"max_retries": 0, "timeout": 5, **options}
    return OpenAIChatModel(model="test-vision", base_url=server.base_url, api_key=KEY, **options)


async def test_tool_turn_with_an_image_over_http(test_tools, png):
    replies = [
        # The made-up Observation is cut off client-side even if the server ignores `stop`.
        'Thought: crop it\nAction: crop\nAction Input: {"image_id": "img_1"}\nObservation: fake',
        "Thought: I can see it now.\nAnswer: The left half is red.",
    ]
    with OpenAIServer(replies=replies) as server:
        agent = Agent(model_for(server), test_tools, tool_protocol="react")
        events = await collect(agent, "crop this", [png])
        first, second = server.requests
    assert events[-1].type == "answer" and events[-1].text == "The left half is red."
    assert "".join(e.text for e in events if e.type == "answer_delta") == events[-1].text
    assert sum(e.type == "model_delta" for e in events) > 4  # it really streamed
    assert first["stream"] is True and "Observation:" in first["stop"]
    user = first["messages"][-1]["content"]
    assert user[1]["type"] == "image_url" and user[1]["image_url"]["detail"] == "auto"
    observation = second["messages"][-1]["content"]
    assert observation[0]["text"].startswith("Observation: Cropped img_1 into img_2.")
    assert observation[1]["image_url"]["url"].startswith("data:image/")
    assert "fake" not in json.dumps(second["messages"])


async def test_auth_failure_is_one_sentence_without_the_key(test_tools):
    with OpenAIServer(replies=[unauthorized(KEY)]) as server:
        session = Session()
        events = await collect(Agent(model_for(server), test_tools), "hi", session=session)
    error = events[-1]
    assert error.type == "error" and error.kind == "auth"
    assert KEY not in error.message and KEY not in json.dumps([e.model_dump() for e in events])
    assert types(events)[-2] == "run_finished"
    # The conversation survives the failed turn.
    assert session.history[-1].user_text == "hi"


async def test_a_model_that_streams_forever_ends_the_turn_with_a_sentence(test_tools):
    with OpenAIServer(replies=[Forever("Thought: and again ")]) as server:
        # A limit that binds before the endless text is clearly a loop (`repetition`).
        model = model_for(server, max_tokens=50)
        started = time.monotonic()
        events = await collect(Agent(model, test_tools), "hi")
        elapsed = time.monotonic() - started
        assert server.requests[0]["max_tokens"] == 50
        assert server.wait_for_disconnects(1)
        await model.aclose()
        assert wait_until_closed(server.port) == []
    assert events[-1].type == "error" and events[-1].kind == "cut_off"
    assert "limit of 50 tokens" in events[-1].message
    assert elapsed < 5


async def test_an_unavailable_service_is_named_after_its_retry(test_tools):
    with OpenAIServer(replies=[unavailable(), unavailable(), Hang()]) as server:
        model = model_for(server, max_retries=1)
        events = await collect(Agent(model, test_tools), "hi")
        await model.aclose()
        assert len(server.requests) == 2
    assert events[-1].type == "error" and events[-1].kind == "server"
    assert events[-1].message == (
        "The model service is unavailable right now (503); try again in a moment."
    )


async def test_a_retry_shows_in_the_trace_while_it_waits(test_tools):
    with OpenAIServer(replies=[unavailable(), "Thought: ok\nAnswer: hello"]) as server:
        model = model_for(server, max_retries=1)
        events = await collect(Agent(model, test_tools), "hi")
        await model.aclose()
    notices = [e.message for e in events if e.type == "notice"]
    assert len(notices) == 1 and "503" in notices[0] and "attempt 2 of 2" in notices[0]
    assert events[-1].type == "answer" and events[-1].text == "hello"
