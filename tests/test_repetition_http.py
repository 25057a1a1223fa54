"""A model that loops, streamed over real HTTP by the local OpenAI-compatible server at about
the pace of a small local model: the stream is closed and the turn ends with a sentence, in the
conversation's language, saying the model repeated itself, well within 10 s of the loop being
clear (three copies), long before the output limit."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from agent import Agent, Session
from agent.models import OpenAIChatModel
from tests.support.openai_fixtures import serve, stopping
from tests.support.openai_server import Forever
from tests.support.sockets import wait_until_closed

__all__ = ["serve", "stopping"]  # fixtures

# Seconds between copies: a sentence every 0.1 s is a fast local model (about 100 tokens/s).
PACE = 0.1
CLEAR_AFTER = 3  # copies
WITHIN = 10.0  # seconds from clear to the turn's end


async def run_until_cut(agent: Agent, question: str, sentence: str) -> list:
    """The turn's events; fails unless the turn ends within WITHIN seconds of the loop being
    clear."""
    events, text = [], ""
    run = agent.run(question, (), Session())
    async with contextlib.aclosing(run) as stream:
        async for event in stream:
            events.append(event)
            if event.type == "model_delta":
                text += event.text
            if text.count(sentence) >= CLEAR_AFTER:
                break
        async with asyncio.timeout(WITHIN):
            events += [event async for event in stream]
    return events


@pytest.mark.parametrize(
    ("question", "sentence", "said"),
    [
        ("What time is it in Tokyo now?", "The current time in Tokyo is 3:00 PM. ", "repeating"),
        ("现在东京几点了？", "现在东京时间是下午3点。", "一直在重复"),
    ],
    ids=["en", "zh"],
)
async def test_a_looping_model_is_cut_with_a_sentence(serve, test_tools, question, sentence, said):
    server = serve([Forever(sentence)], chunk_delay=PACE)
    model = OpenAIChatModel(model="smollm2", base_url=server.base_url, timeout=5, max_retries=0)
    agent = Agent(model, test_tools, tool_protocol="react")

    events = await run_until_cut(agent, question, sentence)

    final = events[-1]
    assert final.type == "error" and final.kind == "cut_off"
    assert said in final.message and "'smollm2'" in final.message
    streamed = "".join(e.text for e in events if e.type == "model_delta")
    # Cut after a few hundred characters of loop, not at the limit (2,048 tokens).
    assert streamed.count(sentence) < 40
    assert server.wait_for_disconnects(1)
    await model.aclose()
    assert wait_until_closed(server.port) == []
