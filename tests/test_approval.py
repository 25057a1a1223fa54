"""Approval before a tool acts on the outside world: the turn stops with the call, and the next
turn approves, edits or denies it, by a decision or by a typed reply; policies and "always"."""

from __future__ import annotations

import json

import pytest
from pydantic import Field

from agent import Agent, Session
from agent.approval import ApprovalDecision, read_reply
from agent.events import EVENT_ADAPTER, export_trace, load_trace
from agent.models import ScriptedModel, ToolCallPart
from agent.session import load_session, save_session
from tests.conftest import collect, types
from tools.base import StrictArgs, Tool, ToolResult
from tools.calculator import Calculator
from ui.trace.view import render

SENT: list[dict] = []


class OrderArgs(StrictArgs):
    item: str = Field(description="What to order.")
    count: int = Field(ge=1, le=10, description="How many.")


class Order(Tool):
    """Stands for a tool that changes something outside (a shop's order form)."""

    name = "order"
    description = "Order items from the shop."
    Args = OrderArgs
    acts_on_world = True

    def run(self, args, ctx):
        SENT.append(args.model_dump())
        return ToolResult(text=f"ordered {args.count} x {args.item}")


def action(tool: str, args: dict) -> str:
    return f"Thought: I will do it.\nAction: {tool}\nAction Input: {json.dumps(args)}"


ORDER = action("order", {"item": "tea", "count": 2})


@pytest.fixture(autouse=True)
def _clear():
    SENT.clear()


def agent(*replies, **kwargs) -> Agent:
    return Agent(ScriptedModel(list(replies)), [Order(), Calculator()], **kwargs)


async def run(agent_, text, session, decision=None):
    return [e async for e in agent_.run(text, session=session, decision=decision)]


async def paused(session: Session, **kwargs) -> list:
    events = await collect(agent(ORDER, **kwargs), "order two teas", session=session)
    assert events[-1].type == "approval"
    return events


async def test_the_turn_stops_before_the_call_and_carries_it():
    session = Session()
    events = await paused(session)
    final = events[-1]
    assert final.tool == "order" and final.arguments == {"item": "tea", "count": 2}
    assert final.call_id and "order" in final.question
    assert events[-2].type == "run_finished" and events[-2].status == "asked"
    assert "tool_call" not in types(events) and SENT == []
    assert session.approval is not None and session.approval.call_id == final.call_id
    assert EVENT_ADAPTER.validate_json(final.model_dump_json()) == final


async def test_approve_runs_the_call_as_it_was_and_the_model_goes_on():
    session = Session()
    call_id = (await paused(session))[-1].call_id
    decision = ApprovalDecision(action="approve")
    events = await run(agent("Answer: Done, two teas."), "", session, decision)
    assert SENT == [{"item": "tea", "count": 2}]
    decided = next(e for e in events if e.type == "approval_decision")
    assert decided.decision == "approve" and decided.call_id == call_id
    call = next(e for e in events if e.type == "tool_call")
    assert call.call_id == call_id  # the call keeps the id it was approved under
    assert events[-1].type == "answer" and session.approval is None


async def test_the_model_sees_the_result_of_the_approved_call():
    session = Session()
    await paused(session)
    model = ScriptedModel(["Answer: ok"])
    await run(Agent(model, [Order()]), "yes", session)
    last = json.dumps(model.requests[0].messages, ensure_ascii=False)
    assert "ordered 2 x tea" in last


async def test_edit_runs_the_call_with_the_edited_arguments():
    session = Session()
    await paused(session)
    decision = ApprovalDecision(action="edit", arguments='{"item": "coffee", "count": 3}')
    events = await run(agent("Answer: ok"), "", session, decision)
    assert SENT == [{"item": "coffee", "count": 3}]
    decided = next(e for e in events if e.type == "approval_decision")
    assert decided.decision == "edit" and decided.arguments == {"item": "coffee", "count": 3}


@pytest.mark.parametrize(
    ("edited", "words"),
    [
        ('{"item": "tea", "count": ', "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"item": "tea", "count": 99}, "do not fit order"),
        ({"count": 1}, "item: missing"),
    ],
)
async def test_edited_arguments_that_do_not_fit_leave_the_call_waiting(edited, words):
    session = Session()
    call_id = (await paused(session))[-1].call_id
    model = ScriptedModel([])
    decision = ApprovalDecision(action="edit", arguments=edited)
    events = await run(Agent(model, [Order()]), "", session, decision)
    final = events[-1]
    assert final.type == "approval" and final.call_id == call_id
    assert words in final.problem and final.question == final.problem
    assert final.problem.count(". ") <= 1  # one sentence
    assert SENT == [] and model.calls == 0 and session.approval is not None
    # Still pending: approving it now runs the original call.
    await run(agent("Answer: ok"), "", session, ApprovalDecision(action="approve"))
    assert SENT == [{"item": "tea", "count": 2}]


async def test_deny_becomes_an_observation_the_model_reads():
    session = Session()
    await paused(session)
    model = ScriptedModel(["Answer: I did not order anything."])
    events = await run(Agent(model, [Order()]), "", session, ApprovalDecision(action="deny"))
    assert SENT == [] and events[-1].type == "answer"
    assert next(e for e in events if e.type == "approval_decision").decision == "deny"
    sent = json.dumps(model.requests[0].messages)
    assert "The user denied this call." in sent and session.approval is None


async def test_always_allow_lets_the_tool_act_without_asking_for_the_conversation():
    session = Session()
    await paused(session)
    decision = ApprovalDecision(action="approve", always=True)
    events = await run(agent("Answer: ok"), "", session, decision)
    assert next(e for e in events if e.type == "approval_decision").always
    assert session.allowed_tools == ["order"]
    events = await collect(agent(ORDER, "Answer: ok"), "order two teas", session=session)
    assert "approval" not in types(events) and len(SENT) == 2
    # A new conversation asks again.
    await paused(Session())


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("yes", "approve"),
        ("OK.", "approve"),
        ("Approve", "approve"),
        ("好", "approve"),
        ("可以！", "approve"),
        ("no", "deny"),
        ("Deny", "deny"),
        ("不", "deny"),
        ("拒绝", "deny"),
    ],
)
async def test_a_typed_reply_decides(reply, action):
    assert read_reply(reply).action == action
    session = Session()
    await paused(session)
    events = await run(agent("Answer: ok"), reply, session)
    assert next(e for e in events if e.type == "approval_decision").decision == action
    assert ([] if action == "deny" else [{"item": "tea", "count": 2}]) == SENT


