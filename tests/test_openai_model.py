"""OpenAIChatModel through the real openai client, over real HTTP, against a local server."""

from __future__ import annotations

import asyncio
import logging
import re
import time

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.models import ChatModel, ModelError, ModelRequest, OpenAIChatModel
from tests.support.local import free_port
from tests.support.openai_fixtures import KEY, ask, make_model, serve, stopping
from tests.support.openai_server import (
    CutOff,
    Fail,
    Hang,
    OpenAIServer,
    StreamError,
    rate_limited,
    server_error,
    unauthorized,
    unknown_model,
    unsupported,
)

STEP = 'Thought: I should add.\nAction: calculator\nAction Input: {"expression": "2+2"}\n'
AFTER = "Observation: 4\nThought: I invented this observation.\nAnswer: 4"

__all__ = ["serve", "stopping"]  # fixtures


async def pieces(model: OpenAIChatModel, request: ModelRequest | None = None) -> list[str]:
    try:
        return [piece async for piece in model.stream(request or ask())]
    finally:
        await model.aclose()


async def test_reply_streams_in_pieces_with_the_request_as_given(serve):
    reply = "Thought: Easy.\nAnswer: 2+2 is 4."
    server = serve([reply], chunk_size=5)
    model = make_model(server)
    assert isinstance(model, ChatModel)
    assert model.name == "test-model" and model.offline is False

    got = await pieces(model, ask(max_tokens=50))

    assert len(got) > 1
    assert "".join(got) == reply
    body = server.requests[0]
    assert body["model"] == "test-model"
    assert body["stream"] is True
    assert body["stop"] == ["Observation:"]
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 50


async def test_image_parts_reach_the_server_unchanged(serve):
    server = serve(["Answer: a red square"])
    data_url = (
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
        "nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
    )
    messages = [
        {"role": "system", "content": "You see images."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in img_1?"},
                {"type": "image_url", "image_url": {"url": data_url, "detail": "auto"}},
            ],
        },
    ]

    await pieces(make_model(server), ModelRequest(messages=messages))

    assert server.requests[0]["messages"] == messages


@pytest.mark.parametrize("honour_stop", [True, False])
async def test_reply_stops_before_observation(serve, honour_stop):
    server = serve([STEP + AFTER * 20], honour_stop=honour_stop, chunk_size=3, chunk_delay=0.002)

    got = await pieces(make_model(server))

    assert "".join(got) == STEP
    if not honour_stop:
        # The client stopped reading, so the server saw it go away mid-reply.
        assert server.wait_for_disconnects(1)


async def test_text_that_only_looks_like_a_stop_is_kept(serve):
    reply = "Thought: Observations so far\nObserved: nothing\n  Obs\nAnswer: done"
    server = serve([reply], chunk_size=1)

    assert "".join(await pieces(make_model(server))) == reply


async def test_stop_string_indented_or_mid_line(serve):
    # Only a stop string that begins a line ends the step; a mention inside a line does not.
    reply = "Thought: wait for the Observation: first\nAction: x\n  Observation: made up"
    server = serve([reply], chunk_size=2)

    got = "".join(await pieces(make_model(server)))

    assert got == "Thought: wait for the Observation: first\nAction: x\n"


async def test_reasoning_deltas_and_usage_chunks_are_skipped(serve):
    server = serve(["Answer: 4"], reasoning="Let me think about it...", usage_chunk=True)

    assert "".join(await pieces(make_model(server))) == "Answer: 4"


async def test_refused_stop_is_dropped_once_and_remembered(serve):
    server = serve([unsupported("stop"), STEP + AFTER, "Answer: 4"], honour_stop=True)
    model = make_model(server)

    first = "".join([p async for p in model.stream(ask())])
    second = "".join(await pieces(model))

    assert first == STEP  # stopped on our side, since the server never got `stop`
    assert second == "Answer: 4"
    assert "stop" in server.requests[0]
    assert "stop" not in server.requests[1]
    assert "stop" not in server.requests[2]


async def test_refused_temperature_is_dropped(serve):
    server = serve([unsupported("temperature"), "Answer: 4"])

    assert "".join(await pieces(make_model(server))) == "Answer: 4"
    assert "temperature" in server.requests[0]
    assert "temperature" not in server.requests[1]


FAILURES = {
    # name: (reply, kind, status, words the sentence must hold)
    "bad key": (unauthorized(KEY), "auth", 401, "API key"),
    "unknown model": (unknown_model("test-model"), "not_found", 404, "test-model"),
    "rate limit": (rate_limited(retry_after=7), "rate_limit", 429, "7 seconds"),
    "server error": (server_error(), "server", 500, "internal error"),
    "no answer": (Hang(seconds=5), "timeout", None, "did not answer within 1 second;"),
    "stalled stream": (Hang(seconds=5, text="Thought: I"), "timeout", None, "stopped sending"),
    "cut off": (CutOff("Thought: I will look at the ima"), "cut_off", None, "cut off"),
    "dropped": (CutOff(""), "connection", None, "before sending a reply"),
    "empty": ("", "empty", None, "empty reply"),
    "error event": (StreamError("Thought: I"), "server", None, "part-way"),
    "refused": (Fail(400, f"Invalid image for key {KEY}."), "bad_request", 400, "refused"),
    "too long": (
        Fail(400, "This model's maximum context length is 8192 tokens.", code="context_length"),
        "bad_request",
        400,
        "too long",
    ),
}


