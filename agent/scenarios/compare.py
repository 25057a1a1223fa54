"""One suite run against several models, side by side: a row of scores per model, then which
model passed which scenario."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.tokens import Tokens

from .format import FileError
from .report import cut, padded, results_json, text_width, token_figure
from .results import RunResult
from .score import Ratio, Scores

NAME_WIDTH = 48


@dataclass
class ModelRun:
    """A model's name as the reports show it, its runs and their scores."""

    name: str
    results: list[RunResult]
    scores: Scores

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def seconds(self) -> float:
        return sum(r.duration for r in self.results)

    @property
    def tokens(self) -> Tokens:
        return Tokens.summed(r.tokens for r in self.results)


def _share(ratio: Ratio) -> str:
    return "n/a" if ratio.value is None else f"{100 * ratio.value:.0f}%"


def scores_table(runs: Sequence[ModelRun]) -> str:
    """A row per model: pass rate, pass^k, decision macro-F1, tool and argument accuracy,
    tokens and time."""
    k = runs[0].scores.k if runs else 1
    head = ["model", "pass rate", f"pass^{k}", "decision F1", "tools", "args", "tokens", "time"]
    rows: list[Sequence[str]] = [head]
    for run in runs:
        s = run.scores
        f1 = "n/a" if s.decision_f1 is None else f"{s.decision_f1:.3f}"
        rows.append(
            (run.name, f"{s.runs.hits}/{s.runs.total}", _share(s.pass_k), f1,
             _share(s.tool_accuracy), _share(s.args_accuracy), token_figure(run.tokens) or "-",
             f"{run.seconds:.1f}s")
        )  # fmt: skip
    return _columns(rows)


def scenarios_table(runs: Sequence[ModelRun]) -> str:
    """A row per scenario, a column per model: PASS, FAIL, or how many of its runs passed."""
    order: list[tuple[str, str]] = []
    passed: dict[tuple[str, str, str], list[bool]] = {}
    for run in runs:
        for result in run.results:
            key = (result.file, result.scenario)
            if key not in order:
                order.append(key)
            passed.setdefault((run.name, *key), []).append(result.passed)
    rows: list[Sequence[str]] = [("scenario", *(run.name for run in runs))]
    for file, scenario in order:
        cells = []
        for run in runs:
            runs_passed = passed.get((run.name, file, scenario), [])
            cells.append(_verdict(runs_passed))
        rows.append((cut(scenario, NAME_WIDTH), *cells))
    return _columns(rows)


def _verdict(passed: list[bool]) -> str:
    if not passed:
        return "-"
    if len(passed) > 1 and not all(passed) and any(passed):
        return f"{sum(passed)}/{len(passed)}"
    return "PASS" if all(passed) else "FAIL"


def _columns(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(text_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(padded(cell, widths[i]) for i, cell in enumerate(row)) for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def compared_json(runs: Sequence[ModelRun], invalid: Sequence[FileError]) -> dict[str, Any]:
    """Every model's full results (as one model's `--json`), and whether all of them passed."""
    models = [{"model": run.name, **results_json(run.results, invalid, run.scores)} for run in runs]
    return {
        "passed": all(run.passed for run in runs) and not invalid,
        "invalid_files": [error.model_dump(mode="json") for error in invalid],
        "models": models,
    }


def junit_path(path: str, name: str) -> Path:
    """`out.xml` for model `gpt-4o` is `out.gpt-4o.xml`: a file per model."""
    out = Path(path)
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    return out.with_name(f"{out.stem}.{safe}{out.suffix or '.xml'}")
