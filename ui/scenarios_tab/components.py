"""The Scenarios tab's components, laid out and wired to its handlers
(`ui.scenarios_tab.handlers`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import gradio as gr

from ..layout import ScenarioFiles
from ..listeners import Private
from ..page.words import PageWords
from ..saved_scenarios.panel import remove_shown, remove_unticked
from .handlers import ScenarioTab
from .rows import add_rows
from .runs import shipped_suites
from .shown import COLUMN_WIDTHS, SCORE_WIDTHS


def add_scenarios_tab(page: Any, state: Any, i18n: Any, words: Any = None) -> SimpleNamespace:
    """The tab's contents, inside the `gr.Tab` the page opened for it; its parts with words
    are added to `words` (`ui.page.words.PageWords`), which follows the language. Returns the
    run list of scenarios saved from the chat (`saved`, a `gr.State` of
    `ui.saved_scenarios.store.SavedScenarios`) and the list that shows it (`saved_list`),
    for the chat's Save as scenario to add to; and `follow_language`, which wires the
    Language setting to draw the tab's results again in the language chosen."""
    tab = ScenarioTab(page)
    quiet: Private = {"api_visibility": "private"}
    batch = gr.State(None)
    files = gr.State(None, delete_callback=lambda f: f.close() if f else None)
    saved = gr.State(None, delete_callback=lambda s: s.close() if s else None)
    intro = gr.Markdown(i18n("scenarios_intro"), elem_id="scenarios-intro")
    with gr.Row(equal_height=False):
        suites = gr.Dropdown(
            [p.name for p in shipped_suites()],
            value=None,
            multiselect=True,
            label=i18n("scenario_suites"),
            elem_id="scenario-suites",
        )
        uploads = ScenarioFiles(
            label=i18n("scenario_upload"),
            file_count="multiple",
            file_types=[".yaml", ".yml", ".json"],
            elem_id="scenario-files",
            height=120,
        )
    # Scenarios saved from the chat, with their images: an upload cannot bring images along.
    saved_list = gr.CheckboxGroup(
        [], value=[], label=i18n("scenario_saved"), elem_id="scenario-saved", visible=False
    )
    remove_saved = gr.Button(
        i18n("scenario_saved_remove"), size="sm", visible=False, elem_id="scenario-saved-remove"
    )
    # Rows of settings to compare; with the first alone, a run is the Settings' run.
    rows = add_rows(i18n, words if words is not None else PageWords(), page.access.allowed)
    with gr.Row():
        run_btn = gr.Button(i18n("scenario_run"), variant="primary", elem_id="scenario-run")
        stop_btn = gr.Button(i18n("stop"), variant="stop", elem_id="scenario-stop")
    message = gr.Markdown(elem_id="scenario-message", line_breaks=True)
    scores = gr.Markdown(elem_id="scenario-scores")
    # After a run with several rows: a row of scores per model (the table below then says
    # which model passed which scenario).
    compared = gr.Dataframe(
        interactive=False,
        wrap=True,
        visible=False,
        elem_id="scenario-compared",
        show_label=False,
        column_widths=list(SCORE_WIDTHS),
    )
    table = gr.Dataframe(
        interactive=False,
        wrap=True,
        visible=False,
        elem_id="scenario-results",
        show_label=False,
        column_widths=list(COLUMN_WIDTHS),
    )
    with gr.Row():
        json_btn = gr.DownloadButton(
            i18n("scenario_download_json"), interactive=False, size="sm", elem_id="scenario-json"
        )
        junit_btn = gr.DownloadButton(
            i18n("scenario_download_junit"), interactive=False, size="sm", elem_id="scenario-junit"
        )
    junit_files = gr.File(
        label=i18n("compare_junit_files"),
        file_count="multiple",
        interactive=False,
        visible=False,
        elem_id="scenario-junit-files",
    )
    with gr.Accordion(i18n("viewer_open"), open=True, elem_id="conversation-open") as opener:
        viewer_intro = gr.Markdown(i18n("viewer_intro"))
        conversation_file = gr.File(
            label=i18n("viewer_file_label"),
            file_types=[".zip", ".json"],
            elem_id="conversation-file",
            height=120,
        )
        viewer_message = gr.Markdown(elem_id="viewer-message")
    title = gr.Markdown(elem_id="viewer-title")
    with gr.Row(equal_height=False):
        chat = gr.Chatbot(
            label=i18n("viewer_chat"),
            elem_id="viewer-chat",
            height=480,
            layout="bubble",
            buttons=["copy", "copy_all"],
            feedback_options=None,
            placeholder=i18n("viewer_placeholder"),
        )
        trace = gr.Chatbot(
            label=i18n("trace_label"),
            elem_id="viewer-trace",
            height=480,
            feedback_options=None,
            buttons=["copy_all"],
            group_consecutive_messages=False,
        )

    # The message's sentences, kept to be said again when the language changes.
    said = gr.State(None)
    # What the last run said and the scenario the viewer showed of it go as a run starts.
    run_btn.click(
        tab.starting,
        [files],
        [message, said, title, chat, trace, files],
        queue=False,
        show_progress="hidden",
        **quiet,
    ).then(
        tab.run,
        [suites, uploads, state, saved_list, saved, rows.shown, *rows.cells],
        [message, scores, table, batch, json_btn, junit_btn, compared, junit_files, said],
        show_progress_on=[message],
        **quiet,
    )
    # A scenario saved from the chat leaves the run list once unticked and removed.
    remove_saved.click(remove_unticked, [saved, saved_list], [saved_list, remove_saved], **quiet)
    saved_list.change(remove_shown, [saved], [remove_saved], show_progress="hidden", **quiet)
    # Stop ends the run through its state, so the scenarios that finished keep their results.
    stop_btn.click(tab.stopped, [state], [message], queue=False, **quiet)
    shown = [title, chat, trace, files]
    table.select(tab.show_row, [batch, files, state], shown, show_progress="hidden", **quiet)
    conversation_file.upload(
        tab.open_file,
        [conversation_file, files, state],
        [viewer_message, title, chat, trace, files, conversation_file],
        **quiet,
    )
    if words is not None:
        for component, properties in (
            (intro, {"value": "scenarios_intro"}),
            (suites, {"label": "scenario_suites"}),
            (uploads, {"label": "scenario_upload"}),
            (saved_list, {"label": "scenario_saved"}),
            (remove_saved, {"value": "scenario_saved_remove"}),
            (run_btn, {"value": "scenario_run"}),
            (stop_btn, {"value": "stop"}),
            (json_btn, {"value": "scenario_download_json"}),
            (junit_btn, {"value": "scenario_download_junit"}),
            (junit_files, {"label": "compare_junit_files"}),
            (opener, {"label": "viewer_open"}),
            (viewer_intro, {"value": "viewer_intro"}),
            (conversation_file, {"label": "viewer_file_label"}),
            (chat, {"label": "viewer_chat", "placeholder": "viewer_placeholder"}),
            (trace, {"label": "trace_label"}),
        ):
            words.add(component, **properties)

    def follow_language(language: Any) -> None:
        """On a change of `language` (the Settings' input), the last run's message and
        results, and what the viewer shows, are drawn again in it."""
        language.change(
            tab.relabel,
            [language, said, batch],
            [message, scores, table, compared],
            queue=False,
            show_progress="hidden",
            **quiet,
        )
        # What the viewer shows, from what it keeps: no file is read again.
        language.change(
            tab.relabel_viewer,
            [language, files],
            [title, chat, trace],
            queue=False,
            show_progress="hidden",
            **quiet,
        )

    return SimpleNamespace(saved=saved, saved_list=saved_list, follow_language=follow_language)
