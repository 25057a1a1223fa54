"""Checking a turn against its expectations; each failure is one sentence naming the
expectation and what was seen instead."""

from __future__ import annotations

import json
import math
from typing import Any

from .format import Expect
from .patterns import search
from .results import UNANSWERED, Decision, TurnResult

SHOWN_CHARS = 60


def expected_decision(expect: Expect) -> Decision | None:
    """The decision the turn should make; an answer whose tools are not stated has none."""
    if expect.outcome != "answer":
        return UNANSWERED[expect.outcome]
    if expect.tools is None:
        return None
    return "tool" if expect.tools else "no_tool"


def check_turn(number: int, expect: Expect, turn: TurnResult) -> TurnResult:
    """`turn` with its failures and checks filled in."""
    failures: list[str] = []
    checks: dict[str, bool] = {}
    prefix = f"turn {number}: "
    if turn.outcome != expect.outcome:
        failures.append(
            f"{prefix}outcome expected {expect.outcome}, saw {turn.outcome} ({quote(turn.text)})"
        )
    if expect.asks_for is not None and set(turn.asked_for) != set(expect.asks_for):
        failures.append(
            f"{prefix}asks_for expected {listed(expect.asks_for)}, saw {listed(turn.asked_for)}"
        )
    if expect.tools is not None:
        if turn.tools != expect.tools:
            failures.append(
                f"{prefix}tools expected {listed(expect.tools)}, saw {listed(turn.tools)}"
            )
        # A turn that failed with an error it was not expected to end in chose no tools: its
        # "none called" is not a right choice of none (its failure is its outcome's).
        errored = turn.outcome == "error" and expect.outcome != "error"
        checks["tools"] = turn.tools == expect.tools and not errored
    if expect.args is not None:
        problems = [_args_problem(tool, wanted, turn) for tool, wanted in expect.args.items()]
        problems = [p for p in problems if p]
        checks["args"] = not problems
        failures.extend(prefix + p for p in problems)
    answer_problems = _answer_problems(expect, turn.text)
    if expect.answer_matches is not None or expect.answer_contains is not None:
        checks["answer"] = not answer_problems
    failures.extend(prefix + p for p in answer_problems)
    return turn.model_copy(update={"failures": failures, "checks": checks})


def _args_problem(tool: str, wanted: dict[str, Any], turn: TurnResult) -> str | None:
    calls = [call.arguments for call in turn.calls if call.tool == tool]
    if not calls:
        return f"args of {tool} expected {shown(wanted)}, but {tool} was not called"
    if any(matches(wanted, arguments) for arguments in calls):
        return None
    return f"args of {tool} expected {shown(wanted)}, saw {shown(calls[-1])}"


def _answer_problems(expect: Expect, text: str) -> list[str]:
    problems = []
    if expect.answer_matches is not None and not search(expect.answer_matches, text):
        problems.append(f"answer_matches /{expect.answer_matches}/ not found in {quote(text)}")
    for part in expect.answer_contains or []:
        if part not in text:
            problems.append(f"answer_contains {part!r} not in {quote(text)}")
    return problems


def matches(wanted: Any, seen: Any) -> bool:
    """`wanted` is a subset of `seen`: mappings by key, numbers by value (5 is 5.0), text
    without regard to case, spacing or a plural ending, lists item by item."""
    if isinstance(wanted, dict):
        return isinstance(seen, dict) and all(
            key in seen and matches(value, seen[key]) for key, value in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(seen, list)
            and len(wanted) == len(seen)
            and all(matches(w, s) for w, s in zip(wanted, seen, strict=True))
        )
    if isinstance(wanted, bool) or wanted is None or isinstance(seen, bool) or seen is None:
        # True is not 1 here: a flag and a count are different answers.
        return type(wanted) is type(seen) and wanted == seen
    left, right = _number(wanted), _number(seen)
    if left is not None and right is not None:
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-9)
    return _same_words(str(wanted), str(seen))


def _same_words(wanted: str, seen: str) -> bool:
    """Equal but for case, spacing and a plural ending: `mile` is `Miles`, `inch` `inches`."""
    left, right = (" ".join(text.split()).casefold() for text in (wanted, seen))
    short, long = sorted((left, right), key=len)
    return long in (short, short + "s", short + "es")


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def quote(text: str) -> str:
    """`text` on one line, cut to a readable length, in quotes."""
    flat = " ".join(text.split())
    if len(flat) > SHOWN_CHARS:
        flat = flat[: SHOWN_CHARS - 1] + "…"
    return f'"{flat}"'


def listed(names: list[str]) -> str:
    return "[" + ", ".join(names) + "]"


def shown(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, default=str)
