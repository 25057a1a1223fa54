"""A Scenarios run with several rows of settings: the batch with each row in turn, under the
same checks, limits and approval rules as a run with one, then the rows side by side.

A row whose settings the server refuses does not run, and says why; a row whose model cannot
be reached (it fails to answer, answers with a server error, or times out) stops at the first
scenario that shows it, and its other scenarios count as failed without being sent; the other
rows run either way. A turn limit stops the whole run, as it stops a run with one row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import gradio as gr

from agent.scenarios.run import not_run

from ..labels import t
from .comparison import (
    Comparison,
    Lane,
    scores_value,
    unreachable,
    verdicts_value,
    write_compared,
)
from .contenders import Contender
from .runs import Batch, run_batch

LINE = "\n"


async def run_several(
    tab: Any,
    batch: Batch,
    contenders: Sequence[Contender],
    state: Any,
    progress: Any,
    sentences: list[str],
) -> tuple:
    """Run `batch` with each of `contenders` in turn, for `ui.scenarios_tab.handlers`'s run
    (`tab`); the same outputs. Stop keeps every finished scenario of every row."""
    language = (state.prefs if state else tab.page.prefs0).language
    comparison = Comparison.of(batch, contenders)
    total = len(batch.scenarios) * len(comparison.lanes)
    progress((0, total), desc=t("scenario_starting", language))
    running = _run_lanes(tab, comparison, state, progress, language)
    stopped = await tab._until_stopped(running, state)
    refused = next((lane.batch.refused for lane in comparison.lanes if lane.batch.refused), None)
    notes = [lane.note for lane in comparison.lanes if lane.note]
    if stopped or refused:
        done = comparison.done()
        said = t("scenario_stopped", language).format(done=done, total=total)
        notes.insert(0, f"{said} {refused}" if refused else said)
    tab.touch(state)
    folder = tab.folder(state)
    json_file, junit_files = await asyncio.to_thread(write_compared, comparison, folder)
    ran = bool(comparison.ran())
    if ran:
        sentences.append(t("compare_click_cell", language))
    return (
        LINE.join([*notes, *sentences]),
        "",
        gr.Dataframe(
            value=verdicts_value(comparison, language),
            visible=ran,
            column_widths=["220px", *["120px"] * len(comparison.ran()), "220px"],
        ),
        comparison,
        gr.DownloadButton(value=json_file, interactive=True),
        gr.DownloadButton(visible=False),
        gr.Dataframe(value=scores_value(comparison, language), visible=ran),
        gr.File(value=junit_files or None, visible=bool(junit_files)),
    )


async def _run_lanes(
    tab: Any, comparison: Comparison, state: Any, progress: Any, language: str
) -> None:
    per_row = len(comparison.lanes[0].batch.scenarios) if comparison.lanes else 0
    total = per_row * len(comparison.lanes)
    for number, lane in enumerate(comparison.lanes):
        problem = await tab._model_problem(state, lane.contender.prefs)
        if problem:
            lane.note = t("compare_row_refused", language).format(name=lane.name, problem=problem)
            continue

        def step(index: int, scenario: Any, start: int = number * per_row, name=lane.name) -> None:
            desc = t("compare_running", language).format(model=name, name=scenario.name)
            progress((start + index, total), desc=desc, unit=t("scenario_unit", language))

        hosted = lane.contender.prefs.source != "offline"
        runner = tab.runner(state, lane.contender.prefs)
        give_up = (lambda result: unreachable(result) is not None) if hosted else None
        await run_batch(lane.batch, step=step, give_up=give_up, **runner)
        if lane.batch.refused:
            return  # a turn limit: no row may go on
        _skip_the_rest(tab, lane, language)


def _skip_the_rest(tab: Any, lane: Lane, language: str) -> None:
    """When the row's model could not be reached, its scenarios not yet run count as failed,
    with the one sentence that says so."""
    results = lane.batch.results
    turn = unreachable(results[-1]) if results else None
    if turn is None:
        return
    left = lane.batch.scenarios[len(results) :]
    error = turn.text
    if tab.page.access.hides_failures(lane.contender.prefs):
        error = t("url_failed", language)  # a visitor's own URL on a public page: no details
    reason = t("compare_unreachable", language).format(
        name=lane.name, scenario=results[-1].scenario, error=error.rstrip(".。"), n=len(left)
    )
    lane.note = reason
    results.extend(not_run(scenario, error) for scenario in left)
