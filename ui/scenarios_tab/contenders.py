"""The rows of settings the Scenarios tab compares: each row names a model, a tool protocol and
a prompt style, and whatever it leaves as in Settings comes from the session's settings. The
base URL and the key always do: a row cannot send a run anywhere the Settings could not.

No gradio here; `ui.scenarios_tab.rows` lays the rows out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent.config import DEFAULT_OPENAI_MODEL

from ..access import MAX_SETTING_CHARS
from ..labels import t

# A row's choice that keeps what the Settings say. Not a key of the word catalogs: Gradio's
# front end shows a value that is one as that key's words.
SAME = "same-as-settings"
OFFLINE = "offline"
PROTOCOLS = ("auto", "react", "native")
STYLES = ("react", "plugin-task")
# Rows one run may compare: each runs the whole batch again, so this bounds the run's time
# and results as `runs.MAX_BATCH_TURNS` bounds one model's.
MAX_ROWS = 6


@dataclass(frozen=True)
class RowChoice:
    """One row as the page sends it: a model name (or `offline`), a protocol and a style,
    each `SAME` (or empty) for the Settings' own."""

    model: str = SAME
    protocol: str = SAME
    style: str = SAME


@dataclass
class Contender:
    """What one row runs: its name in the tables and downloads, and the settings it runs with;
    `rows` are the rows (from 1) that ask for it."""

    name: str
    prefs: Any
    rows: list[int] = field(default_factory=list)


def row_prefs(prefs: Any, row: RowChoice) -> Any:
    """The session's settings `prefs` with what `row` changes."""
    model = (row.model or "").strip()
    changes: dict[str, Any] = {}
    if model.casefold() == OFFLINE:
        changes["source"] = "offline"
    elif model and model != SAME:
        changes.update(source="openai", model=model)
    if row.protocol in PROTOCOLS:
        changes["tool_protocol"] = row.protocol
    if row.style in STYLES:
        changes["style"] = row.style
    return replace(prefs, **changes)


def model_label(prefs: Any) -> str:
    """The model settings run, as the command line names it."""
    if prefs.source == "offline":
        return OFFLINE
    return prefs.model.strip() or DEFAULT_OPENAI_MODEL


def _same_run(prefs: Any) -> tuple:
    """What makes two rows' runs the same: the model, the protocol, the style."""
    return (model_label(prefs), prefs.tool_protocol, prefs.style)


def contenders(
    rows: Sequence[RowChoice], prefs: Any, language: str
) -> tuple[list[Contender], list[str]]:
    """The runs `rows` ask for, in order, each once, and the sentences about rows that ask for
    none or for one already asked. No rows is one run with the Settings as they are."""
    if len(rows) > MAX_ROWS:
        return [], [t("compare_too_many_rows", language).format(n=len(rows), limit=MAX_ROWS)]
    if not rows:
        return [Contender(model_label(prefs), prefs, [1])], []
    said: list[str] = []
    chosen: dict[tuple, Contender] = {}
    for number, row in enumerate(rows, 1):
        if len(row.model or "") > MAX_SETTING_CHARS:
            said.append(
                t("compare_row_too_long", language).format(row=number, limit=MAX_SETTING_CHARS)
            )
            continue
        wanted = row_prefs(prefs, row)
        key = _same_run(wanted)
        if key in chosen:
            chosen[key].rows.append(number)
            continue
        chosen[key] = Contender(model_label(wanted), wanted, [number])
    runs = list(chosen.values())
    for run in runs:
        if len(run.rows) > 1:
            rows_said = ", ".join(str(n) for n in run.rows)
            said.append(t("compare_same_rows", language).format(rows=rows_said))
    _name(runs)
    return runs, said


def _name(runs: list[Contender]) -> None:
    """Each run named by its model, with its protocol and style where the rows differ in them,
    so that no two runs share a name."""
    protocols = {run.prefs.tool_protocol for run in runs}
    styles = {run.prefs.style for run in runs}
    for run in runs:
        parts = [model_label(run.prefs)]
        if len(protocols) > 1:
            parts.append(run.prefs.tool_protocol)
        if len(styles) > 1:
            parts.append(run.prefs.style)
        run.name = " · ".join(parts)
