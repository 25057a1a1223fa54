"""Native tool calling: the endpoint's `tools` parameter, streamed calls as real servers send
them, several calls in one reply, the task dialogue, images, and the fallback to ReAct text."""

from __future__ import annotations

import json

import pytest

from agent import Agent, Session, native
from agent.call_arguments import arguments_of
from agent.models import OpenAIChatModel, ScriptedModel, ToolCallPart
from agent.tool_specs import tool_specs
from tests.conftest import collect
from tests.support.openai_server import OpenAIServer
from tests.support.openai_tool_calls import Calls
from tools.calculator import Calculator
from tools.convert_units import ConvertUnits


def part(name: str, args: dict | str, call_id: str = "c1") -> ToolCallPart:
    raw = args if isinstance(args, str) else json.dumps(args)
    return ToolCallPart(id=call_id, name=name, arguments=raw)


def native_agent(replies, tools, **kwargs) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(replies, native_tools=True)
    return Agent(model, tools, **kwargs), model


def test_specs_come_from_each_tools_arguments_and_include_the_control_actions():
    specs, names = tool_specs([ConvertUnits()])
    by_name = {s["function"]["name"]: s["function"] for s in specs}
    assert set(by_name) == {
        "convert_units",
        "end_conversation",
        "ASK_USER_FOR_INTENT",
        "ASK_USER_FOR_REQUIRED_PARAMS",
        "TOOL_OTHER",
    }
    params = by_name["convert_units"]["parameters"]
    assert set(params["required"]) == {"value", "from_unit", "to_unit"}
    assert names["convert_units"] == "convert_units"


def test_broken_or_bare_arguments_are_read_as_far_as_they_go():
    assert arguments_of('{"expression": "2+2"') == {"expression": "2+2"}
    assert arguments_of('"2+2"') == {"input": "2+2"}
    assert arguments_of("") == {}


async def test_a_call_runs_and_its_result_goes_back_as_a_tool_message():
    agent, model = native_agent(
        [[part("calculator", {"expression": "6*7"})], "It is 42."], [Calculator()]
    )
    events = await collect(agent, "what is 6 times 7?")
    assert events[0].protocol == "native" and events[-2].protocol == "native"
    assert events[-1].type == "answer" and events[-1].text == "It is 42."
    first, second = model.requests
    assert first.tool_specs and first.stop == ["Observation:"]
    assistant, tool = second.messages[-2:]
    assert assistant["tool_calls"][0]["function"]["name"] == "calculator"
    assert tool == {"role": "tool", "tool_call_id": "c1", "content": "6*7 = 42"}


async def test_text_before_the_calls_is_the_thought_and_a_reply_without_calls_streams():
    agent, _ = native_agent(
        [["Let me work it out.", part("calculator", {"expression": "1+1"})], "Two."],
        [Calculator()],
    )
    events = await collect(agent, "1+1?")
    assert [e.text for e in events if e.type == "thought"] == ["Let me work it out."]
    assert "".join(e.text for e in events if e.type == "answer_delta") == "Two."


