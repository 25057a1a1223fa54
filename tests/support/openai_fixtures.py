"""Local OpenAI-compatible servers and models pointed at them, shared by the model's tests."""

from __future__ import annotations

import pytest

from agent.models import ModelRequest, OpenAIChatModel
from tests.support.openai_server import OpenAIServer

KEY = "sk-test-DO-NOT-LEAK-7f3a9c1e5b"


@pytest.fixture(scope="module")
def stopping():
    # Servers shut down in the background while later tests run; all are joined at the end.
    servers: list[OpenAIServer] = []
    yield servers
    for server in servers:
        server.join()


@pytest.fixture
def serve(stopping):
    servers: list[OpenAIServer] = []

    def start(*args, **kwargs) -> OpenAIServer:
        server = OpenAIServer(*args, **kwargs).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop(wait=False)
        stopping.append(server)


def make_model(server: OpenAIServer | None = None, **kwargs) -> OpenAIChatModel:
    base_url = server.base_url if server else kwargs.pop("base_url")
    options = {"timeout": 5.0, "max_retries": 0, **kwargs}
    return OpenAIChatModel(model="test-model", base_url=base_url, api_key=KEY, **options)


def ask(text: str = "What is 2+2?", **kwargs) -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": text}], **kwargs)


async def reply_of(model: OpenAIChatModel, request: ModelRequest | None = None) -> str:
    return "".join([piece async for piece in model.stream(request or ask())])
