"""The page's side of approval and of the tool protocol, through the handlers (no browser):
the panel's values, its buttons' turns, and the Settings radio that picks the protocol."""

from __future__ import annotations

import json

import gradio as gr
import pytest

from agent.config import Settings
from agent.models import ScriptedModel, ToolCallPart
from tests.test_approval import ORDER, SENT, Order
from tools.calculator import Calculator
from ui import approval_panel
from ui.handlers import PageHandlers
from ui.page.values import status_text

CALC = 'Thought: sum.\nAction: calculator\nAction Input: {"expression": "2+3"}'


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "AGENT_APPROVAL"):
        monkeypatch.delenv(name, raising=False)
    SENT.clear()


def page_with(replies: list, native: bool = False) -> PageHandlers:
    queue = list(replies)

    def model(prefs):
        return ScriptedModel([queue.pop(0)] if queue else [], native_tools=native, name="fake")

    return PageHandlers(model_factory=model, env=Settings(), tools=[Order(), Calculator()])


async def last(stream):
    updates = [u async for u in stream]
    return updates[-1]


async def test_the_panel_shows_the_waiting_call_and_each_button_decides():
    page = page_with([ORDER, "Answer: ordered."])
    chat, trace, state, status = await last(page.chat({"text": "order tea", "files": []}, None))
    assert status.startswith("Waiting for your approval · ")
    group, call, code, always = approval_panel.refresh(state)
    assert group["visible"] is True and "**order**" in call
    assert json.loads(code) == {"item": "tea", "count": 2} and always is False
    assert chat[-1]["content"].startswith("The agent wants to call order")
    titles = [m["metadata"]["title"] for m in trace]
    assert "Approval needed: order" in titles
    approve = approval_panel.decide(page, "approve")
    chat, _, state, _ = await last(approve(state, code, True))
    assert SENT == [{"item": "tea", "count": 2}] and chat[-1]["content"] == "ordered."
    assert chat[-2]["content"] == ["Approve"]  # the decision stands as the person's words
    assert "approval" not in status_text(state)
    assert state.session.allowed_tools == ["order"]
    assert approval_panel.refresh(state)[0]["visible"] is False


async def test_an_edit_that_does_not_fit_keeps_the_call_and_the_typed_json():
    # A model per turn; the turn with the bad edit never calls its model.
    page = page_with([ORDER, "Answer: never read", "Answer: two coffees."])
    *_, state, _ = await last(page.chat({"text": "order tea", "files": []}, None))
    approval_panel.refresh(state)
    edit = approval_panel.decide(page, "edit")
    chat, *_ = await last(edit(state, '{"item": "coffee", "count": }', False))
    assert "not valid JSON" in chat[-1]["content"] and SENT == []
    group, call, code, _ = approval_panel.refresh(state)
    assert group["visible"] is True and "not valid JSON" in call
    assert code == gr.skip()  # what was typed stays in the box
    chat, *_ = await last(edit(state, '{"item": "coffee", "count": 2}', False))
    assert SENT == [{"item": "coffee", "count": 2}] and chat[-1]["content"] == "two coffees."


async def test_deny_and_a_button_with_nothing_waiting():
    page = page_with([ORDER, "Answer: nothing ordered."])
    *_, state, _ = await last(page.chat({"text": "order tea", "files": []}, None))
    chat, *_ = await last(approval_panel.decide(page, "deny")(state, "{}", True))
    assert SENT == [] and chat[-1]["content"] == "nothing ordered."
    assert state.session.allowed_tools == []  # "always" means nothing with a denial
    await last(approval_panel.decide(page, "approve")(state, "{}", False))  # warns only
    assert SENT == []


async def test_stop_during_a_decision_leaves_the_call_waiting():
    page = page_with([ORDER])
    *_, state, _ = await last(page.chat({"text": "order tea", "files": []}, None))
    pending = state.session.approval
    await page.stop(state)  # nothing runs: stays as it was
    assert state.session.approval == pending


@pytest.mark.parametrize(
    ("choice", "ran", "label"),
    [("auto", "native", "native tool calls"), ("react", "react", "ReAct text")],
)
async def test_the_protocol_radio_changes_what_runs(choice, ran, label):
    native = [ToolCallPart(id="a1", name="calculator", arguments='{"expression": "2+3"}')]
    reply = native if ran == "native" else CALC
    page = page_with([], native=True)
    state = page.new_state()
    page.set_pref("tool_protocol")(choice, state)
    assert state.prefs.tool_protocol == choice
    models = []

    def model(prefs):
        replies = [reply, "Answer: It is 5." if ran == "react" else "It is 5."]
        models.append(ScriptedModel(replies, native_tools=True, name="fake"))
        return models[-1]

    page.make_model = model
    *_, state, status = await last(page.chat({"text": "2+3", "files": []}, state))
    events = state.turns[-1].events
    assert events[0].protocol == ran and events[-2].protocol == ran
    assert label in status and events[-1].text == "It is 5."
    assert bool(models[0].requests[0].tool_specs) == (ran == "native")


def test_mcp_servers_that_failed_are_told_once_when_the_page_opens(tmp_path):
    from types import SimpleNamespace

    from tools.base import ToolSettings
    from tools.mcp.tools import close_all, mcp_tools
    from ui.notices import tell_mcp_notices

    request = SimpleNamespace(headers={"accept-language": "zh-CN,zh;q=0.9"})

    bad = tmp_path / "mcp.json"
    bad.write_text("{not json", encoding="utf-8")
    try:
        assert mcp_tools(ToolSettings(mcp_config=bad)) == []
        with pytest.warns(UserWarning, match="部分 MCP 工具不可用.*mcp.json"):
            tell_mcp_notices(request)
    finally:
        close_all()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tell_mcp_notices(request)  # none left: nothing is said


async def test_retry_of_a_decision_runs_the_same_decision_again():
    page = page_with([ORDER, "Answer: failed first", "Answer: coffee ordered."])
    *_, state, _ = await last(page.chat({"text": "order tea", "files": []}, None))
    edit = approval_panel.decide(page, "edit")
    await last(edit(state, '{"item": "coffee", "count": 1}', False))
    chat, *_ = await last(page.retry(state))
    assert chat[-1]["content"] == "coffee ordered."
    assert SENT == [{"item": "coffee", "count": 1}] * 2  # the edited call, made again


async def test_native_chosen_with_the_offline_model_runs_react_and_says_so():
    from agent.models import OfflineModel

    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [Calculator()])
    state = page.new_state()
    page.set_pref("tool_protocol")("native", state)
    *_, state, status = await last(page.chat({"text": "what is 2+3?", "files": []}, state))
    assert state.turns[-1].events[-1].type == "answer" and "ReAct text" in status


def test_a_decision_shows_its_turn_running_in_the_input():
    """Approve, Deny and Run with these arguments start a turn: the input shows the stop
    square at once (and the Stop button turns red), as for a typed message."""
    group, box = approval_panel.hidden()
    assert group["visible"] is False
    assert box.stop_btn is True
