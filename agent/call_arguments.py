"""The arguments of an endpoint's own tool calls, read as JSON; broken JSON is repaired within
one reply's budget, as a ReAct reply's inputs are, and a reply that needs more repair than the
event loop may give is read in a worker thread with a deadline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .models.base import ToolCallPart
from .offload import Overdue, run_quick
from .react import step as react
from .react.action_input import Unreadable
from .react.repair import REPAIR_REFUSED, repair, repair_budget

BROKEN_ARGUMENTS = (
    "The arguments of this call are broken JSON too long to repair, so it was not made; "
    "send them as valid JSON."
)


def arguments_of(raw: str) -> dict[str, Any]:
    """A call's arguments as a dict; broken JSON is repaired, a bare value is `input`.
    `Unreadable` when the arguments are broken past what repair may read."""
    try:
        value = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        value = repair(raw)
        if value is REPAIR_REFUSED:
            raise Unreadable(BROKEN_ARGUMENTS) from None
    if isinstance(value, dict):
        return value
    return {} if value in (None, "") else {"input": value}


def _all_arguments(calls: Sequence[ToolCallPart]) -> list[dict[str, Any] | str]:
    """Each call's arguments, or the sentence saying why they could not be read."""
    read: list[dict[str, Any] | str] = []
    with repair_budget():  # one reply's budget, as for a ReAct reply
        for part in calls:
            try:
                read.append(arguments_of(part.arguments))
            except Unreadable as error:
                read.append(error.reason)
    return read


async def read_arguments(calls: Sequence[ToolCallPart]) -> list[dict[str, Any] | str]:
    """`_all_arguments` where it cannot stall other sessions: on the loop while they are JSON
    or need as little repair as a short ReAct reply may have there (json.loads is fast at any
    length), else in a worker thread with a deadline."""
    with repair_budget(react.INLINE_REPAIR_WORK) as budget:
        read = _all_arguments(calls)
    if not budget.refused:
        return read
    try:
        return await run_quick(
            _all_arguments, calls, deadline=react.READ_DEADLINE, what="reading the tool calls"
        )
    except Overdue:
        return [BROKEN_ARGUMENTS] * len(calls)
