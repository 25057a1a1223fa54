"""Scenario runs from the page: which files to run, running them with the session's settings,
and what the tab shows of the results. No gradio here; `ui.scenarios_tab.handlers` runs it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.scenarios import FileError, InvalidFile, RunResult, Scenario, load_file, score
from agent.scenarios.junit import write_junit
from agent.scenarios.report import results_json, write_json
from agent.scenarios.run import run_scenario
from agent.scenarios.score import Scores
from agent.tokens import Tokens

from ..labels import cost_figure, t
from .said import Said, line, sentence, shorter

SUITES_DIR = Path(__file__).resolve().parents[2] / "scenarios"
SUFFIXES = (".yaml", ".yml", ".json")
# Turns one press of Run may hold, all files together: every shipped suite is under 100. Each
# file is bounded on its own (`agent.scenarios.format`); this bounds how many of them one
# visitor can queue, and so the run's time, memory and results.
MAX_BATCH_TURNS = 500
# The most characters of an upload's name the page shows.
UPLOAD_NAME_CHARS = 80


def shipped_suites() -> list[Path]:
    """The scenario files that ship with the app, by name."""
    return sorted(p for p in SUITES_DIR.glob("*.y*ml") if p.is_file())


@dataclass
class Batch:
    """One press of Run: the scenarios it ran, the files it could not use, the results."""

    scenarios: list[Scenario] = field(default_factory=list)
    invalid: list[FileError] = field(default_factory=list)
    results: list[RunResult] = field(default_factory=list)
    # The name each file goes by on the page and in the downloads, by the path it was read from
    # (an upload's path on the server is nobody's business).
    names: dict[str, str] = field(default_factory=dict)
    # Where each file's images are, by the path it was read from; uploads have none.
    image_dirs: dict[str, Path] = field(default_factory=dict)
    # The sentence of the limit that stopped the run before one of its turns, if one did.
    refused: str | None = None

    def shown_results(self) -> list[RunResult]:
        """The results as the downloads name their files."""
        return [r.model_copy(update={"file": self.names.get(r.file, r.file)}) for r in self.results]

    def scores(self) -> Scores:
        return score(self.results)


def collect(
    suites: Sequence[str],
    uploads: Sequence[str | tuple[str, str]],
    language: str,
    saved: Sequence[tuple[Path, str]] = (),
) -> Batch:
    """The scenarios of the shipped suites named, of the uploaded files (each a path, or a
    path and the name the person gave it) and of those `saved` from the chat (each file with
    the name it was saved under; its images are beside it, in a folder the server made); a
    file that cannot be used is kept in `invalid` with its problems, and the others still
    run."""
    batch = Batch()
    shipped = {p.name: p for p in shipped_suites()}
    for name in suites or []:
        path = shipped.get(name)
        if path is None:
            problem = f"{name}: {t('scenario_no_suite', language)}"
            batch.invalid.append(FileError(file=name, problems=[problem]))
            continue
        _read(batch, path, f"scenarios/{name}", path.parent, language)
    for upload in uploads or []:
        path, name = _upload(upload)
        if path.suffix.lower() not in SUFFIXES:
            problem = f"{name}: {t('scenario_wrong_type', language)}"
            batch.invalid.append(FileError(file=name, problems=[problem]))
            continue
        _read(batch, path, name, None, language)
    for path, name in saved:
        _read(batch, Path(path), f"{name} ({path.name})", Path(path).parent, language)
    return batch


def _upload(upload: str | tuple[str, str]) -> tuple[Path, str]:
    """An upload's path on the server, and the name the person gave it (the browser's word:
    a name, never a path, and bounded), else the one it has on the server."""
    path, given = (upload, "") if isinstance(upload, str) else upload
    name = shorter(Path(str(given).replace("\\", "/")).name, UPLOAD_NAME_CHARS)
    return Path(path), name or Path(path).name


def _read(batch: Batch, path: Path, name: str, image_dir: Path | None, language: str) -> None:
    where = str(path)
    try:
        # An upload's images are not looked for: it must not learn which server files exist.
        scenarios = load_file(path, find_images=image_dir is not None)
    except InvalidFile as exc:
        # The runner names the file by its path: here it goes by the name the person knows,
        # and the folder it is in on the server is not said.
        problems = [
            p.replace(where, name).replace(str(path.parent), ".") for p in exc.error.problems
        ]
        batch.invalid.append(FileError(file=name, problems=problems))
        return
    if image_dir is None and any(turn.images for s in scenarios for turn in s.turns):
        # An uploaded file arrives alone: the images it names are not on the server, and a
        # path it names must not reach the server's own files.
        problem = f"{name}: {t('scenario_upload_images', language)}"
        batch.invalid.append(FileError(file=name, problems=[problem]))
        return
    turns = sum(len(s.turns) for s in scenarios)
    held = sum(len(s.turns) for s in batch.scenarios)
    if held + turns > MAX_BATCH_TURNS:
        problem = t("scenario_too_many_turns", language).format(turns=turns, limit=MAX_BATCH_TURNS)
        batch.invalid.append(FileError(file=name, problems=[f"{name}: {problem}"]))
        return
    batch.scenarios.extend(scenarios)
    batch.names[where] = name
    if image_dir is not None:
        batch.image_dirs[where] = image_dir


def invalid_said(error: FileError) -> Said:
    """One sentence naming the file and its first problem (and how many more there are); each
    problem starts with the file's name, and the line where the runner could tell it."""
    first = error.problems[0] if error.problems else error.file
    more = len(error.problems) - 1
    key = "scenario_more_problem" if more == 1 else "scenario_more_problems"
    return line(
        sentence("scenario_invalid", problem=first), sentence(key, n=more) if more else None
    )


