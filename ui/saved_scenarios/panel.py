"""Save as scenario, on the page: the chat's button makes the conversation a scenario
(`agent.scenarios.record`) and shows it in a YAML editor, with Download (a zip of `case.yaml`
and its `images/`) and Add to the Scenarios run list. What it keeps is
`ui.saved_scenarios.store`; the Scenarios tab runs the list (`ui.scenarios_tab`).

Only the panel and the run list change here: the conversation, the input and the settings
stay as they are, whatever the edited YAML holds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from types import SimpleNamespace
from typing import Any

import gradio as gr

from agent.offload import Overdue, run_quick

from ..conversations.export import turn_status
from ..labels import t
from ..listeners import Quiet
from ..typed_text import as_text
from .store import SavedScenarios, ScenarioProblem

log = logging.getLogger(__name__)

# Checking and packing an edit is bounded (the loader bounds the file); this bounds the wait.
CHECK_DEADLINE = 20.0


def build(i18n: Any, words: Any) -> SimpleNamespace:
    """The panel's components, hidden until Save as scenario is pressed, and the line that
    says what went wrong (outside it: it also says there is nothing to save)."""
    label: Any = i18n("save_download")  # DownloadButton's label is declared as str
    with gr.Group(visible=False, elem_id="save-scenario-panel") as group:
        intro = gr.Markdown(i18n("save_intro"))
        code = gr.Code(
            "",
            language="yaml",
            interactive=True,
            label=i18n("save_yaml"),
            elem_id="save-scenario-yaml",
            max_lines=24,
        )
        with gr.Row():
            download = gr.DownloadButton(
                label, interactive=False, size="sm", elem_id="save-scenario-download"
            )
            add = gr.Button(
                i18n("save_add"), variant="primary", size="sm", elem_id="save-scenario-add"
            )
            close = gr.Button(i18n("save_close"), size="sm", elem_id="save-scenario-close")
    message = gr.Markdown(elem_id="save-scenario-message")
    words.add(intro, value="save_intro")
    words.add(code, label="save_yaml")
    words.add(download, label="save_download")  # a download button's value is its file
    words.add(add, value="save_add")
    words.add(close, value="save_close")
    return SimpleNamespace(
        group=group, code=code, download=download, add=add, close=close, message=message
    )


class SavePanel:
    """The panel's handlers, for one page; `saved` is the session's `SavedScenarios` (made on
    the first save), `state` its `PageState`."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def language(self, state: Any) -> str:
        if state is not None:
            self.page.use(state, tell=False)
            return state.prefs.language
        return self.page.prefs0.language

    async def open(self, state: Any, saved: SavedScenarios | None) -> tuple:
        """The conversation's finished turns as a new draft, shown to edit and ready to
        download. Outputs: the panel, the editor, Download, the message, `saved`."""
        language = self.language(state)
        # The turns as they are now (a running turn adds events as it goes).
        records = [
            dataclasses.replace(r, refs=list(r.refs), events=list(r.events))
            for r in (state.turns if state is not None else [])
            if turn_status(r) != "running"
        ]
        saved = saved or SavedScenarios()
        try:
            text = await asyncio.to_thread(saved.draft, records)
            packed = await run_quick(saved.pack, text, deadline=CHECK_DEADLINE, what="packing")
        except ScenarioProblem as problem:
            return gr.skip(), gr.skip(), gr.skip(), problem.sentence(language), saved
        except (OSError, Overdue):
            log.warning("a scenario could not be saved", exc_info=True)
            return gr.skip(), gr.skip(), gr.skip(), t("save_failed", language), saved
        shown = gr.DownloadButton(value=str(packed), interactive=True)
        return gr.update(visible=True), text, shown, "", saved

    async def edited(self, text: str, state: Any, saved: SavedScenarios | None) -> tuple:
        """The edit checked: Download gets the edited scenario, or says nothing until the
        problem, named in one sentence, is mended. Outputs: Download, the message."""
        language = self.language(state)
        if saved is None:
            return gr.skip(), t("save_gone", language)
        try:
            packed = await run_quick(saved.pack, text, deadline=CHECK_DEADLINE, what="checking")
        except ScenarioProblem as problem:
            return gr.DownloadButton(value=None, interactive=False), problem.sentence(language)
        except Overdue:
            return gr.DownloadButton(value=None, interactive=False), t("save_slow", language)
        except OSError:
            log.warning("a scenario could not be packed", exc_info=True)
            return gr.DownloadButton(value=None, interactive=False), t("save_failed", language)
        return gr.DownloadButton(value=str(packed), interactive=True), ""

    async def add(
        self, text: str, state: Any, saved: SavedScenarios | None, chosen: list[str] | None
    ) -> tuple:
        """The edited scenario in the Scenarios tab's run list, chosen to run. Outputs: the
        message, the tab's list of saved scenarios."""
        language = self.language(state)
        if saved is None:
            return t("save_gone", language), gr.skip()
        try:
            entry, how = await run_quick(saved.add, text, deadline=CHECK_DEADLINE, what="checking")
        except ScenarioProblem as problem:
            return problem.sentence(language), gr.skip()
        except Overdue:
            return t("save_slow", language), gr.skip()
        except OSError:
            log.warning("a scenario could not be added", exc_info=True)
            return t("save_failed", language), gr.skip()
        listed = saved.listed()
        keys = {e.key for e in listed}
        value = [key for key in chosen or [] if key in keys] + [entry.key]
        key = {"added": "save_added", "replaced": "save_replaced"}.get(how, "save_already")
        said = t(key, language).format(name=as_text(entry.name))
        return said, saved_list_update(listed, list(dict.fromkeys(value)))

    @staticmethod
    def close() -> tuple:
        return gr.update(visible=False), ""


