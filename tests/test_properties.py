"""Whatever a model writes, a turn ends within its bounds with an answer, a question or an error."""

from __future__ import annotations

import asyncio
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent import Agent, Session
from agent.models import ScriptedModel
from tests.conftest import BookTrip, Crop, Echo

NAMES = [
    "book_trip",
    "echo",
    "crop",
    "end_conversation",
    "ASK_USER_FOR_INTENT",
    "ASK_USER_FOR_REQUIRED_PARAMS",
    "TOOL_OTHER",
    "nope",
    "",
]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
args = st.dictionaries(
    st.sampled_from(["city", "date", "seat", "text", "image_id", "question", "x"]),
    json_values,
    max_size=4,
)
thoughts = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda tool, known: json.dumps(
            {"content": "c", "tool_to_use_for_user": tool, "known_params": known}
        ),
        st.sampled_from(NAMES) | st.none(),
        json_values,
    ),
)
actions = st.builds(
    lambda t, name, a: f"Thought: {t}\nAction: {name}\nAction Input: {json.dumps(a)}",
    thoughts,
    st.sampled_from(NAMES),
    args,
)
replies = st.lists(
    st.one_of(
        actions,
        st.text(max_size=80),
        st.builds(lambda t: f"Thought: x\nAnswer: {t}", st.text(max_size=20)),
    ),
    min_size=0,
    max_size=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.lists(replies, min_size=1, max_size=3),
    style=st.sampled_from(["react", "plugin-task"]),
    language=st.sampled_from(["en", "zh"]),
)
def test_every_turn_ends_cleanly(turns, style, language):
    async def go():
        session = Session()
        for script in turns:
            model = ScriptedModel(script)
            agent = Agent(
                model, [Echo(), BookTrip(), Crop()], style=style, language=language, max_steps=6
            )
            events = [e async for e in agent.run("book something", session=session)]
            assert events[-1].type in ("answer", "ask_user", "error")
            assert events[-2].type == "run_finished"
            assert model.calls <= 6
            if session.task:
                assert session.task.questions <= 3

    asyncio.run(go())
