"""The Scenarios tab's handlers (`ScenarioTab`): run scenario files against the page's current
settings, show a run's conversation, and open a downloaded conversation file to read it,
without a model.

What runs and what the table shows is `ui.scenarios_tab.runs`; reading a conversation file is
`agent.conversation_file`, and showing it `ui.conversations.view`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import gradio as gr

from agent.config import ModelNotConfigured
from agent.conversation_file import UnreadableFile, load_conversation
from agent.offload import Overdue, run_quick
from tools.ocr.pool import READER

from ..conversations.view import scenario_turns
from ..labels import t
from ..page.state import traces_root
from .comparison import Comparison, clicked, not_reached, not_sent
from .contenders import contenders
from .rows import read_rows
from .runs import Batch, agent_prefs, collect, invalid_said, run_batch, write_downloads
from .said import Said, heard, line, plain, sentence
from .several import run_several
from .shown import relabelled, said_only, single_outputs
from .viewer import Viewed, ViewerFiles, emptied, redrawn

log = logging.getLogger(__name__)

READ_DEADLINE = 20.0


class ScenarioTab:
    """The tab's handlers, for one page; each takes the session's `PageState`."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def touch(self, state: Any) -> None:
        """The conversation is in use (for the idle sweep), without telling anything."""
        if state is not None:
            self.page.use(state, tell=False)

    def language(self, state: Any) -> str:
        return (state.prefs if state else self.page.prefs0).language

    async def run(
        self,
        suites: list[str] | None,
        uploads: list[str] | None,
        state: Any,
        progress: gr.Progress = gr.Progress(),  # noqa: B008 (how Gradio asks for a progress bar)
        saved_keys: list[str] | None = None,
        saved: Any = None,
        shown: list[bool] | None = None,
        *cells: Any,
    ) -> tuple:
        """Run the chosen files with each row of settings (`shown` and `cells`, the rows'
        inputs: `ui.scenarios_tab.rows`); one row, or none, is one run with the Settings.
        Outputs: the message, the scores, the results table, the batch (or comparison), the
        JSON download, the JUnit download, the comparison table, the JUnit files per model,
        and the message's sentences (for a change of language to say again)."""
        # The settings as they are now: a change made while it runs is for the next run. Its
        # words are not: what it shows is drawn in the page's language when it is shown, and
        # `language` is only the one the sentences it hears from elsewhere are made in.
        prefs = replace(state.prefs if state else self.page.prefs0)
        language = prefs.language
        self.touch(state)
        lanes, said = contenders(read_rows(shown, cells), prefs)
        if all(lane.refused is not None for lane in lanes):
            return said_only([*said, *(lane.refused for lane in lanes if lane.refused)], language)
        # Off the event loop: a file is bounded before it is parsed, and a deadline bounds
        # the whole of reading them, so one upload cannot hold everyone's page.
        # Scenarios saved from the chat (`saved`, ui.saved_scenarios) that are ticked to run.
        chosen = await asyncio.to_thread(saved.chosen, saved_keys) if saved is not None else []
        try:
            batch = await run_quick(
                collect,
                suites or [],
                [(_path(u), _given_name(u)) for u in uploads or []],
                language,
                [(entry.path, entry.name) for entry in chosen],
                deadline=READ_DEADLINE,
                what="reading scenario files",
            )
        except Overdue:
            return said_only([sentence("scenario_read_slow")], self.language(state))
        said += [invalid_said(error) for error in batch.invalid]
        if not batch.scenarios and not batch.invalid:
            return said_only([sentence("scenario_nothing")], self.language(state))
        if batch.scenarios and len(lanes) > 1:
            return await run_several(self, batch, lanes, state, progress, said)
        prefs = lanes[0].prefs
        if batch.scenarios:
            problem = await self._model_problem(state, prefs)
            if problem:
                return said_only([heard(problem, language), *said], self.language(state))
            total = len(batch.scenarios)

            def step(index: int, scenario: Any) -> None:
                now = self.language(state)  # the page's language as each step is shown
                desc = t("scenario_running", now).format(name=scenario.name)
                progress((index, total), desc=desc, unit=t("scenario_unit", now))

            progress((0, total), desc=t("scenario_starting", self.language(state)))
            running = run_batch(batch, step=step, **self.runner(state, prefs))
            stopped = await self._until_stopped(running, state)
            if stopped or batch.refused:
                done = len(batch.results)
                limit = heard(batch.refused, language) if batch.refused else None
                said.insert(0, line(sentence("scenario_stopped", done=done, total=total), limit))
        self.touch(state)
        # Writing the results is bounded by the run's turns, but not instant: off the loop.
        json_file, junit_file = await asyncio.to_thread(write_downloads, batch, self.folder(state))
        if batch.results:
            said.append(sentence("scenario_click_row"))
        # Drawn in the page's language as the run ends, which may have changed while it ran.
        return single_outputs(batch, said, self.language(state), json_file, junit_file)

    @staticmethod
    def starting(files: ViewerFiles | None) -> tuple:
        """Run pressed: the last run's sentences and the scenario the viewer showed of it go,
        so that none of it is taken for the run under way. Outputs: the message, its
        sentences, the viewer's title, chat and trace, and its files."""
        return ("", None, *emptied(files))

    @staticmethod
    def relabel(language: str, said: list[Said] | None, shown: Any) -> tuple:
        """A change of language: the last run's message and results said again in it.
        Outputs: the message, the scores, the results table, the comparison table."""
        return relabelled(language, said, shown)

    def runner(self, state: Any, prefs: Any) -> dict[str, Any]:
        """How a run with `prefs` makes its model and its agents, and counts its turns: the
        arguments of `run_batch` by name."""
        admit = None
        if prefs.source != "offline":
            # The service's turn limits count each turn a run sends to a hosted model,
            # before it runs, with the page's own turns.
            access = self.page.access
            admit = functools.partial(access.admit, state, prefs=prefs, client=access.client())
        READER.set(self.page.access.client())  # the OCR workers are shared fairly
        return {
            "make_model": lambda: self.page.make_model(prefs),
            # Nobody is there to approve a call: the operator's policy decides (ask: never).
            "make_agent": lambda scenario, model: self.page.agent_for(
                agent_prefs(prefs, scenario), model, scenario.approval, attended=False
            ),
            "admit": admit,
        }

    @staticmethod
    def folder(state: Any) -> Path:
        """Where a run's downloads are written: the session's trace folder."""
        return state.folder if state is not None else Path(tempfile.mkdtemp(dir=traces_root()))

    async def _model_problem(self, state: Any, prefs: Any) -> str | None:
        """Why the session's settings cannot run scenarios now, or None: the same checks a
        chat turn makes."""
        access = self.page.access
        problem = await asyncio.to_thread(access.model_problem, prefs)
        if not problem and prefs.source != "offline":
            problem = access.turn_problem(state)
        if problem:
            return problem
        try:
            self.page.make_model(prefs)
        except ModelNotConfigured as exc:
            return str(exc)
        return None

    @staticmethod
    async def _until_stopped(running: Any, state: Any) -> bool:
        """Run `running` (the batch) until it ends or Stop is pressed; True when stopped. The
        scenario under way is cancelled, and those that finished keep their results."""
        stop = asyncio.Event()
        if state is not None:
            state.scenario_stop = stop
        task = asyncio.ensure_future(running)
        pressed = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({task, pressed}, return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when the run's own event goes (the page closed)
            pressed.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if state is not None and state.scenario_stop is stop:
                state.scenario_stop = None
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()
        return stop.is_set()

    async def stopped(self, state: Any) -> Any:
        """Stop: the run ends, and says so itself. Async, so that it runs on the event loop
        the run waits on."""
        stop = state.scenario_stop if state is not None else None
        if stop is not None:
            stop.set()
        return gr.skip()  # with no run, what the message line says stays

    def show_row(
        self,
        batch: Batch | Comparison | None,
        files: ViewerFiles | None,
        state: Any,
        evt: gr.SelectData,
    ) -> tuple:
        """The clicked row's conversation and trace, as the chat tab shows a conversation;
        after a run with several rows, the run of the clicked cell's model, or why that model
        did not run that scenario."""
        language = self.language(state)
        files = files or ViewerFiles()
        if isinstance(batch, Comparison):
            index = evt.index if isinstance(evt.index, list | tuple) else [evt.index, 0]
            row = getattr(evt, "row_value", None)
            found = clicked(batch, row, index[-1])
            if found is None or row is None:
                return gr.skip(), gr.skip(), gr.skip(), files
            lane, result = found
            name = result.test_name if result is not None else str(row[0])
            title = sentence("viewer_scenario_model", name=name, model=lane.shown)
            if result is None or not_sent(result):
                # Nothing was sent, so there is no conversation to show: only why.
                if result is None:
                    note = sentence("viewer_not_run", reason=not_reached(batch, lane))
                else:
                    why = result.turns[0].text if result.turns else ""
                    note = sentence("viewer_not_sent", reason=plain(why))
                viewed = Viewed(title, note)
                files.shown(None, viewed)
                return (*viewed.drawn(language), files)
            batch = lane.batch
        else:
            index = _clicked_run(batch, evt)
            if batch is None or index is None:
                return gr.skip(), gr.skip(), gr.skip(), files
            result = batch.results[index]
            title = sentence("viewer_scenario", name=result.test_name)
        folder = files.fresh()
        turns = scenario_turns(result, batch.image_dirs.get(result.file), folder)
        viewed = Viewed(title, None, tuple(turns))
        files.shown(folder, viewed)
        return (*viewed.drawn(language), files)

    @staticmethod
    def relabel_viewer(language: str, files: ViewerFiles | None) -> tuple:
        """A change of language: what the viewer shows drawn again in it. Outputs: the
        title, the chat, the trace."""
        return redrawn(language, files)

    def open_file(self, file: Any, files: ViewerFiles | None, state: Any) -> tuple:
        """A downloaded conversation, read-only. A file that is not one: a sentence, and what
        the viewer showed stays. The file input empties, ready for the next file."""
        language = self.language(state)
        if not file:
            return "", gr.skip(), gr.skip(), gr.skip(), files, gr.skip()
        files = files or ViewerFiles()
        folder = files.fresh()
        try:
            conversation = load_conversation(_path(file), folder)
        except UnreadableFile as exc:
            log.info("a conversation file could not be opened: %s", exc)
            shutil.rmtree(folder, ignore_errors=True)
            # Named, so that it is not taken for the conversation still shown below it.
            why = f"**{Path(_path(file)).name}**: " + t(f"viewer_{exc.reason}", language)
            return why, gr.skip(), gr.skip(), gr.skip(), files, None
        title = sentence("viewer_file", name=Path(_path(file)).name)
        viewed = Viewed(title, None, tuple(conversation.turns), of_run=False)
        files.shown(folder, viewed)
        note = ""
        if conversation.missing_images:
            missing = ", ".join(conversation.missing_images)
            note = t("viewer_missing_images", language).format(ids=missing)
        return (note, *viewed.drawn(language), files, None)


def _clicked_run(batch: Batch | None, evt: Any) -> int | None:
    """The run of the clicked row. The browser may have sorted the table, so the row's own
    scenario name decides; its position only tells apart runs of the same name."""
    if batch is None:
        return None
    index = evt.index[0] if isinstance(evt.index, list | tuple) else evt.index
    row = getattr(evt, "row_value", None)
    names = [result.test_name for result in batch.results]
    if isinstance(row, list | tuple) and row and row[0] in names:
        same = [i for i, name in enumerate(names) if name == row[0]]
        # Scenarios of one name in different files: the row's file (its last cell) tells.
        files = [batch.names.get(r.file, r.file) for r in batch.results]
        same = [i for i in same if files[i] == row[-1]] or same
        return index if index in same else same[0]
    return index if isinstance(index, int) and 0 <= index < len(names) else None


def _given_name(file: Any) -> str:
    """The name the person's browser gave an upload (`components.ScenarioFiles` keeps it)."""
    if isinstance(file, dict):
        return str(file.get("orig_name") or "")
    return str(getattr(file, "orig_name", None) or "")


def _path(file: Any) -> str:
    """An upload's path on the server, however Gradio hands it over."""
    if isinstance(file, dict):
        return str(file.get("path") or file.get("name") or "")
    return str(getattr(file, "path", None) or getattr(file, "name", None) or file)
