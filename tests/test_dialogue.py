"""Task dialogue across turns: asking for what is missing, remembering it, finishing cleanly."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from agent import Agent, Session
from agent.dialogue import fit_to_fields
from agent.models import ScriptedModel
from tests.conftest import EchoArgs, TripArgs, collect

STYLES = ["react", "plugin-task"]


def thought(style, content, tool="", known=None):
    if style == "plugin-task":
        data = {"content": content, "tool_to_use_for_user": tool, "known_params": known or {}}
        return f"Thought: {json.dumps(data, ensure_ascii=False)}"
    return f"Thought: {content}"


def action(style, tool, args, known=None, content="go"):
    target = tool if not tool.isupper() and tool != "end_conversation" else ""
    return (
        f"{thought(style, content, target, known)}\nAction: {tool}\n"
        f"Action Input: {json.dumps(args, ensure_ascii=False)}"
    )


class Conversation:
    """One session driven turn by turn; each turn gets its own scripted replies."""

    def __init__(self, tools, style="react", language="en"):
        self.session = Session()
        self.tools = tools
        self.style = style
        self.language = language
        self.models = []

    async def say(self, text, *replies):
        model = ScriptedModel(list(replies))
        self.models.append(model)
        agent = Agent(model, self.tools, style=self.style, language=self.language)
        return await collect(agent, text, session=self.session)


def final_for(style, text):
    # The plugin-task style writes its answer from the final prompt, with no labels.
    return text if style == "plugin-task" else f"Thought: done\nAnswer: {text}"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_fill_one_slot_merges_known_params_in_code(test_tools, style, language):
    chat = Conversation(test_tools, style, language)
    request = "订票去 Paris" if language == "zh" else "book a trip to Paris"
    events = await chat.say(request, action(style, "book_trip", {"city": "Paris"}))
    assert events[-1].type == "ask_user"
    assert events[-1].missing == ["date"] and "travel date" in events[-1].question
    assert events[-1].question.startswith("请告诉我" if language == "zh" else "Please tell me")
    state = [e for e in events if e.type == "task_state"][-1]
    assert state.known == {"city": "Paris"} and state.missing == ["date"]
    # The model forgets the city; the code remembers it.
    events = await chat.say(
        "2026-12-24",
        action(style, "book_trip", {"date": "2026-12-24"}),
        final_for(style, "Booked."),
    )
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments == {"city": "Paris", "date": "2026-12-24", "seat": "window"}
    assert events[-1].type == "answer" and chat.session.task is None


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_fill_two_slots_over_two_turns(test_tools, style, language):
    chat = Conversation(test_tools, style, language)
    events = await chat.say("book a trip", action(style, "book_trip", {}))
    assert events[-1].missing == ["city", "date"]
    events = await chat.say("Rome", action(style, "book_trip", {"city": "Rome"}))
    assert events[-1].type == "ask_user" and events[-1].missing == ["date"]
    events = await chat.say(
        "on 2026-01-02", action(style, "book_trip", {"date": "2026-01-02"}), final_for(style, "ok")
    )
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments["city"] == "Rome" and call.arguments["date"] == "2026-01-02"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_correcting_a_value(test_tools, style, language):
    chat = Conversation(test_tools, style, language)
    await chat.say("book a trip to Paris", action(style, "book_trip", {"city": "Paris"}))
    events = await chat.say(
        "actually Berlin, on 2026-03-01",
        action(style, "book_trip", {"city": "Berlin", "date": "2026-03-01"}),
        final_for(style, "ok"),
    )
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments["city"] == "Berlin"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_switching_task_midway(test_tools, style, language):
    chat = Conversation(test_tools, style, language)
    await chat.say("book a trip to Paris", action(style, "book_trip", {"city": "Paris"}))
    events = await chat.say(
        "echo hello", action(style, "echo", {"text": "hello"}), final_for(style, "echo: hello")
    )
    call = next(e for e in events if e.type == "tool_call")
    assert call.tool == "echo" and call.arguments == {"text": "hello"}
    # The trip still waits for its date, as it was before the echo (agent.waiting).
    task = chat.session.task
    assert task is not None and task.tool == "book_trip" and task.known == {"city": "Paris"}
    assert task.missing == ["date"] and "echo hello" not in "".join(task.transcript)
    events = await chat.say(
        "2026-12-24", action(style, "book_trip", {"date": "2026-12-24"}), final_for(style, "ok")
    )
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments["city"] == "Paris" and chat.session.task is None


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_end_conversation(test_tools, style, language):
    chat = Conversation(test_tools, style, language)
    await chat.say("book a trip", action(style, "book_trip", {}))
    phrase = "再见！" if language == "zh" else "Bye!"
    events = await chat.say("bye", action(style, "end_conversation", {"end_phrase": phrase}))
    assert events[-1].type == "answer" and events[-1].ended and events[-1].text == phrase
    assert chat.session.task is None


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_vague_request_asks_for_intent(test_tools, style, language):
    chat = Conversation(test_tools, style, language)
    events = await chat.say(
        "help", action(style, "ASK_USER_FOR_INTENT", {"question": "What do you need?"})
    )
    assert events[-1].type == "ask_user" and events[-1].question == "What do you need?"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_no_tool_fits(test_tools, style, language):
    chat = Conversation(test_tools, style, language)
    events = await chat.say(
        "who won the 1998 world cup?",
        action(style, "TOOL_OTHER", {"intent": "football trivia"}),
        final_for(style, "France won it."),
    )
    assert events[-1].type == "answer" and events[-1].text == "France won it."
    model = chat.models[-1]
    assert "No tool fits" in json.dumps(model.requests[-1].messages, ensure_ascii=False)


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_question_is_made_in_the_conversations_language(test_tools, language):
    chat = Conversation(test_tools, "react", language)
    text = "订票" if language == "zh" else "book a trip"
    events = await chat.say(text, action("react", "book_trip", {}))
    question = events[-1].question
    assert question.startswith("请告诉我" if language == "zh" else "Please tell me")


async def test_plugin_task_style_uses_the_seed_prompts(test_tools):
    chat = Conversation(test_tools, "plugin-task")
    await chat.say("book a trip to Paris", action("plugin-task", "book_trip", {"city": "Paris"}))
    first = chat.models[-1].requests[0].messages[-1]["content"]
    assert "ASK_USER_FOR_INTENT" in first and "Question: book a trip to Paris" in first
    await chat.say(
        "2026-12-24", action("plugin-task", "book_trip", {"date": "2026-12-24"}), "Booked!"
    )
    filling, final = chat.models[-1].requests
    filling_text = filling.messages[-1]["content"]
    assert "book_trip:" in filling_text and "Observation: 2026-12-24" in filling_text
    assert final.messages[-1]["content"].rstrip().endswith("Final Answer:")
    assert "Booked Paris on 2026-12-24" in final.messages[-1]["content"]


# -- regressions for the defects of the original plugin demo ------------------------------------


async def test_ask_step_never_calls_the_tool_with_the_question(test_tools):
    chat = Conversation(test_tools, "plugin-task")
    known = {"city": "Paris", "date": "2026-12-24"}
    events = await chat.say(
        "book Paris on 2026-12-24",
        action(
            "plugin-task", "ASK_USER_FOR_REQUIRED_PARAMS", {"question": "When?"}, known=known
        ).replace('"tool_to_use_for_user": ""', '"tool_to_use_for_user": "book_trip"'),
        "Booked.",
    )
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments == {**known, "seat": "window"}


async def test_slot_filling_is_bounded(test_tools):
    chat = Conversation(test_tools, "react")
    for _ in range(3):
        events = await chat.say("hmm", action("react", "book_trip", {}))
        assert events[-1].type == "ask_user"
    events = await chat.say("hmm", action("react", "book_trip", {}))
    assert events[-1].type == "answer" and "set this task aside" in events[-1].text
    assert chat.session.task is None


@pytest.mark.parametrize(
    "reply",
    [
        'Thought: just some free text\nAction: book_trip\nAction Input: {"city": "Paris"}',
        'Thought: {"content": "x", "tool_to_use_for_user": null, "known_params": null}\n'
        'Action: book_trip\nAction Input: {"city": "Paris"}',
        'Thought: {"content": "x", "tool_to_use_for_user": "book_trip", "known_params": "none"}\n'
        'Action: book_trip\nAction Input: {"city": "Paris", "date": 20261224}',
    ],
    ids=["free-text-thought", "null-known-params", "number-value"],
)
async def test_odd_thoughts_and_values_never_crash(test_tools, reply):
    chat = Conversation(test_tools, "plugin-task")
    events = await chat.say("book Paris", reply, "Booked.")
    assert events[-1].type in ("ask_user", "answer")
    if "20261224" in reply:
        call = next(e for e in events if e.type == "tool_call")
        assert call.arguments["date"] == "20261224"


async def test_invalid_enum_goes_to_the_model_then_the_user(test_tools):
    chat = Conversation(test_tools, "react")
    bad = action("react", "book_trip", {"city": "Paris", "date": "2026-01-01", "seat": "roof"})
    events = await chat.say("book Paris on 2026-01-01 on the roof", bad, bad, bad)
    feedback = json.dumps(chat.models[-1].requests[1].messages)
    assert "seat" in feedback and "not valid" in feedback
    assert events[-1].type == "ask_user" and events[-1].missing == ["seat"]


async def test_known_params_from_the_thought_are_merged(test_tools):
    chat = Conversation(test_tools, "plugin-task")
    reply = action("plugin-task", "book_trip", {"date": "2026-05-05"}, known={"city": "Rome"})
    events = await chat.say("book Rome 2026-05-05", reply, "ok")
    call = next(e for e in events if e.type == "tool_call")
    assert call.arguments["city"] == "Rome"


async def test_the_final_answer_never_goes_past_the_step_limit(test_tools):
    replies = ["Action:", 'Thought: x\nAction: echo\nAction Input: {"text": "hi"}', "never sent"]
    model = ScriptedModel(replies)
    agent = Agent(model, test_tools, style="plugin-task", max_steps=2)
    events = await collect(agent, "echo hi")
    assert model.calls == 2
    assert events[-1].type == "answer" and events[-1].text == "echo: hi"


async def test_a_failed_tool_goes_back_to_the_model_in_both_styles(test_tools):
    for style in STYLES:
        model = ScriptedModel(
            [
                action(style, "refuse", {"text": "a"}),
                action(style, "echo", {"text": "fixed"}),
                final_for(style, "echo: fixed"),
            ]
        )
        events = await collect(Agent(model, test_tools, style=style), "try it")
        results = [e for e in events if e.type == "tool_result"]
        assert [r.ok for r in results] == [False, True]
        assert "give a word instead" in json.dumps(model.requests[1].messages)
        assert events[-1].text == "echo: fixed"
        # The trace's task says failed, then done for the fixed call.
        states = [(e.tool, e.status) for e in events if e.type == "task_state"]
        assert states.index(("refuse", "failed")) < states.index(("echo", "done"))


class _Search(BaseModel):
    query: str = ""
    limit: int = 5


@pytest.mark.parametrize(
    ("args", "fields", "known", "expected"),
    [
        ({"input": "hi"}, EchoArgs.model_fields, {}, {"text": "hi"}),
        ({"input": ["hi"]}, EchoArgs.model_fields, {}, {"text": "hi"}),
        # A bare value sent again (after an invalid one) corrects the only required field.
        ({"input": "2+2"}, EchoArgs.model_fields, {"text": "2+"}, {"text": "2+2"}),
        ({"input": "2026-12-24"}, TripArgs.model_fields, {"city": "Rome"}, {"date": "2026-12-24"}),
        # Two required fields empty: which one the model meant is unknown, so neither.
        ({"input": "Rome"}, TripArgs.model_fields, {}, {}),
        ({"input": ["cats"]}, _Search.model_fields, {}, {"query": "cats"}),
        ({"input": ["a", "b"]}, EchoArgs.model_fields, {}, {"text": ["a", "b"]}),
    ],
)
def test_a_lone_input_fills_the_field_the_model_meant(args, fields, known, expected):
    assert fit_to_fields(args, fields, known) == expected


async def test_a_call_with_one_bracketed_string_fills_the_text_field(test_tools):
    for reply in ['Thought: x\nAction: echo(["hello there"])', "Action: echo('hello there')"]:
        model = ScriptedModel([reply, "Answer: ok"])
        events = await collect(Agent(model, test_tools), "echo hello there")
        assert next(e for e in events if e.type == "tool_call").arguments == {"text": "hello there"}


@pytest.mark.parametrize(
    ("first", "reply", "language", "asked"),
    [
        ("convert 5 miles", "banana", "en", "Which unit should I convert it to?"),
        ("what time is it?", "hmm", "en", "Which city or time zone?"),
        ("把5英里换算一下", "香蕉", "zh", "要换算成什么单位？"),
    ],
)
async def test_giving_up_names_the_question_never_a_fields_name(first, reply, language, asked):
    from agent.models import OfflineModel
    from tools import default_tools

    agent, session = Agent(OfflineModel(), default_tools(), language=language), Session()
    events = [e async for e in agent.run(first, [], session)]
    for _ in range(3):
        events = [e async for e in agent.run(reply, [], session)]
    text = events[-1].text
    assert events[-1].type == "answer" and asked in text
    for name in ("to_unit", "place", "expression", "_"):
        assert name not in text
