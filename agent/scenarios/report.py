"""What a person reads after a run: the table, the transcript of a run, the JSON results."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.tokens import Tokens

from .expect import shown
from .format import FileError
from .results import RunResult
from .score import Scores

NAME_WIDTH = 48


def table(results: Sequence[RunResult], invalid: Sequence[FileError]) -> str:
    """One row per scenario run, then one per invalid file, then the total when more than one
    run used tokens; the first failure comes last so it can be as long as it needs."""
    rows = [
        (r.test_name, "PASS" if r.passed else "FAIL", f"{r.duration:.2f}s", str(r.model_calls),
         token_figure(r.tokens), r.failures[0] if r.failures else "")
        for r in results
    ]  # fmt: skip
    rows += [(error.file, "INVALID", "", "", "", _first(error.problems)) for error in invalid]
    if len(results) > 1:
        total = Tokens.summed(r.tokens for r in results)
        seconds = sum(r.duration for r in results)
        calls = sum(r.model_calls for r in results)
        rows.append(("total", "", f"{seconds:.2f}s", str(calls), token_figure(total), ""))
    names = [cut(row[0], NAME_WIDTH) for row in rows]
    width = max([text_width("scenario"), *(text_width(n) for n in names)])
    lines = [f"{padded('scenario', width)}  result   time    calls   tokens  first failure"]
    for name, row in zip(names, rows, strict=True):
        _, result, seconds, calls, tokens, failure = row
        lines.append(
            f"{padded(name, width)}  {result:<7}  {seconds:>6}  {calls:>5}  {tokens:>7}  {failure}"
        )
    cost = Tokens.summed(r.tokens for r in results).cost
    if cost is not None:
        lines.append(f"cost {'≈' if any(r.tokens.estimated for r in results) else ''}{cost:.4f}")
    return "\n".join(line.rstrip() for line in lines)


def token_figure(tokens: Tokens) -> str:
    """ "1,234", or "≈1,234" when any of it is estimated; "" when nothing was counted."""
    if not tokens.total:
        return ""
    return ("≈" if tokens.estimated else "") + f"{tokens.total:,}"


def transcript(result: RunResult) -> str:
    """The turns of a run as plain text: what was said, what was called, how it ended."""
    lines = []
    for number, turn in enumerate(result.turns, 1):
        images = f"  [images: {', '.join(turn.images)}]" if turn.images else ""
        lines.append(f"turn {number} > {turn.user}{images}")
        for call in turn.calls:
            status = {True: "ok", False: "failed", None: "no result"}[call.ok]
            lines.append(f"  tool {call.tool} {shown(call.arguments)} ({status})")
        ending = {"answer": "answer", "ask": "asks", "end": "ends", "error": "error"}
        lines.append(f"  {ending[turn.outcome]}: {turn.text}")
        if turn.asked_for:
            lines.append(f"  asked for: {', '.join(turn.asked_for)}")
        counted = token_figure(turn.tokens)
        tokens = f", {counted} tokens" if counted else ""
        lines.append(
            f"  decision {turn.decision}, {turn.model_calls} model call(s){tokens},"
            f" {turn.duration:.2f}s"
        )
        lines.extend(f"  FAILED {failure}" for failure in turn.failures)
    return "\n".join(lines)


def results_json(
    results: Sequence[RunResult], invalid: Sequence[FileError], scores: Scores
) -> dict[str, Any]:
    """Everything: scores, invalid files, and per scenario each run with each turn's events."""
    scenarios: dict[tuple[str, str], dict[str, Any]] = {}
    for result in results:
        entry = scenarios.setdefault(
            (result.file, result.scenario),
            {"name": result.scenario, "file": result.file, "passed": True, "runs": []},
        )
        entry["passed"] = entry["passed"] and result.passed
        entry["runs"].append(result.model_dump(mode="json"))
    return {
        "scores": scores.model_dump(mode="json"),
        "passed": all(r.passed for r in results) and not invalid,
        "tokens": Tokens.summed(r.tokens for r in results).model_dump(mode="json"),
        "invalid_files": [error.model_dump(mode="json") for error in invalid],
        "scenarios": list(scenarios.values()),
    }


def write_json(path: str | Path, data: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def _first(problems: Sequence[str]) -> str:
    more = len(problems) - 1
    return problems[0] + (f" (and {more} more)" if more else "") if problems else ""


def text_width(text: str) -> int:
    """Columns `text` takes in a terminal: Chinese characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def padded(text: str, width: int) -> str:
    return text + " " * (width - text_width(text))


def cut(text: str, width: int) -> str:
    if text_width(text) <= width:
        return text
    while text_width(text) > width - 1:
        text = text[:-1]
    return text + "…"
