"""A new tool works with the offline model by one entry in the offline package, nothing else:
no field of the tool, no edit of the model."""

from __future__ import annotations

import pytest
from pydantic import Field

from agent import Agent
from agent.models import OfflineModel
from agent.models.offline import tool_hints
from agent.models.offline.tool_hints import ToolHints
from tests.conftest import collect
from tools import default_tools
from tools.base import StrictArgs, Tool, ToolResult


class ShoutArgs(StrictArgs):
    words: str = Field(description="What to say loudly.")


class Shout(Tool):
    name = "shout"
    description = "Say the words in capital letters."
    Args = ShoutArgs
    quick = True

    def extract(self, text, image_ids, known):
        rest = text.split("shout", 1)[-1].strip()
        return {"words": rest} if rest else {}

    def run(self, args, ctx):
        return ToolResult(text=args.words.upper() + "!")


@pytest.fixture
def shout_entry():
    tool_hints.register("shout", ToolHints(en=(r"\bshout\b",), zh=(r"大声",)))
    yield
    tool_hints.unregister("shout")


def calls(events):
    return [(e.tool, e.arguments) for e in events if e.type == "tool_call"]


async def test_a_registered_tool_is_called_by_the_offline_model(shout_entry):
    agent = Agent(OfflineModel(), [*default_tools(), Shout()])
    events = await collect(agent, "shout good morning")
    assert calls(events) == [("shout", {"words": "good morning"})]
    assert events[-1].type == "answer" and "GOOD MORNING!" in events[-1].text


async def test_its_chinese_phrase_calls_it_too(shout_entry):
    agent = Agent(OfflineModel(), [Shout()])
    events = await collect(agent, "请大声说早上好")
    assert [tool for tool, _ in calls(events)] == ["shout"]


async def test_without_its_entry_the_offline_model_does_not_pick_it():
    agent = Agent(OfflineModel(), [Shout()])
    events = await collect(agent, "shout good morning")
    assert calls(events) == []
