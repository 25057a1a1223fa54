"""A hostile model's reply is read within bounds, off the event loop, and a native reply makes
at most `MAX_CALLS_PER_REPLY` calls: each ends with one sentence to the model, never a stall."""

from __future__ import annotations

import asyncio
import json
import threading
from types import SimpleNamespace

import json_repair
import pytest

from agent import Agent
from agent.models import OpenAIChatModel, ScriptedModel, ToolCallPart
from agent.models.tool_calls import CallAssembler, CallsTooLong
from agent.native import MAX_CALLS_PER_REPLY
from agent.react import step as react
from agent.react.parser import AnswerStream, ParseError, parse_step
from agent.react.repair import REPAIR_WORK, repair_work
from tests.conftest import collect
from tests.parser_cases import TOOLS
from tests.support.openai_server import OpenAIServer
from tests.support.openai_tool_calls import Calls
from tools.calculator import Calculator

# The reply of the issue: 16 KB, under the 2,048-token cap, 8-14 s of json_repair on the loop.
BOMB = "Thought: x\nAction: calculator\nAction Input: " + '{"' * 8000

# Other 16 KB replies that once took seconds to a minute each to read.
HOSTILE = {
    "repair-bomb": BOMB,
    "repair-bomb-inline": "Action: calculator " + '{"' * 8000,
    "repair-bomb-call": "calculator(" + '{"' * 8000,
    "repair-bomb-thought": "Thought: " + '{"' * 8000 + "\nAnswer: x",
    "call-of-names": "calculator(" + "a," * 8000,
    "comma-line": "Action: " + "," * 16000,
    "fenced-blobs": "```\n" + '{"name": "calculator", "arguments": \n' * 430,
}


@pytest.fixture
def repaired(monkeypatch) -> list[str]:
    """What json_repair is handed (it still does the repairing)."""
    seen: list[str] = []
    real = json_repair.loads

    def watched(text, *args, **kwargs):
        seen.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json_repair, "loads", watched)
    return seen


def test_a_repair_bomb_gets_a_retry_instruction_and_is_never_repaired(repaired):
    with pytest.raises(ParseError) as caught:
        parse_step(BOMB, TOOLS)
    message = str(caught.value)
    assert "valid JSON" in caught.value.reason
    assert "Reply in exactly this format" in message and "Action Input:" in message
    assert repaired == []  # refused before json_repair read any of it