@pytest.mark.parametrize(
    ("reply", "language", "said"),
    [
        ("maybe", "en", "The call to order is still waiting"),
        ("Not sure?", "en", "The call to order is still waiting"),
        ("?", "en", "The call to order is still waiting"),
        ("也许", "zh", "对 order 的调用仍在等待"),
        ("不知道。", "zh", "对 order 的调用仍在等待"),
    ],
)
async def test_a_reply_that_decides_nothing_keeps_the_call_waiting(reply, language, said):
    """ "maybe" dropped the call, and the offline model then said it could not answer."""
    session = Session()
    await paused(session)
    events = await run(agent("Answer: ok", language=language), reply, session)
    assert events[-1].type == "approval" and events[-1].question.startswith(said)
    assert "approval_decision" not in types(events) and SENT == []
    assert session.approval is not None
    done = await run(agent("Answer: ordered", language=language), "yes", session)
    assert done[-1].type == "answer" and SENT == [{"item": "tea", "count": 2}]


async def test_any_other_message_drops_the_call_and_is_a_new_request():
    session = Session()
    await paused(session)
    model = ScriptedModel([action("calculator", {"expression": "2+2"}), "Answer: 4"])
    events = await run(Agent(model, [Order(), Calculator()]), "what is 2+2?", session)
    assert next(e for e in events if e.type == "approval_decision").decision == "cancel"
    assert events[-1].text == "4" and SENT == [] and session.approval is None


async def test_read_only_tools_never_ask():
    events = await collect(agent(action("calculator", {"expression": "1+1"}), "Answer: 2"), "1+1")
    assert "approval" not in types(events) and events[-1].type == "answer"


async def test_policy_always_runs_without_asking_and_never_refuses():
    events = await collect(agent(ORDER, "Answer: ok", approval="always"), "order")
    assert "approval" not in types(events) and SENT == [{"item": "tea", "count": 2}]
    SENT.clear()
    model = ScriptedModel([ORDER, "Answer: I may not order."])
    events = await collect(Agent(model, [Order()], approval="never"), "order")
    decided = next(e for e in events if e.type == "approval_decision")
    assert decided.by == "policy" and decided.decision == "deny"
    assert SENT == [] and events[-1].type == "answer"
    assert "approval policy: never" in json.dumps(model.requests[1].messages)


def test_the_policy_comes_from_settings_and_an_unknown_one_is_refused(monkeypatch):
    monkeypatch.setenv("AGENT_APPROVAL", "never")
    assert agent().approval == "never"
    assert agent(approval="always").approval == "always"
    with pytest.raises(ValueError, match="approval policy"):
        agent(approval="sometimes")


async def test_native_calls_pause_and_resume_with_their_call_ids():
    model = ScriptedModel(
        [[ToolCallPart(id="n1", name="order", arguments='{"item": "tea", "count": 1}')]],
        native_tools=True,
    )
    session = Session()
    events = await collect(Agent(model, [Order()]), "order a tea", session=session)
    assert events[-1].type == "approval" and events[0].protocol == "native"
    model = ScriptedModel(["Ordered."], native_tools=True)
    events = await run(Agent(model, [Order()]), "好的", session)
    assert events[-1].text == "Ordered." and SENT == [{"item": "tea", "count": 1}]
    messages = model.requests[0].messages
    assistant, tool = messages[-2:]
    assert assistant["tool_calls"][0]["id"] == "n1" and tool["tool_call_id"] == "n1"


async def test_the_pending_call_survives_a_saved_session(tmp_path):
    session = Session()
    await paused(session)
    save_session(session, tmp_path / "s.json")
    again = load_session(tmp_path / "s.json")
    assert again.approval.tool == "order"
    await run(agent("Answer: ok"), "yes", again)
    assert SENT == [{"item": "tea", "count": 2}]


async def test_the_trace_shows_the_request_and_the_decision():
    session = Session()
    first = await paused(session)
    second = await run(agent("Answer: ok"), "", session, ApprovalDecision(action="approve"))
    assert load_trace(export_trace(first + second))
    titles = [m["metadata"]["title"] for m in render(first).messages]
    assert "Approval needed: order" in titles
    titles = [m["metadata"]["title"] for m in render(second, language="zh").messages]
    assert "已批准：order" in titles