@pytest.mark.parametrize("name", list(FAILURES))
async def test_each_failure_is_a_model_error_without_the_key(serve, caplog, name):
    caplog.set_level(logging.DEBUG)
    reply, kind, status, words = FAILURES[name]
    server = serve([reply])
    model = make_model(server, timeout=1.0)

    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        await pieces(model)

    error = caught.value
    assert error.kind == kind
    assert error.status_code == status
    assert words in str(error)
    assert time.monotonic() - started < 4
    assert_no_key(error, model, caplog, server)


async def test_connection_refused_is_a_model_error(caplog):
    caplog.set_level(logging.DEBUG)
    model = make_model(base_url=f"http://127.0.0.1:{free_port()}/v1")

    with pytest.raises(ModelError) as caught:
        await pieces(model)

    assert caught.value.kind == "connection"
    assert "Could not connect" in str(caught.value)
    assert_no_key(caught.value, model, caplog)


async def test_rate_limit_without_retry_after(serve):
    server = serve([rate_limited(retry_after=None)])

    with pytest.raises(ModelError, match="wait a moment") as caught:
        await pieces(make_model(server))
    assert caught.value.kind == "rate_limit"


def assert_no_key(error, model, caplog, server=None):
    assert KEY not in str(error)
    assert KEY not in repr(error)
    assert KEY not in repr(model)
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in str(record.args)
    if server is not None:
        for headers in server.request_headers:
            assert "authorization" not in {name.lower() for name in headers}
            assert KEY not in str(headers)


async def test_closing_the_iterator_closes_the_http_stream(serve):
    server = serve(["x" * 400], chunk_size=2, chunk_delay=0.01)
    model = make_model(server)
    stream = model.stream(ask())

    first = await anext(stream)
    await stream.aclose()

    assert first
    assert server.wait_for_disconnects(1)
    await model.aclose()


@pytest.mark.parametrize("delay", [0.0, 2.0], ids=["mid-reply", "before-first-chunk"])
async def test_cancelling_the_task_closes_the_http_stream(serve, delay):
    server = serve(["y" * 400], delay, chunk_size=2, chunk_delay=0.01)
    model = make_model(server)

    async def consume():
        async for _ in model.stream(ask()):
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert server.wait_for_disconnects(1)
    await model.aclose()


async def test_one_client_per_model_and_aclose():
    model = OpenAIChatModel(model="m", base_url="http://127.0.0.1:9/v1", api_key=KEY)
    client = model._get_client()
    assert model._get_client() is client
    await model.aclose()
    assert client.is_closed()
    assert KEY not in repr(model)


async def test_server_handles_concurrent_calls_without_blocking(serve):
    server = serve(["Answer: ok"] * 8, 0.5)
    model = make_model(server)

    started = time.monotonic()
    replies = await asyncio.gather(*(pieces_once(model) for _ in range(8)))
    elapsed = time.monotonic() - started
    await model.aclose()

    assert replies == ["Answer: ok"] * 8
    assert elapsed < 1.5, elapsed


async def pieces_once(model: OpenAIChatModel, request: ModelRequest | None = None) -> str:
    return "".join([p async for p in model.stream(request or ask())])


async def test_server_speaks_plain_completions_and_lists_models(serve):
    server = serve(["Hello there"], models=["test-model", "other"])
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=KEY, max_retries=0)
    try:
        completion = await client.chat.completions.create(
            model="test-model", messages=[{"role": "user", "content": "hi"}]
        )
        models = await client.models.list()
    finally:
        await client.close()

    assert completion.choices[0].message.content == "Hello there"
    assert [m.id for m in models.data] == ["test-model", "other"]


async def test_server_replies_from_a_callable(serve):
    server = serve(lambda body: f"Answer: you said {body['messages'][-1]['content']}")

    assert "".join(await pieces(make_model(server), ask("hello"))) == "Answer: you said hello"


async def test_extra_headers_reach_the_server_and_the_key_is_not_recorded(serve):
    server = serve(["Answer: 4"])
    model = make_model(server, extra_headers={"X-Title": "react-agent"})

    await pieces(model)

    headers = server.request_headers[0]
    assert headers["x-title"] == "react-agent"
    assert "authorization" not in headers


def test_one_model_serves_successive_event_loops(serve):
    # Benchmarks and scripts call asyncio.run more than once with the same model.
    server = serve(["Answer: one", "Answer: two"])
    model = make_model(server)

    first = asyncio.run(pieces_once(model))
    second = asyncio.run(pieces_once(model))

    assert (first, second) == ("Answer: one", "Answer: two")


async def test_more_than_four_stop_strings_are_honoured_here(serve):
    stops = ["Answer:", "Final:", "Result:", "Done:", "Observation:"]
    server = serve([STEP + AFTER])

    got = "".join(await pieces(make_model(server), ask(stop=stops)))

    assert got == STEP
    assert server.requests[0]["stop"] == stops[:4]


@pytest.fixture(scope="module")
def echo_models():
    # One loop and one client per server for all examples: building a client is the slow part.
    servers = [
        OpenAIServer(lambda body: body["messages"][-1]["content"], chunk_size=size).start()
        for size in (1, 5)
    ]
    loop = asyncio.new_event_loop()
    models = [make_model(server) for server in servers]
    yield loop, models
    for model in models:
        loop.run_until_complete(model.aclose())
    loop.close()
    for server in servers:
        server.stop()


@settings(max_examples=25, deadline=None)
@given(text=st.text(alphabet="Obsevation:\n Ax", min_size=1, max_size=60))
def test_client_side_stop_never_passes_a_stop_line(echo_models, text):
    line = re.search(r"^[ \t]*Observation:", text, re.MULTILINE)
    expected = text[: line.start()] if line else text
    loop, models = echo_models

    for model in models:
        assert loop.run_until_complete(pieces_once(model, ask(text))) == expected
