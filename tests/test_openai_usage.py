"""The OpenAI-compatible model reports a call's finish reason, and its tokens when asked to."""

from __future__ import annotations

from agent.models import ModelRequest, OpenAIChatModel
from tests.support.openai_server import OpenAIServer, token_usage


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
