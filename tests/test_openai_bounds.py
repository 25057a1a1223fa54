"""OpenAIChatModel's limits over real HTTP: the output limit, the time budget with its retries,
and the sentence for each failure of the service."""

from __future__ import annotations

import re
import time

import pytest

from agent.models import ModelError, ModelRequest
from tests.support.local import free_port
from tests.support.openai_fixtures import KEY, ask, make_model, reply_of, serve, stopping
from tests.support.openai_server import (
    CutOff,
    Fail,
    Forever,
    Hang,
    StreamError,
    bad_gateway,
    gateway_timeout,
    rate_limited,
    server_error,
    unauthorized,
    unavailable,
    unknown_model,
    unsupported,
)
from tests.support.sockets import wait_until_closed

__all__ = ["serve", "stopping"]  # fixtures

# -- the output limit ------------------------------------------------------------------------


async def test_max_tokens_is_always_sent(serve):
    server = serve(["Answer: 1", "Answer: 2", "Answer: 3"])

    await reply_of(make_model(server))
    await reply_of(make_model(server, max_tokens=300))
    await reply_of(make_model(server, max_tokens=300), ask(max_tokens=50))

    assert [body["max_tokens"] for body in server.requests] == [2048, 300, 50]


async def test_refused_max_tokens_becomes_max_completion_tokens_then_nothing(serve):
    replies = [unsupported("max_tokens"), unsupported("max_completion_tokens"), "A", "B"]
    server = serve(replies)
    model = make_model(server, max_tokens=64)

    assert await reply_of(model) == "A"
    assert await reply_of(model) == "B"

    sent = [
        {k: b[k] for k in ("max_tokens", "max_completion_tokens") if k in b}
        for b in server.requests
    ]
    assert sent == [{"max_tokens": 64}, {"max_completion_tokens": 64}, {}, {}]


@pytest.mark.parametrize("reasoning", [False, True], ids=["reply", "reasoning"])
async def test_a_server_ignoring_max_tokens_is_cut_off_here(serve, reasoning):
    server = serve([Forever(reasoning=reasoning)], chunk_delay=0.001)
    # A limit that binds before the endless text is clearly a loop (`repetition`).
    model = make_model(server, max_tokens=50)
    got = ""

    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        async for piece in model.stream(ask()):
            got += piece

    assert caught.value.kind == "cut_off"
    assert str(caught.value) == (
        "The model's reply ran past its limit of 50 tokens without ending, so it was cut off; "
        "try again, or ask for a shorter answer."
    )
    assert time.monotonic() - started < 3
    assert len(got) <= 400
    assert server.wait_for_disconnects(1)
    assert wait_until_closed(server.port) == []
    await model.aclose()


async def test_a_long_reply_within_the_limit_is_not_cut(serve):
    reply = "Answer: " + "word " * 400  # 2,008 characters for a limit of 500 tokens
    server = serve([reply], chunk_size=50)

    assert await reply_of(make_model(server, max_tokens=500)) == reply


# -- the time budget and retries -------------------------------------------------------------


async def test_a_server_that_never_answers_ends_at_the_timeout(serve):
    # The openai client's hidden retry used to double this wait, under a sentence naming half.
    server = serve([Hang(seconds=30), Hang(seconds=30)])
    model = make_model(server, timeout=2.0, max_retries=1)

    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        await reply_of(model)
    waited = time.monotonic() - started

    assert 1.9 <= waited < 2.8, waited
    assert caught.value.kind == "timeout"
    assert "did not answer within 2 seconds" in str(caught.value)
    assert len(server.requests) == 1
    await model.aclose()


async def test_a_503_is_tried_again_and_the_retry_is_announced(serve):
    server = serve([unavailable(), "Answer: ok"])
    notices: list[str] = []
    model = make_model(server, max_retries=1)

    assert await reply_of(model, ask(on_retry=notices.append)) == "Answer: ok"

    assert notices == [
        "The model service answered HTTP 503; trying again in 0.5 seconds (attempt 2 of 2)."
    ]
    assert len(server.requests) == 2
    await model.aclose()


async def test_the_retry_is_announced_in_the_conversations_language(serve):
    server = serve([unavailable(), "Answer: 好"])
    notices: list[str] = []
    model = make_model(server, max_retries=1)
    request = ask(on_retry=notices.append)
    request.language = "zh"

    assert await reply_of(model, request) == "Answer: 好"

    assert notices == ["模型服务返回 HTTP 503；0.5 秒后重试（第 2 次，共 2 次）。"]
    await model.aclose()


@pytest.mark.parametrize("reply", [server_error(), bad_gateway(), gateway_timeout()])
async def test_each_5xx_is_tried_again(serve, reply):
    server = serve([reply, "Answer: ok"])

    assert await reply_of(make_model(server, max_retries=1)) == "Answer: ok"


