"""Repairing broken JSON within a budget.

json_repair's time grows with the input's length times its punctuation (a bracket or a quote
can send it looking ahead to the end), so a hostile 16 KB reply of `{"{"{"...` took 14 s. Real
broken inputs are short: one reply's repairs read at most `REPAIR_WORK` of that product, and an
input past it is refused (`REPAIR_REFUSED`), not repaired.
"""

from __future__ import annotations

import contextlib
import string
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import json_repair

REPAIR_REFUSED = object()  # repair's answer for broken JSON too large to repair
# What one reply's repairs may read, as `repair_work` counts it: about 50 ms of json_repair at
# its worst. A broken input of a few hundred characters is well inside.
REPAIR_WORK = 16_384
# Characters json_repair may stop at to look ahead, and a base cost for every other one (it
# reads about 5-15 µs a character even where it never looks ahead).
_STRUCTURE = frozenset(string.punctuation + "“”‘’")
_PER_CHAR = 4


class RepairBudget:
    """The repair work left for one reply, and whether an input was refused for want of it."""

    def __init__(self, work: int) -> None:
        self.left = work
        self.refused = False


_budget: ContextVar[RepairBudget | None] = ContextVar("repair_budget", default=None)


@contextlib.contextmanager
def repair_budget(work: int = REPAIR_WORK) -> Iterator[RepairBudget]:
    """Every repair inside shares `work`. Inside another budget the outer one stands: its caller
    chose it (a smaller one, to read a short reply on the event loop)."""
    outer = _budget.get()
    if outer is not None:
        yield outer
        return
    budget = RepairBudget(work)
    token = _budget.set(budget)
    try:
        yield budget
    finally:
        _budget.reset(token)


def repair_work(text: str) -> int:
    """What repairing `text` may cost: its length times its punctuation (each mark may send
    json_repair looking ahead to the end) and a base cost for every character."""
    return len(text) * (_PER_CHAR + sum(text.count(char) for char in _STRUCTURE))


def repair(text: str) -> Any:
    """`json_repair.loads(text)` within the budget; `REPAIR_REFUSED` past it, None if it
    fails. Outside any budget, each input may take the whole of `REPAIR_WORK`."""
    budget = _budget.get()
    left = REPAIR_WORK if budget is None else budget.left
    work = left + 1 if len(text) * _PER_CHAR > left else repair_work(text)
    if work > left:
        if budget is not None:
            budget.refused = True
        return REPAIR_REFUSED
    if budget is not None:
        budget.left -= work
    try:
        return json_repair.loads(text)
    except Exception:
        return None