def invalid_sentence(error: FileError, language: str) -> str:
    """`invalid_said` as the message line shows it: Markdown, where a parser's "<stream end>"
    or a file named like a link is shown as written."""
    return invalid_said(error).markdown(language)


class TurnRefused(BaseException):
    """A turn of a scenario may not start (a turn limit): the run stops. Not an `Exception`,
    so that the runner, which records any exception of the agent as that scenario's crash and
    goes on, lets it through to `run_batch`."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


class CountedAgent:
    """An agent whose every turn is first let in by `admit()`, which counts it (the limits
    of `ui.access`) or returns the sentence that refuses it."""

    def __init__(self, agent: Any, admit: Callable[[], str | None]) -> None:
        self.agent = agent
        self.admit = admit

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    async def run(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        problem = self.admit()
        if problem:
            raise TurnRefused(problem)
        async with contextlib.aclosing(self.agent.run(*args, **kwargs)) as events:
            async for event in events:
                yield event


async def run_batch(
    batch: Batch,
    make_model: Callable[[], Any],
    make_agent: Callable[[Scenario, Any], Any],
    step: Callable[[int, Scenario], Awaitable[None] | None] | None = None,
    admit: Callable[[], str | None] | None = None,
    give_up: Callable[[RunResult], bool] | None = None,
) -> Batch:
    """Run the batch's scenarios one after another, each with a fresh model; `step(i,
    scenario)` is told before each (the page's progress bar). With `admit`, each turn is
    counted before it runs; the first it refuses stops the run, its sentence in
    `batch.refused`, and the scenario under way is dropped, as Stop drops it. With
    `give_up`, a result it says True of is the last: the scenarios after it do not run."""
    if admit is not None:
        make_agent = _counted(make_agent, admit)
    for index, scenario in enumerate(batch.scenarios):
        if step is not None:
            waiting = step(index, scenario)
            if waiting is not None:
                await waiting
        try:
            result = await run_scenario(scenario, make_model(), make_agent=make_agent)
        except TurnRefused as refused:
            batch.refused = refused.sentence
            break
        batch.results.append(result)
        if give_up is not None and give_up(result):
            break
    return batch


def _counted(
    make_agent: Callable[[Scenario, Any], Any], admit: Callable[[], str | None]
) -> Callable[[Scenario, Any], CountedAgent]:
    def make(scenario: Scenario, model: Any) -> CountedAgent:
        return CountedAgent(make_agent(scenario, model), admit)

    return make


def agent_prefs(prefs: Any, scenario: Scenario) -> Any:
    """The session's settings, with the language and prompt style the scenario asks for."""
    return replace(
        prefs, language=scenario.language or prefs.language, style=scenario.style or prefs.style
    )


TABLE_COLUMNS = (
    "col_scenario",
    "col_result",
    "col_failure",
    "col_time",
    "col_calls",
    "col_tokens",
    "col_file",
)


def table_rows(
    results: Sequence[RunResult], language: str, names: Mapping[str, str] | None = None
) -> list[list[Any]]:
    """One row per scenario run: name, pass or fail, the first failed expectation with what
    was seen, seconds, model calls, tokens ("≈1,234" / "约 1,234" where estimated), and the
    file it came from (by its name in `names`, the batch's)."""
    passed, failed = t("scenario_pass", language), t("scenario_fail", language)
    names = names or {}
    return [
        [
            result.test_name,
            passed if result.passed else failed,
            result.failures[0] if result.failures else "",
            round(result.duration, 2),
            result.model_calls,
            token_cell(result.tokens, language),
            names.get(result.file, result.file),
        ]
        for result in results
    ]


def token_cell(tokens: Tokens, language: str) -> str:
    return about(f"{tokens.total:,}", tokens.estimated, language) if tokens.total else ""


def about(figure: str, estimated: bool, language: str) -> str:
    """`figure`, marked as an estimate ("≈1,234", "约 1,234") when it is one."""
    return t("about_figure", language).format(n=figure) if estimated else figure


def table_value(
    results: Sequence[RunResult], language: str, names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    return {
        "headers": [t(key, language) for key in TABLE_COLUMNS],
        "data": table_rows(results, language, names),
    }


def score_text(scores: Scores, language: str, results: Sequence[RunResult] = ()) -> str:
    """The scores as Markdown: pass rate, decision macro-F1, tool, argument and answer
    accuracy (each over the turns that state it); then the `results`' tokens, and their cost
    when priced."""
    f1 = "—" if scores.decision_f1 is None else f"{scores.decision_f1:.3f}"
    rows = [
        ("score_pass_rate", _ratio(scores.runs)),
        ("score_decision_f1", f1),
        ("score_tools", _ratio(scores.tool_accuracy)),
        ("score_args", _ratio(scores.args_accuracy)),
        ("score_answer", _ratio(scores.answer_accuracy)),
    ]
    tokens = Tokens.summed(r.tokens for r in results)
    if tokens.total:
        rows.append(("col_tokens", token_cell(tokens, language)))
    if tokens.cost is not None:
        rows.append(("col_cost", about(cost_figure(tokens.cost), tokens.estimated, language)))
    return " · ".join(f"**{t(key, language)}** {value}" for key, value in rows)


def _ratio(ratio: Any) -> str:
    return "—" if not ratio.total else ratio.text()


def write_downloads(batch: Batch, folder: Path) -> tuple[str, str]:
    """The results as JSON and as JUnit XML, the files the command line writes."""
    folder.mkdir(parents=True, exist_ok=True)
    results = batch.shown_results()
    json_path, junit_path = folder / "scenario-results.json", folder / "scenario-results.xml"
    write_json(json_path, results_json(results, batch.invalid, score(results)))
    write_junit(junit_path, results, batch.invalid)
    return str(json_path), str(junit_path)
