"""The Scenarios tab's rows of settings to compare (`ui.scenarios_tab.contenders` reads them):
the first row is always there, and Add shows one more at the end, up to `MAX_ROWS`; Remove
takes a row out, the rows below it move up, and the last is hidden with the Settings' values:
the rows shown are always the first ones, in the order they were added."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ..labels import t
from ..listeners import Private
from .contenders import MAX_ROWS, OFFLINE, PROTOCOLS, SAME, STYLES, RowChoice

_PROTOCOL_WORDS = {"auto": "protocol_auto", "react": "protocol_react", "native": "protocol_native"}
_STYLE_WORDS = {"react": "style_react", "plugin-task": "style_plugin"}


def _options(
    language: str | None, i18n: Any, words: Sequence[tuple[str, str]]
) -> list[tuple[Any, str]]:
    """(words, value) pairs: the page's words in `language`, or Gradio's I18n before the page
    knows it."""
    return [(t(key, language) if language else i18n(key), value) for key, value in words]


def model_options(allowed: Sequence[str]) -> Callable[..., list[tuple[Any, str]]]:
    def options(language: str | None = None, i18n: Any = None) -> list[tuple[Any, str]]:
        fixed = _options(language, i18n, [("compare_same", SAME), ("compare_offline", OFFLINE)])
        return [*fixed, *((model, model) for model in allowed)]

    return options


def protocol_options(language: str | None = None, i18n: Any = None) -> list[tuple[Any, str]]:
    return _options(language, i18n, [("compare_same", SAME), *_words(PROTOCOLS, _PROTOCOL_WORDS)])


def style_options(language: str | None = None, i18n: Any = None) -> list[tuple[Any, str]]:
    return _options(language, i18n, [("compare_same", SAME), *_words(STYLES, _STYLE_WORDS)])


def _words(values: Sequence[str], keys: dict[str, str]) -> list[tuple[str, str]]:
    return [(keys[value], value) for value in values]


@dataclass
class Rows:
    """The rows' components: `shown` (a `gr.State` of which rows are on the page) and
    `cells` (each row's model, protocol and style, row after row) are the run's inputs."""

    shown: Any
    cells: list[Any]


def add_rows(i18n: Any, words: Any, allowed: Sequence[str]) -> Rows:
    """The rows, inside an accordion, wired to Add and Remove."""
    quiet: Private = {"api_visibility": "private"}
    models = model_options(allowed)
    with gr.Accordion(i18n("compare_title"), open=False, elem_id="scenario-compare") as box:
        intro = gr.Markdown(i18n("compare_intro"))
        shown = gr.State([True] + [False] * (MAX_ROWS - 1))
        rows, cells, removes = [], [], []
        for index in range(MAX_ROWS):
            number = index + 1
            with gr.Row(
                visible=index == 0, elem_id=f"scenario-row-{number}", elem_classes="scenario-row"
            ) as row:
                model = gr.Dropdown(
                    models(i18n=i18n),
                    value=SAME,
                    allow_custom_value=True,
                    label=i18n("compare_model"),
                    elem_id=f"scenario-row-{number}-model",
                )
                protocol = gr.Dropdown(
                    protocol_options(i18n=i18n),
                    value=SAME,
                    label=i18n("protocol"),
                    elem_id=f"scenario-row-{number}-protocol",
                )
                style = gr.Dropdown(
                    style_options(i18n=i18n),
                    value=SAME,
                    label=i18n("style"),
                    elem_id=f"scenario-row-{number}-style",
                )
                # The first row stays: with it alone a run is the Settings' run.
                remove = gr.Button(
                    i18n("compare_remove"),
                    size="sm",
                    visible=index > 0,
                    elem_id=f"scenario-row-{number}-remove",
                    scale=0,
                )
            rows.append(row)
            cells += [model, protocol, style]
            removes.append(remove)
            for component, label, options in (
                (model, "compare_model", models),
                (protocol, "protocol", protocol_options),
                (style, "style", style_options),
            ):
                words.add(component, label=label, choices=options)
            words.add(remove, value="compare_remove")
        add = gr.Button(i18n("compare_add"), size="sm", elem_id="scenario-row-add")
        # Said once every row is shown, in the page's language as the other words are.
        full = gr.Markdown(i18n("compare_full"), visible=False, elem_id="scenario-rows-full")
    words.add(box, label="compare_title")
    words.add(full, value="compare_full")
    words.add(intro, value="compare_intro")
    words.add(add, value="compare_add")
    add.click(added, [shown], [shown, *rows, add, full], queue=False, **quiet)
    for index, remove in enumerate(removes):
        remove.click(
            removed(index),
            [shown, *cells],
            [shown, *rows, *cells, add, full],
            queue=False,
            **quiet,
        )
    return Rows(shown, cells)


def _count(shown: Sequence[bool] | None) -> int:
    """How many rows show: at least the first."""
    return max(1, sum(1 for on in shown or [] if on))


def added(shown: list[bool] | None) -> tuple:
    """One more row shown, after the last one; with every row shown, Add turns off."""
    count = min(MAX_ROWS, _count(shown) + 1)
    shown = [number < count for number in range(MAX_ROWS)]
    full = count == MAX_ROWS
    rows = (gr.Row(visible=on) for on in shown)
    return (shown, *rows, gr.Button(interactive=not full), gr.Markdown(visible=full))


def removed(index: int) -> Callable[..., tuple]:
    """Remove for the row at `index`: the rows shown after it move up a place, keeping their
    values, and the last place empties (as in Settings) and hides. The first row stays: alone,
    Remove on it sets it back to the Settings' values."""

    def remove(shown: list[bool] | None, *cells: Any) -> tuple:
        count = _count(shown)
        triples = [list(cells[i : i + 3]) for i in range(0, 3 * MAX_ROWS, 3)]
        triples += [[SAME] * 3] * (MAX_ROWS - len(triples))
        if index < count:
            del triples[index]
            triples.append([SAME] * 3)
            count = max(1, count - 1)
        visible = [number < count for number in range(MAX_ROWS)]
        values = [SAME if v is None else v for triple in triples[:MAX_ROWS] for v in triple]
        return (
            visible,
            *(gr.Row(visible=on) for on in visible),
            *values,
            gr.Button(interactive=True),
            gr.Markdown(visible=False),
        )

    return remove


def read_rows(shown: Sequence[bool] | None, cells: Sequence[Any]) -> list[RowChoice]:
    """The rows on the page, from the run's inputs; none when the page sent no rows."""
    triples = [cells[i : i + 3] for i in range(0, len(cells) - 2, 3)]
    shown = list(shown) if shown is not None else [True] * len(triples)
    return [
        RowChoice(*(str(cell) if cell is not None else SAME for cell in triple))
        for on, triple in zip(shown, triples, strict=False)
        if on
    ]
