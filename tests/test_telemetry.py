"""Traces of a turn after the GenAI semantic conventions, read from the SDK's in-memory exporter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from agent import Agent, Session
from agent.config import Settings
from agent.models import ModelError, ScriptedModel
from agent.tracing import telemetry
from agent.turn import TurnState
from tests.conftest import collect

TURN = "invoke_agent multimodal-react-agent"


def action(tool: str, arguments: dict) -> str:
    return f"Thought: use {tool}\nAction: {tool}\nAction Input: {json.dumps(arguments)}"


ANSWER = "Thought: I know now.\nAnswer: done"


class Traced:
    """An in-memory exporter, and agents that trace to it."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def agent(self, replies, tools, *, capture: bool = False, **kwargs) -> Agent:
        settings = Settings(otel_capture_content=capture)
        return Agent(
            ScriptedModel(replies), tools, settings=settings, tracer=self.provider, **kwargs
        )

    @property
    def spans(self):
        return list(self.exporter.get_finished_spans())

    def named(self, prefix: str):
        return [s for s in self.spans if s.name.startswith(prefix)]

    def turn(self):
        (span,) = self.named("invoke_agent")
        return span


@pytest.fixture
def traced():
    return Traced()


@pytest.fixture
def no_global_tracing():
    telemetry.stop_tracing()
    yield
    telemetry.stop_tracing()


async def test_a_turn_with_two_tool_calls_and_an_answer(traced, test_tools):
    replies = [action("echo", {"text": "one"}), action("echo", {"text": "two"}), ANSWER]
    session = Session()
    events = await collect(traced.agent(replies, test_tools), "echo twice", session=session)
    assert events[-1].type == "answer"

    turn = traced.turn()
    children = sorted((s for s in traced.spans if s is not turn), key=lambda s: s.start_time)
    assert [s.name for s in children] == [
        "chat scripted",
        "execute_tool echo",
        "chat scripted",
        "execute_tool echo",
        "chat scripted",
    ]
    for span in children:
        assert span.parent.span_id == turn.context.span_id
        assert span.context.trace_id == turn.context.trace_id
        assert turn.start_time <= span.start_time <= span.end_time <= turn.end_time
    assert turn.name == TURN and turn.kind == SpanKind.INTERNAL
    assert (
        dict(turn.attributes).items()
        >= {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "multimodal-react-agent",
            "gen_ai.conversation.id": session.id,
            "gen_ai.request.model": "scripted",
            "agent.turn.outcome": "answered",
            "agent.turn.model_calls": 3,
            "agent.turn.tool_calls": 2,
        }.items()
    )
    assert turn.status.status_code == StatusCode.UNSET

    chat = children[0]
    assert chat.kind == SpanKind.CLIENT
    assert dict(chat.attributes) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "scripted",
        "gen_ai.provider.name": "scripted",
        "gen_ai.system": "scripted",
        "gen_ai.request.temperature": 0.0,
    }
    calls = [e for e in events if e.type == "tool_call"]
    tools = [s for s in children if s.name.startswith("execute_tool")]
    for span, call in zip(tools, calls, strict=True):
        assert dict(span.attributes) == {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "echo",
            "gen_ai.tool.call.id": call.call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.description": "Repeat the text it is given.",
        }
        assert span.status.status_code == StatusCode.UNSET


async def test_a_failing_tool_has_an_error_type_and_the_turn_goes_on(traced, test_tools):
    replies = [action("refuse", {"text": "x"}), action("slow", {"seconds": 5}), ANSWER]
    events = await collect(traced.agent(replies, test_tools), "try them")
    assert events[-1].type == "answer"
    refused, slow = sorted(traced.named("execute_tool"), key=lambda s: s.start_time)
    assert refused.attributes["error.type"] == "ToolInputError"
    assert slow.attributes["error.type"] == "timeout"
    assert refused.status.status_code == slow.status.status_code == StatusCode.ERROR
    assert traced.turn().attributes["agent.turn.outcome"] == "answered"
    assert "error.type" not in traced.turn().attributes


async def test_a_tool_that_crashes_ends_the_turn_with_an_error(traced, test_tools):
    await collect(traced.agent([action("boom", {"text": "x"})], test_tools), "boom")
    (tool,) = traced.named("execute_tool")
    assert tool.attributes["error.type"] == "RuntimeError"
    turn = traced.turn()
    assert turn.attributes["agent.turn.outcome"] == "error"
    assert turn.attributes["error.type"] == "internal"
    assert turn.status.status_code == StatusCode.ERROR