@pytest.mark.parametrize("reply", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_replies_are_read_within_the_repair_budget(reply, repaired):
    try:
        step = parse_step(reply, TOOLS)
    except ParseError as error:
        assert error.reason  # one sentence back to the model
    else:
        assert step.kind in ("action", "answer")
    assert sum(repair_work(text) for text in repaired) <= REPAIR_WORK


def test_short_broken_json_is_still_repaired():
    step = parse_step('Action: calculator\nAction Input: {"expression": "2+2"', TOOLS)
    assert step.tool_input == {"expression": "2+2"}


async def test_a_short_reply_that_needs_more_repair_is_read_in_a_worker_the_same_way():
    # Under the inline limit in length, over the inline repair work: the worker repairs it.
    text = 'He said "hi", then "bye", and left. ' * 5
    reply = 'Thought: t\nAction: search\nAction Input: {"query": "' + text + '"'
    assert len(reply) <= react.INLINE_READ_CHARS
    assert react.INLINE_REPAIR_WORK < repair_work(reply.split("Input: ")[1]) <= REPAIR_WORK
    step = await react.read(reply, TOOLS)
    assert step == parse_step(reply, TOOLS)
    assert step.tool == "search" and "query" in step.tool_input


def test_an_answer_of_blank_lines_streams_in_one_pass():
    reply = "Answer: " + "\n" * 16000 + "done"
    stream = AnswerStream()
    out = "".join(stream.feed(reply[i : i + 4]) for i in range(0, len(reply), 4))
    out += stream.finish()
    assert out == parse_step(reply).answer == "done"


async def test_a_turn_of_bomb_replies_leaves_the_event_loop_free(monkeypatch):
    """While the bomb is read, another task on the loop keeps running: the reading waits for
    that task to tick, which it could never do if the reading held the loop."""
    reading, ticked = threading.Event(), threading.Event()
    progress: list[bool] = []
    real = react.parse_step

    def watched(text, tools=()):
        if text == BOMB:
            reading.set()
            progress.append(ticked.wait(timeout=30))
            reading.clear()
            ticked.clear()
        return real(text, tools)

    monkeypatch.setattr(react, "parse_step", watched)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            if reading.is_set():
                ticked.set()
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        agent = Agent(ScriptedModel([BOMB, BOMB, "Thought: ok\nAnswer: done"]), [Calculator()])
        events = await collect(agent, "what is 1+1?")
    finally:
        task.cancel()
    assert progress == [True, True]
    retries = [e.reason for e in events if e.type == "step_retry"]
    assert len(retries) == 2 and all("valid JSON" in r for r in retries)
    assert events[-1].type == "answer" and events[-1].text == "done"
    assert ticks > 0


async def test_a_native_reply_of_12000_calls_makes_at_most_the_cap():
    calls = Calls([("calculator", {"expression": "1+1"})] * 12_000, style="batched")
    with OpenAIServer(replies=[calls, "All two."]) as server:
        # A token limit large enough that the reply is not cut off for its size.
        model = OpenAIChatModel(
            model="m", base_url=server.base_url, api_key="k", max_retries=0, max_tokens=50_000
        )
        events = await collect(Agent(model, [Calculator()], tool_protocol="native"), "sum")
        await model.aclose()
        second = server.requests[1]["messages"]
    results = [e for e in events if e.type == "tool_result"]
    assert len(results) == MAX_CALLS_PER_REPLY
    (note,) = [e.reason for e in events if e.type == "step_retry"]
    assert f"more than {MAX_CALLS_PER_REPLY} tool calls" in note
    assert note.count(".") == 1  # one sentence
    (assistant,) = [m for m in second if m.get("tool_calls")]
    assert len(assistant["tool_calls"]) == MAX_CALLS_PER_REPLY
    assert sum(1 for m in second if m["role"] == "tool") == MAX_CALLS_PER_REPLY
    assert second[-1] == {"role": "user", "content": note}
    assert events[-1].type == "answer" and events[-1].text == "All two."


async def test_native_arguments_too_broken_to_repair_are_not_run():
    bomb = ToolCallPart(id="b", name="calculator", arguments='{"' * 8000)
    fine = ToolCallPart(id="f", name="calculator", arguments=json.dumps({"expression": "2*3"}))
    model = ScriptedModel([[bomb, fine], "Six."], native_tools=True)
    events = await collect(Agent(model, [Calculator()], tool_protocol="native"), "2*3?")
    assert [e.text for e in events if e.type == "tool_result"] == ["2*3 = 6"]
    (retry,) = [e.reason for e in events if e.type == "step_retry"]
    assert "valid JSON" in retry
    messages = model.requests[1].messages
    tool_messages = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert tool_messages["b"] == retry
    assert events[-1].text == "Six."


def _delta(*pieces: dict) -> SimpleNamespace:
    def piece(raw: dict) -> SimpleNamespace:
        function = SimpleNamespace(name=raw.get("name"), arguments=raw.get("arguments"))
        return SimpleNamespace(index=raw.get("index"), id=raw.get("id"), function=function)

    return SimpleNamespace(tool_calls=[piece(p) for p in pieces])


def test_the_call_assembler_keeps_a_bounded_number_of_calls_and_characters():
    calls = CallAssembler(max_calls=3, max_chars=100)
    for index in range(10):
        calls.feed(_delta({"index": index, "id": f"c{index}", "name": "calculator"}))
        added = calls.feed(_delta({"index": index, "arguments": "{}"}))
        assert added == 2  # the server sent them, kept or not
    assert [p.id for p in calls.parts()] == ["c0", "c1", "c2"]
    assert calls.dropped == 7
    with pytest.raises(CallsTooLong):
        calls.feed(_delta({"index": 0, "arguments": "x" * 200}))