async def test_retries_stop_after_max_retries_with_the_last_sentence(serve):
    server = serve([unavailable()] * 4)
    notices: list[str] = []
    model = make_model(server, max_retries=2)

    with pytest.raises(ModelError) as caught:
        await reply_of(model, ask(on_retry=notices.append))

    assert (
        str(caught.value)
        == "The model service is unavailable right now (503); try again in a moment."
    )
    assert caught.value.status_code == 503
    assert len(server.requests) == 3
    assert [
        re.search(r"in ([\d.]+) seconds? \(attempt (\d) of 3\)", n).groups() for n in notices
    ] == [
        ("0.5", "2"),
        ("1", "3"),
    ]
    await model.aclose()


async def test_a_retry_after_longer_than_the_budget_is_not_waited_for(serve):
    server = serve([unavailable(retry_after=30), "Answer: too late"])
    model = make_model(server, timeout=2.0, max_retries=3)

    started = time.monotonic()
    with pytest.raises(ModelError, match=r"unavailable right now \(503\); try again in 30 seconds"):
        await reply_of(model)

    assert time.monotonic() - started < 1
    assert len(server.requests) == 1
    await model.aclose()


async def test_a_retry_that_hangs_still_ends_at_the_timeout(serve):
    server = serve([unavailable(), Hang(seconds=30)])
    notices: list[str] = []
    model = make_model(server, timeout=2.0, max_retries=1)

    started = time.monotonic()
    with pytest.raises(ModelError, match="did not answer within 2 seconds"):
        await reply_of(model, ask(on_retry=notices.append))

    assert 1.9 <= time.monotonic() - started < 2.8
    assert len(notices) == 1 and len(server.requests) == 2
    await model.aclose()


async def test_a_refused_connection_is_tried_again():
    notices: list[str] = []
    model = make_model(base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=1)

    with pytest.raises(ModelError, match="Could not connect") as caught:
        await reply_of(model, ask(on_retry=notices.append))

    assert caught.value.kind == "connection"
    assert notices == [
        "The connection to the model service failed; trying again in 0.5 seconds (attempt 2 of 2)."
    ]
    await model.aclose()


@pytest.mark.parametrize(
    "reply",
    [
        unauthorized(KEY),
        unknown_model(),
        Fail(400, "Invalid image."),
        Fail(429, "You exceeded your current quota.", code="insufficient_quota"),
    ],
    ids=["401", "404", "400", "quota"],
)
async def test_failures_that_cannot_pass_are_not_tried_again(serve, reply):
    server = serve([reply, "Answer: never"])

    with pytest.raises(ModelError):
        await reply_of(make_model(server, max_retries=3))

    assert len(server.requests) == 1


def test_the_retry_callback_is_not_serialised():
    request = ask(on_retry=print)

    assert "on_retry" not in request.model_dump()
    assert "on_retry" not in request.model_dump_json()
    assert ModelRequest.model_validate(request.model_dump()).on_retry is None


# -- what each failure says ------------------------------------------------------------------

SENTENCES = {
    500: "The model service had an internal error (500); try again in a moment.",
    502: "The gateway in front of the model service got no valid answer from it (502); "
    "try again in a moment.",
    503: "The model service is unavailable right now (503); try again in a moment.",
    504: "The gateway in front of the model service timed out waiting for the model (504); "
    "try again in a moment, or send a shorter conversation.",
    507: "The model service failed with HTTP 507; try again in a moment.",
}


@pytest.mark.parametrize("status", list(SENTENCES))
async def test_each_5xx_has_its_own_sentence(serve, status):
    server = serve([Fail(status, f"Internal details mentioning {KEY}.", type="server_error")])

    with pytest.raises(ModelError) as caught:
        await reply_of(make_model(server))

    assert str(caught.value) == SENTENCES[status]
    assert caught.value.kind == "server" and caught.value.status_code == status


async def test_a_503_with_retry_after_says_when(serve):
    server = serve([unavailable(retry_after=20)])

    with pytest.raises(ModelError, match=r"\(503\); try again in 20 seconds\.$"):
        await reply_of(make_model(server))


FAILURES = [
    unauthorized(KEY),
    Fail(403, "Forbidden."),
    unknown_model(),
    rate_limited(7),
    rate_limited(None),
    Fail(429, "Quota.", code="insufficient_quota"),
    server_error(),
    unavailable(),
    Fail(400, "Invalid image."),
    Fail(400, "Maximum context length exceeded."),
    Fail(413, "Payload too large."),
    Fail(418, "I'm a teapot."),
    Hang(seconds=5),
    Hang(seconds=5, text="Thought: I"),
    CutOff("Thought: I will"),
    CutOff(""),
    StreamError("Thought: I"),
    "",
    Forever(),
]


@pytest.mark.parametrize("reply", FAILURES, ids=lambda r: type(r).__name__)
async def test_every_failure_says_what_happened_and_what_to_do(serve, reply):
    server = serve([reply])

    with pytest.raises(ModelError) as caught:
        await reply_of(make_model(server, timeout=1.0, max_tokens=50))

    sentence = str(caught.value)
    what, _, todo = sentence.partition("; ")
    assert "\n" not in sentence and sentence.endswith(".")
    assert what and todo, sentence
    assert re.match(r"(try|check|start|wait|raise|send|choose|ask)\b", todo), sentence
    assert KEY not in sentence