async def test_a_turn_that_asks_the_user(traced, test_tools):
    replies = [action("book_trip", {"city": "Rome"})]
    events = await collect(traced.agent(replies, test_tools), "book a trip to Rome")
    assert events[-1].type == "ask_user"
    assert [s.name for s in traced.spans] == ["chat scripted", TURN]
    assert traced.turn().attributes["agent.turn.outcome"] == "asked"
    assert traced.turn().status.status_code == StatusCode.UNSET


async def test_a_failing_model_call(traced, test_tools):
    failure = ModelError("The service is limiting requests.", kind="rate_limit")
    await collect(traced.agent([failure], test_tools), "hi")
    (chat,) = traced.named("chat")
    assert chat.attributes["error.type"] == "rate_limit"
    assert chat.status.status_code == StatusCode.ERROR
    assert traced.turn().attributes["error.type"] == "rate_limit"


async def test_content_is_recorded_only_when_switched_on(traced, test_tools, png):
    replies = [action("crop", {"image_id": "img_1"}), ANSWER]
    await collect(traced.agent(replies, test_tools), "crop this", [png])
    for span in traced.spans:
        assert not {k for k in span.attributes if "message" in k or "call.arguments" in k}
        assert "gen_ai.tool.call.result" not in span.attributes

    on = Traced()
    await collect(on.agent(replies, test_tools, capture=True), "crop this", [png])
    (tool,) = on.named("execute_tool")
    assert json.loads(tool.attributes["gen_ai.tool.call.arguments"]) == {"image_id": "img_1"}
    assert tool.attributes["gen_ai.tool.call.result"] == "Cropped img_1 into img_2."
    first, second = sorted(on.named("chat"), key=lambda s: s.start_time)
    asked = json.loads(first.attributes["gen_ai.input.messages"])
    assert asked[0]["role"] == "system"
    assert asked[-1]["parts"][0]["content"].startswith("crop this")
    assert asked[-1]["parts"][1] == {"type": "file", "modality": "image", "file_id": "img_1"}
    (replied,) = json.loads(first.attributes["gen_ai.output.messages"])
    assert replied["parts"] == [{"type": "text", "content": replies[0]}]
    assert replied["role"] == "assistant" and replied["finish_reason"] == "stop"
    # The cropped image goes back to the model with the observation, again as its id.
    observation = json.loads(second.attributes["gen_ai.input.messages"])[-1]["parts"]
    assert observation[1]["file_id"] == "img_2"
    assert all("data:" not in str(dict(span.attributes)) for span in on.spans)


async def test_a_pasted_data_url_is_cut_out_of_recorded_content(traced, test_tools):
    pasted = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    replies = [action("echo", {"text": pasted}), ANSWER]
    await collect(traced.agent(replies, test_tools, capture=True), f"echo {pasted}")
    for span in traced.spans:
        for value in span.attributes.values():
            assert "base64," not in str(value) and "iVBORw0KGgo" not in str(value)


async def test_a_turn_left_midway_ends_its_spans(traced, test_tools):
    agent = traced.agent([action("slow", {"seconds": 0.2})], test_tools)
    agent.tool_by_name["slow"].timeout = 5
    events = agent.run("sleep")
    async for event in events:
        if event.type == "tool_call":
            break
    await events.aclose()
    (tool,) = traced.named("execute_tool")
    assert tool.attributes["error.type"] == "cancelled"
    assert traced.turn().attributes["agent.turn.outcome"] == "cancelled"


async def test_configured_once_for_every_agent(no_global_tracing, traced, test_tools):
    telemetry.configure_tracing(traced.provider)
    agent = Agent(ScriptedModel([ANSWER, ANSWER]), test_tools, settings=Settings())
    await collect(agent, "hi")
    assert [s.name for s in traced.spans] == ["chat scripted", TURN]
    telemetry.stop_tracing()
    await collect(agent, "hi again")
    assert len(traced.spans) == 2


async def test_off_by_default_with_nothing_between_the_turn_and_its_queue(
    no_global_tracing, test_tools
):
    agent = Agent(ScriptedModel([ANSWER]), test_tools, settings=Settings())
    turn = TurnState(agent, "hi", agent.new_session())
    assert turn.tracer is None and turn.emit == turn.queue.put
    await collect(agent, "hi")
    # Tokens are counted for the page whether or not anything is traced.
    assert agent.model.requests[0].want_usage is True


def test_off_means_opentelemetry_is_never_imported():
    code = (
        "import asyncio, sys\n"
        "from agent import Agent\n"
        "from agent.models import ScriptedModel\n"
        "async def main():\n"
        "    agent = Agent(ScriptedModel(['Thought: t\\nAnswer: 4']), [])\n"
        "    return [e.type async for e in agent.run('2+2')]\n"
        "assert asyncio.run(main())[-1] == 'answer'\n"
        "loaded = [m for m in sys.modules if m.startswith('opentelemetry')]\n"
        "assert not loaded, loaded\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=root, timeout=60)
