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
from .said import Said, sentence, shorter

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
    """What one row runs: its name in the downloads, and the settings it runs with; `rows` are
    the rows (from 1) that ask for it; `shown` its name on the page (a long one shorter); and
    why it may not run, when the row itself is refused."""

    name: str
    prefs: Any
    rows: list[int] = field(default_factory=list)
    shown: str = ""
    refused: Said | None = None

    def __post_init__(self) -> None:
        self.shown = self.shown or shorter(self.name)


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


def protocol_run(prefs: Any) -> str:
    """The tool protocol a run with `prefs` speaks, as far as it is known before it runs: the
    offline model reads and writes the ReAct text only, whatever is asked
    (`agent.native.protocol_for`); a hosted model's `auto` is decided as it runs."""
    return "react" if prefs.source == "offline" else prefs.tool_protocol


def asks_native_offline(prefs: Any, row: RowChoice) -> bool:
    """Whether `row` runs the offline model while asking for native tool calls (the row's, or
    the Settings' protocol): it runs the ReAct text instead."""
    wanted = row_prefs(prefs, row)
    return wanted.source == "offline" and wanted.tool_protocol == "native"


def model_label(prefs: Any) -> str:
    """The model settings run, as the command line names it."""
    if prefs.source == "offline":
        return OFFLINE
    return prefs.model.strip() or DEFAULT_OPENAI_MODEL


def _same_run(prefs: Any) -> tuple:
    """What makes two rows' runs the same: the model, the protocol, the style."""
    return (model_label(prefs), protocol_run(prefs), prefs.style)


def contenders(rows: Sequence[RowChoice], prefs: Any) -> tuple[list[Contender], list[Said]]:
    """The runs `rows` ask for, in order, each once, and the sentences about rows that ask for
    one already asked, or for what does not run as asked. A row that cannot run at all is a
    run refused (`Contender.refused`), so that it still has its place in the results. No rows
    is one run with the Settings as they are."""
    if len(rows) > MAX_ROWS:
        return [], [sentence("compare_too_many_rows", n=len(rows), limit=MAX_ROWS)]
    if not rows:
        return [Contender(model_label(prefs), prefs, [1])], []
    said: list[Said] = []
    chosen: dict[Any, Contender] = {}
    for number, row in enumerate(rows, 1):
        if len(row.model or "") > MAX_SETTING_CHARS:
            refused = sentence("compare_row_too_long", row=number, limit=MAX_SETTING_CHARS)
            chosen[number] = Contender(shorter(row.model), prefs, [number], refused=refused)
            continue
        if asks_native_offline(prefs, row):
            said.append(sentence("compare_offline_react", row=number))
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
            said.append(sentence("compare_same_rows", rows=rows_said))
    _name([run for run in runs if run.refused is None])
    return runs, said


def _name(runs: list[Contender]) -> None:
    """Each run named by its model, with the protocol it speaks and its style where the rows
    ask for different ones, so that no two runs share a name; on the page a long model name
    is shorter, and two that would then look the same are told apart by their rows."""
    protocols = {run.prefs.tool_protocol for run in runs}
    styles = {run.prefs.style for run in runs}
    for run in runs:
        parts = []
        if len(protocols) > 1:
            parts.append(protocol_run(run.prefs))
        if len(styles) > 1:
            parts.append(run.prefs.style)
        model = model_label(run.prefs)
        run.name = " · ".join([model, *parts])
        run.shown = " · ".join([shorter(model), *parts])
    shown = [run.shown for run in runs]
    for run in runs:
        if shown.count(run.shown) > 1:
            run.shown += f" #{run.rows[0]}"
