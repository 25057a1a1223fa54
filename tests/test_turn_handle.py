"""A turn as a handle: `Agent.start` gives `events()` and `cancel()`; whoever ends a turn
(Stop, Clear, Retry, a client gone) cancels it, and the conversation keeps its stopped record."""

from __future__ import annotations

import pytest

from agent import Agent
from agent.models import ScriptedModel


async def test_a_handle_runs_the_turn_and_its_conversation_keeps_the_answer():
    agent = Agent(ScriptedModel(["Thought: easy.\nAnswer: 4"]), language="en")
    session = agent.new_session()
    handle = agent.start("What is 2 + 2?", session=session)
    types = [event.type async for event in handle.events()]
    assert types[0] == "run_started" and types[-1] == "answer"
    assert not handle.cancelled and session.history[-1].reply == "4"


async def test_a_handle_cancelled_before_its_events_are_taken_runs_nothing():
    model = ScriptedModel(["Thought: easy.\nAnswer: 4"])
    agent = Agent(model, language="en")
    session = agent.new_session()
    handle = agent.start("What is 2 + 2?", session=session)
    handle.cancel()
    assert [event async for event in handle.events()] == []
    assert model.calls == 0 and session.history == []


async def test_cancel_ends_a_turn_that_waits_for_its_model_and_keeps_its_stopped_record():
    model = ScriptedModel(["Thought: slow.\nAnswer: late"], delay=30.0)
    agent = Agent(model, language="en")
    session = agent.new_session()
    handle = agent.start("take your time", session=session)
    types = []
    async for event in handle.events():
        types.append(event.type)
        if event.type == "run_started":
            handle.cancel()  # nobody waits 30 s: the stream is closed at once
    assert "answer" not in types and handle.cancelled
    [turn] = session.history
    assert (turn.user_text, turn.outcome, turn.reply) == ("take your time", "stopped", "")


async def test_a_handles_events_are_taken_once():
    agent = Agent(ScriptedModel(["Answer: 4"]), language="en")
    handle = agent.start("2 + 2?")
    events = handle.events()
    with pytest.raises(RuntimeError):
        handle.events()
    await events.aclose()


async def test_a_page_message_is_checked_once_from_taking_it_to_its_turn(monkeypatch):
    from agent.config import Settings
    from ui.handlers import PageHandlers

    page = PageHandlers(lambda prefs: ScriptedModel(["Answer: 4"]), Settings(), [])
    checks = []
    real = page.refusal
    monkeypatch.setattr(page, "refusal", lambda *a: checks.append(a) or real(*a))
    state = page.new_state()
    _, taken = page.take_message({"text": "2 + 2?", "files": []}, state)
    updates = [u async for u in page.send(taken, state)]
    assert len(checks) == 1 and "4" in str(updates[-1][0])
    checks.clear()
    updates = [u async for u in page.retry(state)]  # Retry checks once too
    assert len(checks) == 1 and len(state.turns) == 1
    state.close()


async def test_a_page_turn_closed_mid_run_keeps_its_stopped_record_at_once():
    from agent.config import Settings
    from ui.handlers import PageHandlers

    model = ScriptedModel(["Thought: slow.\nAnswer: late"], delay=30.0)
    page = PageHandlers(lambda prefs: model, Settings(), [])
    state = page.new_state()
    _, taken = page.take_message({"text": "take your time", "files": []}, state)
    stream = page.send(taken, state)
    async for _ in stream:
        if any(e.type == "run_started" for e in state.turns[-1].events):
            break
    await stream.aclose()  # as a server closes the event of a client that left
    assert [t.outcome for t in state.session.history] == ["stopped"]
    assert state.running == 0
    state.close()


async def test_a_notice_of_the_agent_is_also_a_toast_once(capsys):
    from agent.config import Settings
    from ui.handlers import PageHandlers

    def busy_then_answer(request):
        for _ in range(2):  # the same notice twice is said once
            request.on_retry("The model service is busy; trying again.")
        return "Answer: 4"

    page = PageHandlers(lambda prefs: ScriptedModel([busy_then_answer]), Settings(), [])
    updates = [u async for u in page.chat({"text": "2 + 2?"}, None)]
    state = updates[-1][2]
    # Outside a page event Gradio prints what would be a toast.
    assert capsys.readouterr().out.count("The model service is busy; trying again.") == 1
    notices = [e for e in state.turns[-1].events if e.type == "notice"]
    assert len(notices) == 2  # the trace keeps each
    state.close()
