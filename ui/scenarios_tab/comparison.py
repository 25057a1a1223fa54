"""One batch run with several rows of settings: each row's run, and what the tab shows of them
side by side, with the figures of `agent.scenarios.compare` (the command line's comparison).
No gradio here; `ui.scenarios_tab.several` runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.scenarios import FileError, RunResult, score
from agent.scenarios.compare import ModelRun, compared_json, junit_path, score_cells, verdict
from agent.scenarios.compare import verdicts as compared_verdicts
from agent.scenarios.junit import write_junit
from agent.scenarios.report import write_json
from agent.scenarios.results import TurnResult

from ..labels import t
from .contenders import Contender
from .runs import Batch, token_cell

# How a turn fails when its model could not be reached or refused to serve: the row's model
# is taken for unreachable, and its other scenarios are not sent to it.
UNREACHABLE = frozenset({"connection", "timeout", "server", "auth", "not_found"})


@dataclass
class Lane:
    """One row's run: its settings, its own copy of the batch (the same scenarios, its own
    results), and the sentence of why it did not run or stopped early, if it did."""

    contender: Contender
    batch: Batch
    note: str | None = None

    @property
    def name(self) -> str:
        return self.contender.name

    def model_run(self) -> ModelRun:
        results = self.batch.shown_results()
        return ModelRun(self.name, results, score(results))


@dataclass
class Comparison:
    """The rows' runs, in the order of the rows."""

    lanes: list[Lane] = field(default_factory=list)
    invalid: list[FileError] = field(default_factory=list)

    @classmethod
    def of(cls, batch: Batch, contenders: Sequence[Contender]) -> Comparison:
        lanes = [Lane(c, replace(batch, results=[], refused=None)) for c in contenders]
        return cls(lanes, list(batch.invalid))

    def ran(self) -> list[Lane]:
        """The rows that ran at least one scenario."""
        return [lane for lane in self.lanes if lane.batch.results]

    def done(self) -> int:
        return sum(len(lane.batch.results) for lane in self.lanes)

    def model_runs(self) -> list[ModelRun]:
        return [lane.model_run() for lane in self.ran()]


def unreachable(result: RunResult) -> TurnResult | None:
    """The turn of `result` that ended because its model could not be reached, if one did."""
    return next((turn for turn in result.turns if turn.error_kind in UNREACHABLE), None)


SCORE_COLUMNS = ("score_pass_rate", "score_pass_k", "score_decision_f1", "score_tools")
SCORE_COLUMNS += ("score_args", "col_tokens", "col_time")


def scores_value(comparison: Comparison, language: str) -> dict[str, Any]:
    """A row per model that ran: its name, pass rate, pass^k, decision macro-F1, tool and
    argument accuracy, tokens and seconds, as the command line's comparison gives them."""
    runs = comparison.model_runs()
    k = runs[0].scores.k if runs else 1
    headers = [t("col_model", language)]
    headers += [t(key, language).format(k=k) for key in SCORE_COLUMNS]
    data = [
        [run.name, *score_cells(run, "—"), token_cell(run.tokens, language), round(run.seconds, 1)]
        for run in runs
    ]
    return {"headers": headers, "data": data}


def verdicts_value(comparison: Comparison, language: str) -> dict[str, Any]:
    """A row per scenario: its name, whether each model passed it, and its file."""
    runs = comparison.model_runs()
    passed, failed = t("scenario_pass", language), t("scenario_fail", language)

    def word(ok: bool) -> str:
        return passed if ok else failed

    headers = [t("col_scenario", language), *(run.name for run in runs), t("col_file", language)]
    data = [
        [scenario, *(verdict(p, word) for p in per_model), file]
        for file, scenario, per_model in compared_verdicts(runs)
    ]
    return {"headers": headers, "data": data}


def clicked(comparison: Comparison, row: Any, column: int) -> tuple[Lane, RunResult] | None:
    """The run a cell of the verdicts table stands for: the row's scenario (by its name and
    file, as the browser may have sorted the rows) on the column's model; the first model
    that ran it when the cell is the scenario's name or file."""
    if not isinstance(row, list | tuple) or len(row) < 2:
        return None
    name, file = row[0], row[-1]
    ran = comparison.ran()
    lanes = [ran[column - 1]] if 1 <= column <= len(ran) else ran
    for lane in lanes:
        names = lane.batch.names
        for result in lane.batch.results:
            if result.test_name == name and names.get(result.file, result.file) == file:
                return lane, result
    return None


def write_compared(comparison: Comparison, folder: Path) -> tuple[str, list[str]]:
    """Every model's results as one JSON file (the command line's `--json` with several
    models), and a JUnit XML file per model."""
    folder.mkdir(parents=True, exist_ok=True)
    runs = comparison.model_runs()
    json_path = folder / "scenario-results.json"
    write_json(json_path, compared_json(runs, comparison.invalid))
    junit_files = []
    for run in runs:
        path = junit_path(folder / "scenario-results.xml", run.name)
        write_junit(path, run.results, comparison.invalid)
        junit_files.append(str(path))
    return str(json_path), junit_files
