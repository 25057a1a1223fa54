"""The task dialogue's decisions, without a model: what an action means, and what merged
arguments lead to."""

from __future__ import annotations

from agent import dialogue
from agent.dialogue import PendingTask
from tests.conftest import BookTrip, Echo

TOOLS = {"echo": Echo(), "book_trip": BookTrip()}


def decide(name, tool_input=None, thought=None, pending=None, language="en"):
    return dialogue.decide_action(
        name, tool_input or {}, thought, tools=TOOLS, pending=pending, language=language
    )


def test_end_conversation_uses_the_models_phrase_or_a_goodbye():
    assert decide("end_conversation", {"end_phrase": "Bye!"}) == dialogue.End(phrase="Bye!")
    assert "Goodbye" in decide("end_conversation").phrase
    assert "再见" in decide("end_conversation", language="zh").phrase


def test_ask_for_intent_has_a_question_in_the_conversations_language():
    assert decide("ASK_USER_FOR_INTENT", {"question": "What now?"}).question == "What now?"
    assert "您想" in decide("ASK_USER_FOR_INTENT", language="zh").question


def test_asking_for_parameters_targets_the_thoughts_tool_then_the_pending_task():
    thought = {"tool_to_use_for_user": "book_trip"}
    assert decide("ASK_USER_FOR_REQUIRED_PARAMS", {}, thought) == dialogue.UseTool(tool="book_trip")
    pending = decide("ASK_USER_FOR_REQUIRED_PARAMS", {"question": "When?"}, pending="echo")
    assert pending == dialogue.UseTool(tool="echo", question="When?")
    # No tool to ask for: asking what the user wants is all that is left.
    assert isinstance(decide("ASK_USER_FOR_REQUIRED_PARAMS"), dialogue.AskIntent)
    unknown = decide("ASK_USER_FOR_REQUIRED_PARAMS", {}, {"tool_to_use_for_user": "teleport"})
    assert isinstance(unknown, dialogue.AskIntent)


def test_tool_other_tools_and_unknown_names():
    assert decide("TOOL_OTHER", {"intent": "weather"}) == dialogue.NoTool(intent="weather")
    assert decide("echo", {"text": "hi"}) == dialogue.UseTool(tool="echo", given={"text": "hi"})
    assert decide("teleport") == dialogue.UnknownTool(name="teleport")


def check(tool, known):
    return dialogue.check(tool, known)


def test_valid_arguments_are_called_with_defaults_filled():
    tool = BookTrip()
    task = PendingTask(tool="book_trip", request="book")
    known = {"city": "Paris", "date": "2026-12-24"}
    decision = dialogue.decide_arguments(tool, task, check(tool, known))
    assert isinstance(decision, dialogue.Call)
    assert decision.arguments == {"city": "Paris", "date": "2026-12-24", "seat": "window"}


def test_missing_arguments_are_asked_until_the_limit_then_set_aside():
    tool = BookTrip()
    task = PendingTask(tool="book_trip", request="book")
    checked = check(tool, {"city": "Paris"})
    assert dialogue.decide_arguments(tool, task, checked) == dialogue.Ask(missing=["date"])
    task.questions = dialogue.MAX_QUESTIONS_PER_TASK
    assert dialogue.decide_arguments(tool, task, checked) == dialogue.GiveUp(missing=["date"])


def test_invalid_arguments_go_back_to_the_model_then_to_the_user():
    tool = BookTrip()
    task = PendingTask(tool="book_trip", request="book")
    checked = check(tool, {"city": "Paris", "date": "2026-12-24", "seat": "roof"})
    retry = dialogue.decide_arguments(tool, task, checked)
    assert isinstance(retry, dialogue.Retry) and "seat" in retry.feedback
    task.invalid_retries = dialogue.MAX_INVALID_RETRIES
    assert dialogue.decide_arguments(tool, task, checked) == dialogue.Ask(missing=["seat"])


def test_decisions_change_nothing_they_are_given():
    tool = Echo()
    task = PendingTask(tool="echo", request="echo", known={"text": "a"})
    before = task.model_copy(deep=True)
    dialogue.decide_arguments(tool, task, check(tool, {}))
    assert task == before
