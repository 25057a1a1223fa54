"""A conversation has one writer: a turn works on a draft and the session commits it once,
when the turn's last event has been taken; a turn closed before then changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

from agent import Agent
from agent.models import ScriptedModel
from agent.session import Session, Turn

ROOT = Path(__file__).resolve().parent.parent
ASKS = (
    "Thought: I need the unit.\nAction: convert_units\n"
    'Action Input: {"value": 5, "from_unit": "mile"}'
)


def agent_with(*replies: str) -> Agent:
    return Agent(ScriptedModel(list(replies)), language="en")


async def test_the_conversation_changes_only_when_the_last_event_is_taken():
    agent = agent_with("Thought: easy.\nAnswer: 4")
    session = agent.new_session()
    seen = []
    async for event in agent.run("What is 2 + 2?", session=session):
        seen.append((event.type, len(session.history)))
    assert all(count == 0 for _, count in seen)  # nothing while the turn ran
    assert seen[-1][0] == "answer" and len(session.history) == 1


async def test_a_turn_closed_before_its_end_commits_its_stopped_record_only():
    agent = agent_with(ASKS)
    session = agent.new_session()
    async with contextlib.aclosing(agent.run("convert 5 miles", session=session)) as events:
        async for event in events:
            if event.type == "run_started":
                run_id = event.run_id
            if event.type == "ask_user":
                break  # the question was made, but its turn was never finished
    assert session.task is None  # the question it was asking is not pending
    [turn] = session.history
    assert (turn.user_text, turn.outcome, turn.reply) == ("convert 5 miles", "stopped", "")
    assert turn.run_id == run_id
    session.reopen(run_id)  # Retry starts from before it
    assert session.history == []


async def test_a_stopped_turn_keeps_its_images_for_the_next_turn(tmp_path):
    from PIL import Image

    photo = tmp_path / "photo.png"
    Image.new("RGB", (40, 30), "red").save(photo)
    agent = Agent(ScriptedModel(["Thought: slow.\nAnswer: red"], delay=5.0), language="en")
    session = agent.new_session()
    stop = asyncio.Event()
    async for event in agent.run("what colour?", [photo], session=session, stop=stop):
        if event.type == "run_started":
            stop.set()
    [turn] = session.history
    assert turn.outcome == "stopped" and turn.image_ids == ["img_1"]
    assert session.images.get("img_1").width == 40


async def test_a_turn_that_never_started_leaves_no_record():
    agent = agent_with("Thought: easy.\nAnswer: 4")
    session = agent.new_session()
    events = agent.run("What is 2 + 2?", session=session)
    await events.aclose()
    assert session.history == []


async def test_a_question_commits_its_task_and_retry_starts_from_before_it():
    agent = agent_with(ASKS, ASKS)
    session = agent.new_session()
    run_ids = [
        e.run_id
        async for e in agent.run("convert 5 miles", session=session)
        if e.type == "run_started"
    ]
    assert session.task is not None and len(session.history) == 1
    session.reopen(run_ids[0])
    assert session.task is None and session.history == []
    session.reopen(run_ids[0])  # only once, and only for the last turn
    assert session.history == []


async def test_a_draft_shares_nothing_it_could_change_with_the_conversation():
    session = Session()
    draft = session.draft()
    draft.allowed_tools.append("weather")
    draft.history.append(Turn(user_text="hi"))
    assert session.allowed_tools == [] and session.history == []
    session.commit(draft, "r1")
    assert session.allowed_tools == ["weather"] and len(session.history) == 1


WRITES = re.compile(
    r"\b(session|state\.session|self\.session|conversation)\.(history|task|approval|allowed_tools)"
    r"\s*(=(?!=)|\.append|\.clear|\.pop|\.extend)|del\s+\S*session\.history"
)
ROLLBACK = re.compile(r"\b(task_before|approval_before|history_len|history_last)\b")


def test_no_module_but_the_session_writes_a_conversations_state():
    offenders = []
    for folder in ("agent", "ui", "tools"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "agent" / "session.py":
                continue
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                if WRITES.search(line) or ROLLBACK.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
