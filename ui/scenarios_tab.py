"""The Scenarios tab: the shipped scenario suites, run against the page's current settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

SUITES_DIR = Path(__file__).resolve().parent.parent / "scenarios"


def shipped_suites() -> list[Path]:
    """The scenario files that ship with the app, by name."""
    return sorted(p for p in SUITES_DIR.glob("*.y*ml") if p.is_file())


def add_scenarios_tab(page: Any, state: Any, i18n: Any, words: Any = None) -> None:
    """The tab's contents, inside the `gr.Tab` the page opened for it; its parts with words
    are added to `words` (`ui.page_words.PageWords`), which follows the language."""
    intro = gr.Markdown(i18n("scenarios_intro"), elem_id="scenarios-intro")
    suites = gr.Dropdown(
        [p.name for p in shipped_suites()],
        value=None,
        multiselect=True,
        label=i18n("suites"),
        elem_id="scenario-suites",
    )
    if words is not None:
        words.add(intro, value="scenarios_intro")
        words.add(suites, label="suites")