async def test_several_calls_run_and_settle_in_call_order():
    agent, model = native_agent(
        [
            [
                part("calculator", {"expression": "1+1"}, "a"),
                part("convert_units", {"value": 1, "from_unit": "km", "to_unit": "m"}, "b"),
            ],
            "Done.",
        ],
        [Calculator(), ConvertUnits()],
    )
    events = await collect(agent, "two things")
    assert [e.tool for e in events if e.type == "tool_result"] == ["calculator", "convert_units"]
    tool_messages = [m for m in model.requests[1].messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["a", "b"]
    assert events[-2].steps == 2


async def test_a_missing_argument_is_asked_of_the_user_and_merged_next_turn():
    agent, _ = native_agent(
        [
            [part("convert_units", {"value": 5, "from_unit": "mile"})],
            [part("convert_units", {"value": 5, "from_unit": "mile", "to_unit": "km"})],
            "5 miles is 8.05 km.",
        ],
        [ConvertUnits()],
    )
    session = Session()
    first = await collect(agent, "convert 5 miles", session=session)
    assert first[-1].type == "ask_user" and first[-1].missing == ["to_unit"]
    second = await collect(agent, "km", session=session)
    (result,) = [e for e in second if e.type == "tool_result"]
    assert "8.04672 km" in result.text and second[-1].type == "answer"


async def test_control_actions_are_tools():
    agent, _ = native_agent(
        [[part("end_conversation", {"end_phrase": "Bye now!"})]], [Calculator()]
    )
    events = await collect(agent, "bye")
    assert events[-1].type == "answer" and events[-1].ended and events[-1].text == "Bye now!"


@pytest.mark.parametrize(
    "reply",
    [
        'Thought: calc\nAction: calculator\nAction Input: {"expression": "2*3"}',
        '**Thought:** calc\n**Action:** calculator\n**Action Input:** {"expression": "2*3"}',
        '思考：算一下\n行动：calculator\n行动输入：{"expression": "2*3"}',
    ],
)
async def test_a_model_that_writes_react_text_instead_is_still_understood(reply):
    agent, model = native_agent([reply, "Six."], [Calculator()])
    events = await collect(agent, "2*3?")
    assert [e.text for e in events if e.type == "tool_result"] == ["2*3 = 6"]
    assert events[-1].text == "Six."
    # It is answered as it wrote: its step as its own words, the result as the Observation.
    *_, said, observed = model.requests[-1].messages
    assert said["role"] == "assistant" and "calculator" in said["content"]
    assert observed == {"role": "user", "content": "Observation: 2*3 = 6"}


@pytest.mark.parametrize("style", ["openai", "vllm", "llamacpp"])
async def test_streamed_calls_over_http_in_each_servers_way(style):
    replies = [
        Calls(
            [
                ("calculator", {"expression": "12.5% of 2480"}),
                ("calculator", {"expression": "2+3"}),
            ],
            text="Two sums.",
            style=style,
        ),
        "310 and 5.",
    ]
    with OpenAIServer(replies=replies) as server:
        model = OpenAIChatModel(model="m", base_url=server.base_url, api_key="k", max_retries=0)
        events = await collect(Agent(model, [Calculator()]), "sums please")
        await model.aclose()
        first, second = server.requests
    assert first["tools"] and "stop" not in first
    texts = [e.text for e in events if e.type == "tool_result"]
    assert texts == ["12.5% of 2480 = 310", "2+3 = 5"]
    assert [m["role"] for m in second["messages"][-3:]] == ["assistant", "tool", "tool"]
    assert events[-1].text == "310 and 5."


async def test_auto_falls_back_to_react_text_and_remembers_the_endpoint(monkeypatch):
    monkeypatch.setattr(native, "NO_NATIVE_TOOLS", set())
    replies = ['Thought: x\nAction: calculator\nAction Input: {"expression": "3*3"}', "Nine."]
    with OpenAIServer(replies=[*replies, "Answer: again"], refuse_tools=True) as server:
        model = OpenAIChatModel(model="m", base_url=server.base_url, api_key="k", max_retries=0)
        agent = Agent(model, [Calculator()])
        events = await collect(agent, "3*3?")
        again = await collect(agent, "once more")
        await model.aclose()
    assert any(e.type == "notice" and "ReAct" in e.message for e in events)
    assert events[-1].text == "Nine." and events[-2].protocol == "react"
    assert again[0].protocol == "react"  # remembered: no second refusal
    assert sum(1 for r in server.requests if r.get("tools")) == 1


async def test_native_without_fallback_says_so_in_one_sentence():
    with OpenAIServer(replies=[], refuse_tools=True) as server:
        model = OpenAIChatModel(model="m", base_url=server.base_url, api_key="k", max_retries=0)
        events = await collect(Agent(model, [Calculator()], tool_protocol="native"), "hi")
        await model.aclose()
    assert events[-1].type == "error" and events[-1].kind == "tools_unsupported"


async def test_a_tools_image_follows_its_tool_message_as_an_image_part(test_tools, png):
    agent, model = native_agent([[part("crop", {"image_id": "img_1"}, "k1")], "Red."], test_tools)
    events = await collect(agent, "crop it", [png])
    assert events[-1].text == "Red."
    tail = model.requests[1].messages[-3:]
    assert [m["role"] for m in tail] == ["assistant", "tool", "user"]
    note, image = tail[2]["content"]
    assert "img_2 from call k1 (crop)" in note["text"]
    assert image["image_url"]["url"].startswith("data:image/")
