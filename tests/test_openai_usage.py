"""The OpenAI-compatible model reports a call's finish reason, and its tokens when asked to."""

from __future__ import annotations

import pytest

from agent import Agent
from agent.config import Settings
from agent.models import ModelRequest, OpenAIChatModel
from agent.tokens import Tokens, request_tokens, text_tokens
from tests.conftest import collect
from tests.support.openai_server import OpenAIServer, token_usage, unsupported


async def reply(server: OpenAIServer, request: ModelRequest) -> str:
    model = OpenAIChatModel(model="m", base_url=server.base_url, api_key="k", max_retries=0)
    try:
        return "".join([piece async for piece in model.stream(request)])
    finally:
        await model.aclose()


async def test_usage_is_asked_for_and_kept_on_the_request():
    request = ModelRequest(messages=[{"role": "user", "content": "two plus two"}], want_usage=True)
    with OpenAIServer(replies=["Answer: 4"]) as server:
        assert await reply(server, request) == "Answer: 4"
        (body,) = server.requests
    assert body["stream_options"] == {"include_usage": True}
    usage = token_usage(body, "Answer: 4")
    assert request.report.input_tokens == usage["prompt_tokens"] == 3
    assert request.report.output_tokens == usage["completion_tokens"] == 2
    assert request.report.finish_reason == "stop"


async def test_without_asking_the_request_is_as_before():
    request = ModelRequest(messages=[{"role": "user", "content": "hi"}])
    with OpenAIServer(replies=["Answer: hello"]) as server:
        await reply(server, request)
        (body,) = server.requests
    assert "stream_options" not in body
    assert request.report.input_tokens is None and request.report.finish_reason == "stop"


async def test_cached_tokens_are_kept_where_the_service_gives_them():
    request = ModelRequest(messages=[{"role": "user", "content": "two plus two"}], want_usage=True)
    with OpenAIServer(replies=["Answer: 4"], cached_tokens=2) as server:
        await reply(server, request)
    assert request.report.cached_tokens == 2


async def test_a_turn_over_http_carries_the_services_counts_and_their_cost(test_tools):
    prices = '{"m": {"input": 1000, "output": 2000, "cached": 500}}'
    replies = ['Thought: t\nAction: echo\nAction Input: {"text": "hi"}', "Thought: ok\nAnswer: hi"]
    with OpenAIServer(replies=replies, honour_stop=True, cached_tokens=1) as server:
        model = OpenAIChatModel(model="m", base_url=server.base_url, api_key="k", max_retries=0)
        agent = Agent(model, test_tools, settings=Settings(prices=prices))
        events = await collect(agent, "echo hi")
        bodies = list(server.requests)
        await model.aclose()
    assert events[-1].type == "answer"
    calls = [e for e in events if e.type == "model_call"]
    for call, body, text in zip(calls, bodies, replies, strict=True):
        usage = token_usage(body, text)
        assert (call.input_tokens, call.output_tokens) == (
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )
        assert call.cached_tokens == 1 and not call.estimated
        priced = (usage["prompt_tokens"] - 1) * 1000 + 500 + usage["completion_tokens"] * 2000
        assert call.cost == pytest.approx(priced / 1_000_000)
    tokens = Tokens.of(events)
    assert tokens.input == sum(c.input_tokens for c in calls) > 0
    assert tokens.cached == 2 and tokens.cost == pytest.approx(sum(c.cost for c in calls))


async def test_a_server_that_refuses_usage_is_asked_without_it_and_the_figures_are_estimated(
    test_tools,
):
    with OpenAIServer(
        replies=[unsupported("stream_options"), "Answer: hi", "Answer: again"]
    ) as server:
        model = OpenAIChatModel(model="m", base_url=server.base_url, api_key="k", max_retries=0)
        agent = Agent(model, test_tools, settings=Settings())
        first = await collect(agent, "hi")
        second = await collect(agent, "hi again")
        refused, retried, later = server.requests
        await model.aclose()
    assert first[-1].type == second[-1].type == "answer"
    assert "stream_options" in refused
    # Refused once, never asked again of that model.
    assert "stream_options" not in retried and "stream_options" not in later
    (call,) = [e for e in first if e.type == "model_call"]
    assert call.estimated and call.output_tokens == text_tokens("Answer: hi")
    assert call.input_tokens == request_tokens(retried["messages"], retried.get("tools"))
