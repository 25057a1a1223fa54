"""The ReAct loop through `Agent.run`, with scripted model replies and small test tools."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent import Agent, Session
from agent.events import export_trace, load_trace
from agent.models import ModelError, ScriptedModel
from tests.conftest import collect, types


def make_agent(replies, tools, **kwargs):
    return Agent(ScriptedModel(replies, chunk_size=5), tools, **kwargs)


async def test_direct_answer_streams_without_the_thought(test_tools):
    agent = make_agent(["Thought: I know this one.\nAnswer: Paris is the capital."], test_tools)
    events = await collect(agent, "Capital of France?")
    assert types(events)[0] == "run_started"
    assert types(events)[-2:] == ["run_finished", "answer"]
    assert events[-1].text == "Paris is the capital."
    streamed = "".join(e.text for e in events if e.type == "answer_delta")
    assert streamed == "Paris is the capital."
    assert [e.text for e in events if e.type == "thought"] == ["I know this one."]


async def test_tool_step_replays_json_and_observation(test_tools):
    model = ScriptedModel(
        [
            "Thought: use echo\nAction: echo\nAction Input: {'text': 'hi', 'extra': None}",
            "Thought: done\nAnswer: it said hi",
        ]
    )
    agent = Agent(model, test_tools)
    events = await collect(agent, "echo hi")
    kinds = types(events)
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("answer")
    call = next(e for e in events if e.type == "tool_call")
    result = next(e for e in events if e.type == "tool_result")
    assert call.arguments == {"text": "hi"} and call.call_id == result.call_id
    assert result.ok and result.text == "echo: hi" and result.duration >= 0
    second = model.requests[1].messages
    assert second[-2] == {
        "role": "assistant",
        "content": 'Thought: use echo\nAction: echo\nAction Input: {"text": "hi"}',
    }
    assert second[-1] == {"role": "user", "content": "Observation: echo: hi"}
    assert "'text'" not in json.dumps(second)


async def test_unreadable_reply_is_sent_back_with_a_hint(test_tools):
    model = ScriptedModel(["Action:", "Thought: ok\nAnswer: fine"])
    events = await collect(Agent(model, test_tools), "hello")
    assert "step_retry" in types(events)
    assert events[-1].type == "answer"
    hint = model.requests[1].messages[-1]["content"]
    assert hint.startswith("Observation:") and "Action Input" in hint


async def test_parse_retries_are_bounded(test_tools):
    model = ScriptedModel(["Action:"] * 10)
    events = await collect(Agent(model, test_tools, max_parse_retries=2), "hello")
    assert events[-1].type == "error" and events[-1].kind == "parse"
    assert model.calls == 3


async def test_unknown_tool_becomes_an_observation(test_tools):
    model = ScriptedModel(
        ["Thought: x\nAction: teleport\nAction Input: {}", "Thought: ok\nAnswer: no teleport"]
    )
    events = await collect(Agent(model, test_tools), "teleport me")
    assert events[-1].text == "no teleport"
    observation = model.requests[1].messages[-1]["content"]
    assert "no tool named 'teleport'" in observation and "echo" in observation


async def test_a_tool_input_error_becomes_an_observation(test_tools):
    model = ScriptedModel(
        ['Thought: x\nAction: refuse\nAction Input: {"text": "a"}', "Thought: ok\nAnswer: no"]
    )
    events = await collect(Agent(model, test_tools), "refuse")
    result = next(e for e in events if e.type == "tool_result")
    assert not result.ok and "give a word instead" in result.text
    assert "give a word instead" in model.requests[1].messages[-1]["content"]
    assert events[-1].type == "answer"


async def test_a_tool_bug_ends_the_turn_instead_of_blaming_the_model(test_tools, caplog):
    model = ScriptedModel(
        ['Thought: x\nAction: boom\nAction Input: {"text": "a"}', "Thought: ok\nAnswer: never"]
    )
    events = await collect(Agent(model, test_tools), "boom")
    result = next(e for e in events if e.type == "tool_result")
    assert not result.ok and "kaput" not in result.text
    assert events[-1].type == "error" and events[-1].kind == "internal"
    assert "boom" in events[-1].message and "kaput" not in events[-1].message
    assert model.calls == 1
    assert "kaput" in caplog.text  # the details are in the log


async def test_tool_timeout_is_enforced(test_tools):
    model = ScriptedModel(
        ['Thought: x\nAction: slow\nAction Input: {"seconds": 5}', "Thought: ok\nAnswer: too slow"]
    )
    started = asyncio.get_running_loop().time()
    events = await collect(Agent(model, test_tools), "sleep")
    assert asyncio.get_running_loop().time() - started < 3
    result = next(e for e in events if e.type == "tool_result")
    assert not result.ok and "did not finish within 0.3 seconds" in result.text
    assert any(e.type == "tool_progress" and e.message == "sleeping" for e in events)


async def test_step_limit_stops_the_turn(test_tools):
    replies = [f'Thought: again\nAction: echo\nAction Input: {{"text": "{i}"}}' for i in range(20)]
    events = await collect(Agent(ScriptedModel(replies), test_tools, max_steps=3), "loop")
    assert events[-1].type == "error" and events[-1].kind == "step_limit"
    assert sum(e.type == "tool_call" for e in events) == 3


async def test_repeated_action_is_caught(test_tools):
    same = 'Thought: again\nAction: echo\nAction Input: {"text": "x"}'
    model = ScriptedModel([same] * 10)
    events = await collect(Agent(model, test_tools, max_steps=10), "loop")
    assert sum(e.type == "tool_call" for e in events) == 1
    assert events[-1].type == "error" and events[-1].kind == "repeat"
    assert "already called echo" in model.requests[2].messages[-1]["content"]


async def test_model_error_ends_the_turn_with_its_sentence(test_tools):
    model = ScriptedModel([ModelError("The API key was refused.", status_code=401, kind="auth")])
    session = Session()
    events = await collect(Agent(model, test_tools), "hi", session=session)
    assert events[-1].type == "error" and events[-1].message == "The API key was refused."
    assert session.history[-1].outcome == "error"


async def test_tool_images_reach_the_model_in_the_observation(test_tools, png):
    model = ScriptedModel(
        [
            'Thought: crop\nAction: crop\nAction Input: {"image_id": "img_1"}',
            "Thought: ok\nAnswer: left half is red",
        ]
    )
    events = await collect(Agent(model, test_tools), "crop this", [png])
    result = next(e for e in events if e.type == "tool_result")
    assert [i.id for i in result.images] == ["img_2"]
    observation = model.requests[1].messages[-1]
    parts = observation["content"]
    assert parts[0]["text"].startswith("Observation: Cropped img_1 into img_2.")
    assert parts[1]["type"] == "image_url"
    assert parts[1]["image_url"]["url"].startswith("data:image/")


async def test_earlier_images_are_sent_once_per_request(test_tools, png):
    session = Session()
    model = ScriptedModel(
        [
            "Thought: ok\nAnswer: a red picture",
            'Thought: e\nAction: echo\nAction Input: {"text": "x"}',
            "Thought: ok\nAnswer: done",
        ]
    )
    agent = Agent(model, test_tools)
    await collect(agent, "what is this?", [png], session)
    await collect(agent, "echo x", session=session)
    last = json.dumps(model.requests[-1].messages)
    assert last.count("data:image/") == 1


async def test_rejected_upload_is_a_notice_and_the_turn_goes_on(test_tools, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not an image")
    agent = make_agent(["Thought: ok\nAnswer: hello"], test_tools)
    events = await collect(agent, "hi", [bad])
    notice = next(e for e in events if e.type == "notice")
    assert "notes.txt" in notice.message
    assert events[-1].type == "answer"


async def test_empty_turn_is_refused_politely(test_tools):
    events = await collect(make_agent([], test_tools), "   ")
    assert events[-1].type == "error" and events[-1].kind == "input"


async def test_cancelling_closes_the_model_stream(test_tools):
    closed = asyncio.Event()

    class Endless:
        name = "endless"
        offline = False

        async def stream(self, request):
            try:
                yield "Thought: thinking"
                while True:
                    await asyncio.sleep(0.01)
                    yield "."
            finally:
                closed.set()

    run = Agent(Endless(), test_tools).run("go")
    async for event in run:
        if event.type == "model_delta":
            break
    await run.aclose()
    assert closed.is_set()


async def test_cancelling_stops_a_running_tool(test_tools):
    model = ScriptedModel(['Thought: x\nAction: slow\nAction Input: {"seconds": 0.2}'])
    agent = Agent(model, test_tools)

    async def consume():
        async for _ in agent.run("sleep"):
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_trace_export_round_trips(test_tools):
    agent = make_agent(
        ['Thought: e\nAction: echo\nAction Input: {"text": "x"}', "Thought: ok\nAnswer: x"],
        test_tools,
    )
    events = await collect(agent, "echo x")
    again = load_trace(export_trace(events))
    assert types(again) == types(events)


async def test_chinese_question_gets_the_chinese_header(test_tools):
    model = ScriptedModel(["Thought: 好\nAnswer: 你好"])
    events = await collect(Agent(model, test_tools), "你好吗？")
    assert events[0].language == "zh"
    assert "请用中文回答" in model.requests[0].messages[0]["content"]


async def test_bare_string_input_goes_to_the_one_required_field(test_tools):
    model = ScriptedModel(["Thought: x\nAction: echo\nAction Input: hello there", "Answer: ok"])
    events = await collect(Agent(model, test_tools), "echo hello there")
    assert next(e for e in events if e.type == "tool_call").arguments == {"text": "hello there"}


async def test_argument_names_in_another_case_are_understood(test_tools):
    model = ScriptedModel(
        [
            'Thought: x\nAction: book_trip\nAction Input: {"City": "Rome", "DATE": "2026-02-02"}',
            "Answer: ok",
        ]
    )
    events = await collect(Agent(model, test_tools), "book Rome")
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments["city"] == "Rome" and call.arguments["date"] == "2026-02-02"


@pytest.mark.parametrize("written", ["1", "img1", "Image 1", "[img_1]", "图片1"])
async def test_loosely_written_image_ids_are_resolved(test_tools, png, written):
    model = ScriptedModel(
        [
            f"Thought: x\nAction: crop\nAction Input: {json.dumps({'image_id': written})}",
            "Answer: ok",
        ]
    )
    events = await collect(Agent(model, test_tools), "crop", [png])
    assert next(e for e in events if e.type == "tool_result").ok


@pytest.mark.parametrize("written", ["img_9", "../img_1", "/etc/passwd", "img_1.jpg"])
async def test_other_image_ids_are_refused(test_tools, png, written):
    model = ScriptedModel(
        [
            f"Thought: x\nAction: crop\nAction Input: {json.dumps({'image_id': written})}",
            "Answer: ok",
        ]
    )
    events = await collect(Agent(model, test_tools), "crop", [png])
    result = next(e for e in events if e.type == "tool_result")
    assert not result.ok and "Known image ids: img_1" in result.text
