"""One batch run with several rows of settings: each row's run, and what the tab shows of them
side by side, with the figures of `agent.scenarios.compare` (the command line's comparison).
Every row has its place in the tables and downloads, and what did not run says so.
No gradio here; `ui.scenarios_tab.several` runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.scenarios import FileError, RunResult, score
from agent.scenarios.compare import ModelRun, NotRun, compared_json, file_name, score_cells
from agent.scenarios.junit import write_junit
from agent.scenarios.report import write_json
from agent.scenarios.results import TurnResult

from ..labels import t
from .contenders import Contender
from .runs import Batch, token_cell
from .said import Said, sentence

# How a turn fails when its model could not be reached or refused to serve: the row's model
# is taken for unreachable, and its other scenarios are not sent to it.
UNREACHABLE = frozenset({"connection", "timeout", "server", "auth", "not_found"})
# What a figure that does not exist is shown as (nothing ran, nothing was measured).
MISSING = "—"
# The first failed expectation as a cell shows it, at most.
FAILURE_CHARS = 240


@dataclass
class Lane:
    """One row's run: its settings, its own copy of the batch (the same scenarios, its own
    results), and the sentence of why it did not run or stopped early, if it did."""

    contender: Contender
    batch: Batch
    note: Said | None = None

    @property
    def name(self) -> str:
        return self.contender.name

    @property
    def shown(self) -> str:
        return self.contender.shown

    def model_run(self) -> ModelRun:
        results = self.batch.shown_results()
        return ModelRun(self.name, results, score(results))

    def result(self, name: str, file: str) -> RunResult | None:
        """Its run of the scenario `name` of `file` (by the name the page gives the file)."""
        names = self.batch.names
        return next(
            (
                r
                for r in self.batch.results
                if r.test_name == name and names.get(r.file, r.file) == file
            ),
            None,
        )


@dataclass
class Comparison:
    """The rows' runs, in the order of the rows, and the sentence saying why the whole run
    stopped early, if it did."""

    lanes: list[Lane] = field(default_factory=list)
    invalid: list[FileError] = field(default_factory=list)
    stopped: Said | None = None

    @classmethod
    def of(cls, batch: Batch, contenders: Sequence[Contender]) -> Comparison:
        lanes = [Lane(c, replace(batch, results=[], refused=None), c.refused) for c in contenders]
        return cls(lanes, list(batch.invalid))

    def ran(self) -> list[Lane]:
        """The rows that ran at least one scenario."""
        return [lane for lane in self.lanes if lane.batch.results]

    def done(self) -> int:
        return sum(len(lane.batch.results) for lane in self.lanes)

    def scenarios(self) -> list[tuple[str, str]]:
        """Each scenario of the batch, by its name and its file's name, in order."""
        batch = self.lanes[0].batch if self.lanes else Batch()
        return [(s.name, batch.names.get(s.file, s.file)) for s in batch.scenarios]


def unreachable(result: RunResult) -> TurnResult | None:
    """The turn of `result` that ended because its model could not be reached, if one did."""
    return next((turn for turn in result.turns if turn.error_kind in UNREACHABLE), None)


def not_sent(result: RunResult) -> bool:
    """Whether `result` stands for a scenario never sent (`agent.scenarios.run.not_run`)."""
    return bool(result.turns) and all(turn.error_kind == "not_run" for turn in result.turns)


SCORE_COLUMNS = ("score_pass_rate", "score_pass_k", "score_decision_f1", "score_tools")
SCORE_COLUMNS += ("score_args", "col_tokens", "col_time")