def saved_list_update(entries: list[Any], value: list[str]) -> Any:
    """The Scenarios tab's list of saved scenarios: each by its name, shown once there is one."""
    choices = [(entry.name, entry.key) for entry in entries]
    return gr.CheckboxGroup(choices=choices, value=value, visible=bool(entries))


async def remove_unticked(saved: SavedScenarios | None, ticked: list[str] | None) -> tuple:
    """The scenarios not ticked out of the run list. Outputs: the list, its Remove button."""
    if saved is None:
        return gr.skip(), gr.Button(visible=False)
    keys = set(ticked or [])
    listed = await asyncio.to_thread(saved.listed)
    await asyncio.to_thread(saved.remove, [entry.key for entry in listed if entry.key not in keys])
    left = await asyncio.to_thread(saved.listed)
    value = [entry.key for entry in left if entry.key in keys]
    return saved_list_update(left, value), gr.Button(visible=bool(left))


async def remove_shown(saved: SavedScenarios | None) -> Any:
    """The Remove button shows while the list has a scenario."""
    listed = await asyncio.to_thread(saved.listed) if saved is not None else []
    return gr.Button(visible=bool(listed))


def wire(
    button: Any, panel: SimpleNamespace, page: Any, state: Any, saved: Any, saved_list: Any
) -> None:
    """Save as scenario, the editor, Download's file, Add and Close. `saved` is the session's
    `gr.State` of `SavedScenarios`, `saved_list` the Scenarios tab's list of them."""
    handlers = SavePanel(page)
    quiet: Quiet = {"api_visibility": "private", "show_progress": "hidden"}
    button.click(
        handlers.open,
        [state, saved],
        [panel.group, panel.code, panel.download, panel.message, saved],
        **quiet,
    )
    # Each edit is checked as it is typed, the latest last: Download always holds what the
    # editor shows once it has been checked.
    panel.code.input(
        handlers.edited,
        [panel.code, state, saved],
        [panel.download, panel.message],
        trigger_mode="always_last",
        **quiet,
    )
    panel.add.click(
        handlers.add,
        [panel.code, state, saved, saved_list],
        [panel.message, saved_list],
        **quiet,
    )
    panel.close.click(handlers.close, None, [panel.group, panel.message], queue=False, **quiet)
