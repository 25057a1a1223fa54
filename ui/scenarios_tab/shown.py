"""What the Scenarios tab shows of a run, drawn from the run's data (`Batch`, `Comparison`, the
message's sentences) in a language: when the run ends, and again when the Language setting
changes, so that results never stay in the language they were first shown in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gradio as gr

from ..labels import language_key
from .comparison import Comparison, scores_value, verdicts_value
from .runs import Batch, score_text, table_value
from .said import Said

# Each sentence of the message line on a line of its own (the line breaks Markdown keeps).
LINE = "\n"
# The results table's columns: the scenario, the result, the first failure, time, calls,
# tokens, file. In pixels, not shares of the page: on a phone the table scrolls in its own
# box instead of squeezing a number into a column one character wide.
COLUMN_WIDTHS = ("220px", "80px", "420px", "90px", "100px", "100px", "220px")
# The comparison's scores: the model (a long name wraps), then the figures, each on a line.
SCORE_WIDTHS = ("150px", "90px", "80px", "100px", "100px", "100px", "100px", "80px")
# The comparison's verdicts: the scenario, a column per row (with why it failed), the file.
VERDICT_WIDTHS = ("220px", "240px", "220px")
# The run's outputs after the message and before its sentences, when a run does not happen.
SKIPPED = (gr.skip(),) * 7


def message(said: Sequence[Said], language: str) -> str:
    return LINE.join(part.markdown(language) for part in said)


def said_only(said: Sequence[Said], language: str) -> tuple:
    """The outputs of a press of Run that ran nothing: what it says, and the results shown
    before stay as they were."""
    return (message(said, language), *SKIPPED, list(said))


def single_outputs(
    batch: Batch, said: list[Said], language: str, json_file: str, junit_file: str
) -> tuple:
    """The outputs of a run with one row of settings: the message, the scores, the table, the
    batch, the downloads, the comparison's parts hidden, the message's sentences."""
    return (
        message(said, language),
        score_text(batch.scores(), language, batch.results) if batch.results else "",
        gr.Dataframe(
            value=table_value(batch.results, language, batch.names),
            visible=bool(batch.results),
            column_widths=list(COLUMN_WIDTHS),
        ),
        batch,
        gr.DownloadButton(value=json_file, interactive=True),
        gr.DownloadButton(value=junit_file, interactive=True, visible=True),
        gr.Dataframe(visible=False),
        gr.File(value=None, visible=False),
        said,
    )


def compared_outputs(
    comparison: Comparison, said: list[Said], language: str, json_file: str, junit: list[str]
) -> tuple:
    """The outputs of a run with several rows: the same, with the table of which model passed
    which scenario, the scores per row and a JUnit file per row that ran."""
    ran = bool(comparison.ran())
    return (
        message(said, language),
        "",
        gr.Dataframe(
            value=verdicts_value(comparison, language),
            visible=ran,
            column_widths=verdict_widths(comparison),
        ),
        comparison,
        gr.DownloadButton(value=json_file, interactive=True),
        gr.DownloadButton(visible=False),
        gr.Dataframe(
            value=scores_value(comparison, language),
            visible=ran,
            column_widths=list(SCORE_WIDTHS),
        ),
        gr.File(value=junit or None, visible=bool(junit)),
        said,
    )


def verdict_widths(comparison: Comparison) -> list[str | int]:
    first, each, last = VERDICT_WIDTHS
    return [first, *[each] * len(comparison.lanes), last]


def relabelled(language: str, said: Sequence[Said] | None, shown: Any) -> tuple:
    """The message, the scores, the results table and the comparison's scores drawn again in
    `language` from what the last run left (`said`, `shown`: its batch or comparison); what
    there is nothing to draw from stays."""
    language = language_key(language)
    words = message(said, language) if said is not None else gr.skip()
    if isinstance(shown, Comparison):
        return (
            words,
            gr.skip(),
            gr.Dataframe(value=verdicts_value(shown, language)),
            gr.Dataframe(value=scores_value(shown, language)),
        )
    if isinstance(shown, Batch) and shown.results:
        return (
            words,
            score_text(shown.scores(), language, shown.results),
            gr.Dataframe(value=table_value(shown.results, language, shown.names)),
            gr.skip(),
        )
    return words, gr.skip(), gr.skip(), gr.skip()
