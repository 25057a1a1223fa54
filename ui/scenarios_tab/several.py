"""A Scenarios run with several rows of settings: the batch with each row in turn, under the
same checks, limits and approval rules as a run with one, then the rows side by side.

A row whose settings the server refuses does not run, and says why; a row whose model cannot
be reached (it fails to answer, answers with a server error, or times out) stops at the first
scenario that shows it, and its other scenarios count as failed without being sent; the other
rows run either way. A turn limit stops the whole run, as it stops a run with one row. Every
row keeps its place in the results, and what did not run is marked so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from agent.scenarios.run import not_run

from ..labels import t
from .comparison import Comparison, Lane, unreachable, write_compared
from .contenders import Contender
from .runs import Batch, run_batch
from .said import Said, heard, line, sentence
from .shown import compared_outputs


async def run_several(
    tab: Any,
    batch: Batch,
    contenders: Sequence[Contender],
    state: Any,
    progress: Any,
    said: list[Said],
) -> tuple:
    """Run `batch` with each of `contenders` in turn, for `ui.scenarios_tab.handlers`'s run
    (`tab`); the same outputs. Stop keeps every finished scenario of every row."""
    # The language the sentences heard from elsewhere are made in; what the run shows is
    # drawn in the page's language when it is shown (`tab.language`), which may change.
    language = (state.prefs if state else tab.page.prefs0).language
    comparison = Comparison.of(batch, contenders)
    total = len(batch.scenarios) * len(comparison.lanes)
    progress((0, total), desc=t("scenario_starting", tab.language(state)))
    running = _run_lanes(tab, comparison, state, progress, language)
    stopped = await tab._until_stopped(running, state)
    refused = next((lane.batch.refused for lane in comparison.lanes if lane.batch.refused), None)
    done = comparison.done()
    if refused:
        limit = heard(refused, language)
        comparison.stopped = sentence("compare_limit", done=done, total=total, limit=limit)
    elif stopped:
        comparison.stopped = sentence("compare_stopped", done=done, total=total)
    notes = [lane.note for lane in comparison.lanes if lane.note]
    tab.touch(state)
    folder = tab.folder(state)
    shown = tab.language(state)
    json_file, junit_files = await asyncio.to_thread(write_compared, comparison, folder, shown)
    lines = [*([comparison.stopped] if comparison.stopped else []), *notes, *said]
    if comparison.ran():
        lines.append(sentence("compare_click_cell"))
    return compared_outputs(comparison, lines, shown, json_file, junit_files)


async def _run_lanes(
    tab: Any, comparison: Comparison, state: Any, progress: Any, language: str
) -> None:
    per_row = len(comparison.lanes[0].batch.scenarios) if comparison.lanes else 0
    total = per_row * len(comparison.lanes)
    for number, lane in enumerate(comparison.lanes):
        if lane.note is not None:
            continue  # refused before anything ran
        problem = await tab._model_problem(state, lane.contender.prefs)
        if problem:
            # The problem may name the model again: as shown, not at its full length.
            said = heard(problem, language).replaced(lane.name, lane.shown)
            lane.note = sentence("compare_row_refused", name=lane.shown, problem=said)
            continue

        def step(index: int, scenario: Any, start: int = number * per_row, name=lane.shown) -> None:
            now = tab.language(state)
            desc = t("compare_running", now).format(model=name, name=scenario.name)
            progress((start + index, total), desc=desc, unit=t("scenario_unit", now))

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
    stop = sentence(
        "compare_unreachable",
        name=lane.shown,
        scenario=results[-1].scenario,
        error=heard(error, language),
    )
    key = "compare_not_sent_one" if len(left) == 1 else "compare_not_sent"
    lane.note = line(stop, sentence(key, n=len(left)) if left else None)
    results.extend(not_run(scenario, error) for scenario in left)
