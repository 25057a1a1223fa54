"""A pending task while the conversation turns to something else.

The agent asked for a value ("Which unit?"); the person may answer it, or first ask something
else ("what is 2+2?") and answer after ("km"). Decided here in code, for every model: whether
a message answers the task (its tool's extractor found a value the task is missing), whether
it abandons it ("never mind", "算了"), which language the turn speaks, and what the
conversation keeps after a turn that did something else: the task as it was when the turn
began, for a few turns, until another task takes its place or the person drops it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from . import dialogue
from .dialogue import PendingTask
from .events import NoticeEvent, TaskStateEvent
from .offload import Overdue, run_quick
from .prompts import phrase
from .turn import TurnState

log = logging.getLogger(__name__)

# Turns spent on something else that a pending task outlasts; the next one drops it.
MAX_TURNS_ASIDE = 3


def cancel_language(text: str) -> str | None:
    """The language the person drops the open task in, or None when they do not: "never mind"
    to a Chinese question is said in English, and answered so."""
    cancel = dialogue.CANCEL.search(text)
    return None if cancel is None else "en" if cancel[0].isascii() else "zh"


def answers(task: PendingTask, found: Mapping[str, Any]) -> bool:
    """Whether what the tool's extractor found in a message is what `task` waits for: a value
    it is missing (any value, when nothing is missing). A reply to a question the tool asked
    itself is always its answer: only the tool can read it."""
    if task.tool_question:
        return True
    if not found or not _same_request(task, found):
        return False  # nothing for it, or another request ("convert 30 celsius" for 5 miles)
    return not task.missing or any(name in found for name in task.missing)


def kept(
    waiting: PendingTask | None,
    now: PendingTask | None,
    *,
    other_waits: bool = False,
    done: Mapping[str, Any] | None = None,
) -> tuple[PendingTask | None, PendingTask | None]:
    """After a turn that began with the pending task `waiting` and did something else (None:
    the turn took the task up, answered or dropped it) and left `now` pending: the task the
    conversation keeps, and the task dropped, if any. Another task left pending (`now` of
    another tool, or `other_waits`: a call waiting for approval) takes its place; otherwise
    `waiting` stays as it was, one turn further aside, until it has been aside too long."""
    if waiting is None:
        return now, None
    if now is not None and now.tool == waiting.tool and _same_request(waiting, now.known):
        return now, None  # the task again, corrected ("make it 10 miles"): it goes on so
    if now is not None or other_waits:
        return now, waiting
    if done is not None and _same_request(waiting, done):
        return None, None  # the same request, done this turn, perhaps with one value changed
    if waiting.turns_aside >= MAX_TURNS_ASIDE:
        return None, waiting
    return waiting.model_copy(update={"turns_aside": waiting.turns_aside + 1}), None


def untouched(turn: TurnState) -> bool:
    """Whether the task set aside is still the draft's as the turn found it: neither taken up
    (then it goes on as `draft.task`) nor replaced by another this turn began."""
    return turn.waiting is not None and turn.draft.task is turn.waiting_from


def differences(known: Mapping[str, Any], other: Mapping[str, Any]) -> int:
    """How many of the values `known` holds `other` gives otherwise (one it lacks is none)."""
    same = dialogue.same_value
    return sum(1 for key, value in known.items() if key in other and not same(value, other[key]))


def _same_request(waiting: PendingTask, other: Mapping[str, Any]) -> bool:
    """`other`'s values are the task's, all or all but one ("make it 10 miles")."""
    return differences(waiting.known, other) < max(1, len(waiting.known))


async def resume(turn: TurnState) -> None:
    """The person's message, read against the pending task before the model is asked anything.
    A reply the tool's extractor finds a missing value in fills the task and keeps its
    language; any other message speaks its own, and the task is set aside as it was, for the
    turn's end to keep (`keep`), unless the message drops it or the turn takes it up."""
    task = turn.draft.task
    if not task:
        return
    aside = task.model_copy(deep=True)
    # In the plugin-task style the transcript is how the model hears the message at all.
    task.transcript.append(f"Observation: {turn.text}")
    tool = turn.agent.tool_by_name.get(task.tool)
    if tool is None:  # a tool no longer offered: nothing can answer it
        turn.draft.task = None
        turn.speak(None)
        return
    image_ids = [r.id for r in turn.refs] or turn.draft.images.ids()
    try:
        found = await run_quick(
            tool.extract, turn.text, image_ids, dict(task.known), what=f"{tool.name} extract"
        )
    except Overdue:
        log.warning("extractor of %s ran past its deadline", tool.name)
        found = {}
    except Exception:
        log.exception("extractor of %s failed", tool.name)
        found = {}
    if answers(task, found):
        task.known = dialogue.merge(task.known, found, fields=tool.Args.model_fields)
        task.missing = (await turn.check(tool, task.known)).missing
    else:
        turn.speak(None)
        cancelled = cancel_language(turn.text)
        if cancelled is not None:
            turn.language = cancelled
        turn.waiting = None if cancelled is not None else aside
        turn.waiting_from = task
    turn.emit(TaskStateEvent(tool=tool.name, known=task.known, missing=task.missing))


def keep(turn: TurnState) -> None:
    """At the turn's end: the task it set aside stays pending, or gives way (`kept`); a task
    dropped so is said, in the trace and to the person, with the question it was waiting on."""
    draft = turn.draft
    now = None if untouched(turn) else draft.task
    done = turn.completed.get(turn.waiting.tool) if turn.waiting else None
    draft.task, dropped = kept(turn.waiting, now, other_waits=draft.approval is not None, done=done)
    if dropped is None:
        return
    turn.emit(
        TaskStateEvent(
            tool=dropped.tool, known=dropped.known, missing=dropped.missing, status="cleared"
        )
    )
    tool = turn.agent.tool_by_name.get(dropped.tool)
    question = dropped.tool_question or dropped.request
    if tool is not None and dropped.missing and not dropped.tool_question:
        question = dialogue.field_question(tool, dropped.missing, turn.language)
    said = phrase(turn.language, "task_set_aside", question=question)
    turn.emit(NoticeEvent(message=said, kind="task_set_aside"))