def scores_value(comparison: Comparison, language: str) -> dict[str, Any]:
    """A row per row of settings: its name, pass rate, pass^k, decision macro-F1, tool and
    argument accuracy, tokens and seconds, as the command line's comparison gives them; a row
    that ran nothing says so, and a figure nothing measured is a dash."""
    headers = [t("col_model", language)]
    headers += [t(key, language).format(k=1) for key in SCORE_COLUMNS]
    data = []
    for lane in comparison.lanes:
        if not lane.batch.results:
            data.append([lane.shown, t("compare_not_run", language), *[MISSING] * 6])
            continue
        run = lane.model_run()
        tokens = token_cell(run.tokens, language) or MISSING
        data.append([lane.shown, *score_cells(run, MISSING), tokens, round(run.seconds, 1)])
    return {"headers": headers, "data": data}


def verdicts_value(comparison: Comparison, language: str) -> dict[str, Any]:
    """A row per scenario: its name, what each row's model did with it (passed; failed, with
    its first failed expectation; not run) and its file."""
    headers = [
        t("col_scenario", language),
        *(lane.shown for lane in comparison.lanes),
        t("col_file", language),
    ]
    data = [
        [name, *(cell(lane.result(name, file), language) for lane in comparison.lanes), file]
        for name, file in comparison.scenarios()
    ]
    return {"headers": headers, "data": data}


def cell(result: RunResult | None, language: str) -> str:
    """A model's run of a scenario, in a word, with why it failed."""
    if result is None or not_sent(result):
        return t("compare_not_run", language)
    if result.passed:
        return t("scenario_pass", language)
    failure = result.failures[0] if result.failures else ""
    if len(failure) > FAILURE_CHARS:
        failure = failure[: FAILURE_CHARS - 1] + "…"
    return t("compare_failed_cell", language).format(fail=t("scenario_fail", language), why=failure)


def clicked(comparison: Comparison, row: Any, column: int) -> tuple[Lane, RunResult | None] | None:
    """The run a cell of the verdicts table stands for: the row's scenario (by its name and
    file, as the browser may have sorted the rows) on the column's model, None when that
    model did not run it; the first model that ran it when the cell is the scenario's name
    or file."""
    if not isinstance(row, list | tuple) or len(row) < 2:
        return None
    name, file = row[0], row[-1]
    lanes = comparison.lanes
    if 1 <= column <= len(lanes):
        lane = lanes[column - 1]
        if (name, file) in comparison.scenarios():
            return lane, lane.result(name, file)
        return None
    for lane in comparison.ran():
        result = lane.result(name, file)
        if result is not None:
            return lane, result
    return None


def not_run_reason(comparison: Comparison, lane: Lane) -> Said:
    """Why `lane` ran no scenario: its own sentence, or the run's stop before it."""
    return lane.note or sentence("compare_not_reached")


def not_reached(comparison: Comparison, lane: Lane) -> Said:
    """Why `lane` did not run a scenario it has no result of: its own sentence (the server
    refused its settings), else what stopped the whole run (Stop, a turn limit)."""
    return lane.note or comparison.stopped or sentence("compare_not_reached")


def write_compared(comparison: Comparison, folder: Path, language: str) -> tuple[str, list[str]]:
    """Every row's results as one JSON file (the command line's `--json` with several models;
    a row that ran nothing with why), and a JUnit XML file per row that ran, its model's name
    first so that the files tell apart however narrow the list."""
    folder.mkdir(parents=True, exist_ok=True)
    runs: list[ModelRun | NotRun] = [
        lane.model_run()
        if lane.batch.results
        else NotRun(lane.name, not_run_reason(comparison, lane).say(language))
        for lane in comparison.lanes
    ]
    json_path = folder / "scenario-results.json"
    write_json(json_path, compared_json(runs, comparison.invalid))
    junit_files: list[str] = []
    for lane in comparison.ran():
        taken = {Path(p).name.split(".scenario-results")[0] for p in junit_files}
        path = folder / f"{file_name(lane.name, taken)}.scenario-results.xml"
        run = lane.model_run()
        write_junit(path, run.results, comparison.invalid, run.name)
        junit_files.append(str(path))
    return str(json_path), junit_files
