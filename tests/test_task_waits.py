"""A question the agent asked waits while the person asks something else: the unrelated
message is answered in its own language, a reply to the question in the task's, and the task
is still there to finish after an unrelated turn or two (`agent.waiting`), for the offline
model and for a hosted one, which is told the task still waits."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent import Agent, Session, waiting
from agent.dialogue import PendingTask
from agent.images.intake import turn_language
from agent.models import OfflineModel, ScriptedModel
from agent.models.base import ToolCallPart
from tests.conftest import collect
from tests.waiting_cases import CONVERSATIONS, LANGUAGES
from tools import default_tools


@pytest.fixture(scope="module")
def tools():
    return default_tools()


# -- decided in code, without a model ------------------------------------------------------------


@pytest.mark.parametrize(("text", "default", "previous", "asked", "expected"), LANGUAGES)
def test_the_language_a_turn_speaks(text, default, previous, asked, expected):
    assert turn_language(text, default, previous, asked) == expected


@pytest.mark.parametrize(
    ("missing", "tool_question", "found", "expected"),
    [
        (["to_unit"], "", {"to_unit": "km"}, True),
        (["place"], "", {"place": "Tokyo"}, True),
        (["city", "date"], "", {"date": "2026-12-24"}, True),
        # "what is 2+2" to a conversion waiting for its unit: a number, not the unit.
        (["to_unit"], "", {"value": 2.0}, False),
        (["to_unit"], "", {}, False),
        ([], "", {"value": 3}, True),
        ([], "", {}, False),
        # Only the tool that asked can read the reply to its own question.
        (["colour"], "Which colour?", {}, True),
    ],
)
def test_what_answers_the_task(missing, tool_question, found, expected):
    task = PendingTask(tool="t", request="r", missing=missing, tool_question=tool_question)
    assert waiting.answers(task, found) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        *[("never mind", True), ("Never mind, what is 2+2", True), ("算了", True), ("取消", True)],
        *[("km", False), ("what is 2+2", False), ("东京", False), ("cancellation policy?", False)],
    ],
)
def test_what_drops_the_task(text, expected):
    assert (waiting.cancel_language(text) is not None) is expected


def test_a_task_is_dropped_in_the_language_the_person_drops_it_in():
    assert waiting.cancel_language("never mind") == "en"
    assert waiting.cancel_language("Forget it, thanks") == "en"
    assert waiting.cancel_language("算了吧") == "zh"
    assert waiting.cancel_language("km") is None


tasks = st.builds(
    PendingTask,
    tool=st.sampled_from(["convert_units", "world_clock"]),
    request=st.just("r"),
    known=st.dictionaries(st.sampled_from(["value", "place"]), st.integers(), max_size=2),
    missing=st.lists(st.sampled_from(["to_unit", "place"]), max_size=2),
    turns_aside=st.integers(0, waiting.MAX_TURNS_ASIDE + 2),
)


@given(tasks, st.none() | tasks, st.booleans())
def test_a_task_set_aside_is_kept_or_said_to_be_dropped(aside, now, other_waits):
    kept, dropped = waiting.kept(aside, now, other_waits=other_waits)
    if now is not None and now.tool == aside.tool and kept is now and dropped is None:
        return  # the task again, corrected: it goes on as `now`
    if dropped is not None:
        # Another task took its place, or it has been aside as long as it may.
        replaced = other_waits or now is not None
        assert dropped is aside and kept is (now if replaced else None)
        assert replaced or aside.turns_aside >= waiting.MAX_TURNS_ASIDE
        return
    # Kept as it was, one turn further aside, and never past the bound.
    assert kept is not None and kept.turns_aside <= waiting.MAX_TURNS_ASIDE
    assert kept == aside.model_copy(update={"turns_aside": aside.turns_aside + 1})


@given(st.none() | tasks, st.booleans())
def test_a_turn_that_took_the_task_up_keeps_what_it_left(now, other_waits):
    assert waiting.kept(None, now, other_waits=other_waits) == (now, None)


def test_another_request_of_the_same_tool_is_no_reply_to_the_task():
    task = PendingTask(
        tool="convert_units", request="r", known={"value": 5.0, "from_unit": "miles"}
    )
    task.missing = ["to_unit"]
    new = {"value": 30.0, "from_unit": "celsius", "to_unit": "fahrenheit"}
    assert not waiting.answers(task, new)
    assert waiting.answers(task, {"value": 5, "to_unit": "km"})


@pytest.mark.parametrize(
    ("done", "left"),
    [
        ({"value": 5.0, "from_unit": "miles", "to_unit": "km"}, False),
        # A correction of one value is the same request.
        ({"value": 10.0, "from_unit": "miles", "to_unit": "km"}, False),
        # Another request altogether leaves the task waiting.
        ({"value": 30.0, "from_unit": "celsius", "to_unit": "fahrenheit"}, True),
    ],
)
def test_a_call_of_the_same_tool_finished_meanwhile_may_do_the_task(done, left):
    task = PendingTask(
        tool="convert_units", request="r", known={"value": 5.0, "from_unit": "miles"}
    )
    kept, dropped = waiting.kept(task, None, done=done)
    assert dropped is None and (kept is not None) is left


def test_a_task_outlasts_a_few_unrelated_turns_and_no_more():
    task: PendingTask | None = PendingTask(tool="convert_units", request="convert 5 miles")
    turns, dropped = 0, None
    while task is not None:
        task, dropped = waiting.kept(task, None)
        turns += 1
    assert turns == waiting.MAX_TURNS_ASIDE + 1 and dropped is not None


# -- the offline model ---------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["react", "plugin-task"])
@pytest.mark.parametrize("name", list(CONVERSATIONS))
async def test_a_conversation(tools, name, style):
    turns, pending = CONVERSATIONS[name]
    session = Session()
    agent = Agent(OfflineModel(), tools, style=style)
    for text, kind, said, language in turns:
        events = await collect(agent, text, session=session)
        last = events[-1]
        shown = getattr(last, "text", None) or getattr(last, "question", "")
        assert (last.type, session.history[-1].language) == (kind, language), (text, shown)
        assert said in shown, (text, shown)
    assert (session.task.tool if session.task else None) == pending


@pytest.mark.parametrize(
    ("messages", "notice"),
    [
        (
            ["convert 5 miles", "what time is it?"],
            "I have set my earlier question aside (“Which unit should I convert it to?”)",
        ),
        (["把5英里换算一下", "现在几点了？"], "我先放下了之前的问题（“要换算成什么单位？”）"),
        (
            ["convert 5 miles", *(f"what is {n}+{n}" for n in range(waiting.MAX_TURNS_ASIDE + 1))],
            "I have set my earlier question aside",
        ),
    ],
)
async def test_a_task_given_up_on_is_said(tools, messages, notice):
    session = Session()
    agent = Agent(OfflineModel(), tools)
    for text in messages[:-1]:
        await collect(agent, text, session=session)
    assert session.task is not None and session.task.tool == "convert_units"
    events = await collect(agent, messages[-1], session=session)
    (said,) = [e.message for e in events if e.type == "notice"]
    assert said.startswith(notice)
    cleared = [e for e in events if e.type == "task_state" and e.status == "cleared"]
    assert [e.tool for e in cleared] == ["convert_units"]


# -- a hosted model, scripted --------------------------------------------------------------------


def act(tool, args, style="react"):
    thought = "go"
    if style == "plugin-task":
        target = "" if tool.isupper() else tool
        thought = json.dumps({"content": "go", "tool_to_use_for_user": target, "known_params": {}})
    return f"Thought: {thought}\nAction: {tool}\nAction Input: {json.dumps(args)}"


def call(tool, args):
    return ToolCallPart(id=f"call_{tool}", name=tool, arguments=json.dumps(args))


def system_text(request):
    return "\n".join(m["content"] for m in request.messages if m["role"] == "system")


def prompt_text(request):
    content = request.messages[-1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


STATE = "## Pending task\nTool: convert_units; known parameters:"

# Per style: each turn's scripted replies for "convert 5 miles", "what is 2+2", "km"; where
# the request shows the task state; the tool protocol.
HOSTED = {
    "react": (
        [
            [act("convert_units", {"value": 5, "from_unit": "mile"})],
            ["Thought: not the conversion\nAnswer: 2+2 = 4"],
            [act("convert_units", {"to_unit": "km"}), "Thought: done\nAnswer: 5 miles is 8.05 km"],
        ],
        system_text,
        "react",
    ),
    "native": (
        [
            [[call("convert_units", {"value": 5, "from_unit": "mile"})]],
            ["2+2 = 4"],
            [[call("convert_units", {"to_unit": "km"})], "5 miles is 8.05 km"],
        ],
        system_text,
        "native",
    ),
    "plugin-task": (
        [
            [act("convert_units", {"value": 5, "from_unit": "mile"}, "plugin-task")],
            [act("TOOL_OTHER", {"intent": "arithmetic"}, "plugin-task"), "2+2 = 4"],
            [act("convert_units", {"to_unit": "km"}, "plugin-task"), "5 miles is 8.05 km"],
        ],
        prompt_text,
        "react",
    ),
}


@pytest.mark.parametrize("style", list(HOSTED))
async def test_a_hosted_model_finishes_the_task_after_an_unrelated_question(tools, style):
    replies, shown_in, protocol = HOSTED[style]
    session, models = Session(), []

    async def say(text, script):
        model = ScriptedModel(script, native_tools=protocol == "native")
        models.append(model)
        prompt_style = "plugin-task" if style == "plugin-task" else "react"
        agent = Agent(model, tools, style=prompt_style, tool_protocol=protocol)
        return await collect(agent, text, session=session)

    first = await say("convert 5 miles", replies[0])
    assert first[-1].type == "ask_user" and first[-1].missing == ["to_unit"]
    second = await say("what is 2+2", replies[1])
    assert second[-1].type == "answer" and second[-1].text == "2+2 = 4"
    assert session.task is not None and session.task.known == {"value": 5, "from_unit": "mile"}
    third = await say("km", replies[2])
    (tool_call,) = [e for e in third if e.type == "tool_call"]
    assert tool_call.arguments == {"value": 5, "from_unit": "mile", "to_unit": "km"}
    assert third[-1].type == "answer" and session.task is None
    # The model was told, during the aside and after it, that the task still waits, with the
    # value the person gave (not the 2 of "2+2"); the aside is no part of the task's transcript.
    aside, after = models[1].requests[0], models[2].requests[0]
    assert STATE + ' {"value": 5, "from_unit": "mile"}; still missing: to_unit' in shown_in(aside)
    assert STATE + ' {"value": 5, "from_unit": "mile", "to_unit": "km"}' in shown_in(after)
    assert "Observation: what is 2+2" not in prompt_text(after)


async def test_a_hosted_model_is_told_each_turns_language(tools):
    session, models = Session(), []

    async def say(text, *script):
        models.append(ScriptedModel(list(script)))
        return await collect(Agent(models[-1], tools), text, session=session)

    events = await say("现在几点了？", act("world_clock", {}))
    assert events[-1].type == "ask_user" and events[-1].question == "哪个城市或时区？"
    events = await say("15% of 80", act("calculator", {"expression": "15% * 80"}), "Answer: 12")
    request = models[-1].requests[0]
    assert request.language == "en" and "Answer in English." in system_text(request)
    assert session.task is not None and session.task.tool == "world_clock"
    events = await say(
        "Tokyo", act("world_clock", {"place": "Tokyo"}), "Answer: 东京现在是 18:00。"
    )
    request = models[-1].requests[0]
    assert request.language == "zh" and "请用中文回答。" in system_text(request)
    assert "## 待完成的任务" in system_text(request)
    (result,) = [e for e in events if e.type == "tool_result"]
    assert "Asia/Tokyo" in result.text and session.history[-1].language == "zh"
