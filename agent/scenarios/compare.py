"""One suite run against several models, side by side: a row of scores per model, then which
model passed which scenario. The command prints these tables; the Scenarios tab shows the
same figures (`score_cells`, `verdicts`) in its own words."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.tokens import Tokens

from .format import FileError
from .report import cut, padded, results_json, text_width, token_figure
from .results import RunResult
from .score import Ratio, Scores

NAME_WIDTH = 48
# The most characters of a model's name in a JUnit file's name.
FILE_NAME_CHARS = 40
# The hex digits of the hash that tells apart names that had to change to fit a file's name.
HASH_CHARS = 8


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


@dataclass
class NotRun:
    """A model that ran no scenario, by its name, and the sentence saying why (its settings
    were refused, or the run stopped before it)."""

    name: str
    reason: str


def _share(ratio: Ratio, missing: str) -> str:
    return missing if ratio.value is None else f"{100 * ratio.value:.0f}%"


def score_cells(run: ModelRun, missing: str = "n/a") -> list[str]:
    """A model's pass rate, pass^k, decision macro-F1, tool and argument accuracy; `missing`
    where there was nothing to measure."""
    s = run.scores
    f1 = missing if s.decision_f1 is None else f"{s.decision_f1:.3f}"
    return [
        f"{s.runs.hits}/{s.runs.total}",
        _share(s.pass_k, missing),
        f1,
        _share(s.tool_accuracy, missing),
        _share(s.args_accuracy, missing),
    ]


def scores_table(runs: Sequence[ModelRun]) -> str:
    """A row per model: pass rate, pass^k, decision macro-F1, tool and argument accuracy,
    tokens and time."""
    k = runs[0].scores.k if runs else 1
    head = ["model", "pass rate", f"pass^{k}", "decision F1", "tools", "args", "tokens", "time"]
    rows: list[Sequence[str]] = [head]
    for run in runs:
        tokens = token_figure(run.tokens) or "-"
        rows.append((run.name, *score_cells(run), tokens, f"{run.seconds:.1f}s"))
    return _columns(rows)


def verdicts(runs: Sequence[ModelRun]) -> list[tuple[str, str, list[list[bool]]]]:
    """Each scenario (its file and name, in the order they first ran) with, per model, whether
    each of its runs passed (none when that model did not run it)."""
    order: list[tuple[str, str]] = []
    passed: dict[tuple[str, str, str], list[bool]] = {}
    for run in runs:
        for result in run.results:
            key = (result.file, result.scenario)
            if key not in order:
                order.append(key)
            passed.setdefault((run.name, *key), []).append(result.passed)
    return [
        (file, scenario, [passed.get((run.name, file, scenario), []) for run in runs])
        for file, scenario in order
    ]


def scenarios_table(runs: Sequence[ModelRun]) -> str:
    """A row per scenario, a column per model: PASS, FAIL, or how many of its runs passed."""
    rows: list[Sequence[str]] = [("scenario", *(run.name for run in runs))]
    for _, scenario, per_model in verdicts(runs):
        rows.append((cut(scenario, NAME_WIDTH), *(verdict(p) for p in per_model)))
    return _columns(rows)


def verdict(
    passed: list[bool], word: Callable[[bool], str] = lambda ok: "PASS" if ok else "FAIL"
) -> str:
    """ "-" for no run, `word(True)` when all passed, `word(False)` when none did, else how
    many of the runs passed ("2/3")."""
    if not passed:
        return "-"
    if len(passed) > 1 and not all(passed) and any(passed):
        return f"{sum(passed)}/{len(passed)}"
    return word(all(passed))


def _columns(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(text_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(padded(cell, widths[i]) for i, cell in enumerate(row)) for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def compared_json(
    runs: Sequence[ModelRun | NotRun], invalid: Sequence[FileError]
) -> dict[str, Any]:
    """Every model's full results (as one model's `--json`), each model that did not run with
    why, and whether all of them passed."""
    models = [
        {"model": run.name, **results_json(run.results, invalid, run.scores)}
        if isinstance(run, ModelRun)
        else {"model": run.name, "passed": False, "not_run": run.reason}
        for run in runs
    ]
    return {
        "passed": all(isinstance(run, ModelRun) and run.passed for run in runs) and not invalid,
        "invalid_files": [error.model_dump(mode="json") for error in invalid],
        "models": models,
    }


def junit_path(path: str | Path, name: str) -> Path:
    """`out.xml` for model `gpt-4o` is `out.gpt-4o.xml`: a file per model (`file_name`)."""
    out = Path(path)
    return out.with_name(f"{out.stem}.{file_name(name)}{out.suffix or '.xml'}")


def file_name(name: str, taken: Collection[str] = ()) -> str:
    """A model's `name` as part of a file's name: letters, digits, `-`, `_` and `.`, bounded,
    and none of the names `taken`. A name that had to change to fit ("a b", "a/b", "a?b" are
    all "a_b") ends with a short hash of the name as it was, so that each tells its model."""
    safe = "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in name)
    safe = "_".join(part for part in safe.split("_") if part).strip(".")[:FILE_NAME_CHARS]
    if safe != name:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:HASH_CHARS]
        safe = f"{safe or 'model'}-{digest}"
    chosen, number = safe, 1
    while chosen in taken:
        number += 1
        chosen = f"{safe}-{number}"
    return chosen
