"""Replies from reasoning models: `<think>` blocks are neither the step nor the answer."""

from __future__ import annotations

import pytest

from agent import Agent
from agent.models import ScriptedModel
from agent.react.parser import ParseError, parse_step
from agent.react.reasoning import ReasoningFilter, strip_reasoning
from tests.conftest import collect

THINKING = "<think>\nMaybe 5?\nAnswer: 5\nAction: nothing\n</think>\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (THINKING + "Answer: 4", "Answer: 4"),
        ("thinking without an opening tag\nAnswer: no</think>\nAnswer: 4", "\nAnswer: 4"),
        ("<THINK>a</THINK>Answer: 4", "Answer: 4"),
        ("<think>cut off before the end", ""),
        ("Answer: 4 (no reasoning)", "Answer: 4 (no reasoning)"),
    ],
)
def test_strip_reasoning(text, expected):
    assert strip_reasoning(text).strip() == expected.strip()


def test_the_step_after_the_reasoning_is_read():
    step = parse_step(
        THINKING + 'Thought: add\nAction: echo\nAction Input: {"text": "x"}', ["echo"]
    )
    assert step.kind == "action" and step.tool == "echo" and step.tool_input == {"text": "x"}


def test_reasoning_alone_is_no_step():
    with pytest.raises(ParseError, match="only reasoning"):
        parse_step("<think>I am still thinking")


@pytest.mark.parametrize("size", [1, 3, 7, 100])
def test_filter_streams_only_what_follows_the_reasoning(size):
    text = "  " + THINKING + "Thought: ok\nAnswer: 4"
    stream = ReasoningFilter()
    out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert out == "\nThought: ok\nAnswer: 4"


def test_filter_passes_replies_without_reasoning():
    stream = ReasoningFilter()
    assert stream.feed("<th") == "" and stream.feed("e answer") == "<the answer"


async def test_agent_streams_the_answer_not_the_reasoning(test_tools):
    model = ScriptedModel([THINKING + "Thought: sure\nAnswer: It is 4."], chunk_size=3)
    events = await collect(Agent(model, test_tools), "2+2?")
    assert events[-1].type == "answer" and events[-1].text == "It is 4."
    assert "".join(e.text for e in events if e.type == "answer_delta") == "It is 4."
    assert "Maybe 5" in "".join(e.text for e in events if e.type == "model_delta")
