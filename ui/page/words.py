"""The page in the language chosen in Settings, without a reload.

Gradio's I18n writes the page text in the browser's language once, in the browser. When the
person picks the other language in Settings, every component that shows words from the
catalogs' `page` group (assets/words/) gets them again as plain text in that language
(`PageWords.updates`), the conversation and the trace are drawn again in it (`redraw`), and
browser code (`assets/page/language.js`) names the page and Gradio's own accessible names in it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gradio as gr

from ..labels import language_key, t
from ..trace.view import render
from .state import PageState
from .values import page_values

if TYPE_CHECKING:
    from ..handlers import PageHandlers

# A property's words: a key of the `page` group, or a function of the language for the rest
# (a radio's choices).
Words = str | Callable[[str], Any]


class PageWords:
    """The components whose words follow the language, each with the properties to fill."""

    def __init__(self) -> None:
        self.entries: list[tuple[Any, dict[str, Words]]] = []

    def add(self, component: Any, **properties: Words) -> Any:
        self.entries.append((component, properties))
        return component

    @property
    def components(self) -> list[Any]:
        return [component for component, _ in self.entries]

    def updates(self, language: str) -> list[Any]:
        return [
            gr.update(**{name: _said(words, language) for name, words in properties.items()})
            for _, properties in self.entries
        ]


def _said(words: Words, language: str) -> Any:
    return t(words, language) if isinstance(words, str) else words(language)


def choices(*options: tuple[str, str]) -> Callable[[str], list[tuple[str, str]]]:
    """A radio's choices in a language: (`page` key, value) pairs."""
    return lambda language: [(t(key, language), value) for key, value in options]


def redraw(state: PageState, language: str) -> None:
    """The conversation's turns drawn again in `language`, from the events they keep."""
    for record in state.turns:
        old = record.view
        view = render(record.events, old.number, language, record.text)
        if old.stopped:
            view.stop()
        record.view = view


def relabel_handler(page: PageHandlers, words: PageWords) -> Callable[..., tuple]:
    """The handler for a Language change: the session's language, the conversation and the
    trace drawn again in it, and every part's words. Outputs: the chat, the trace, the state,
    the status line, then `words.components`."""

    def handler(language: str, state: PageState | None) -> tuple:
        state = page.use(state, tell=False)
        state.prefs.language = language_key(language)
        redraw(state, state.prefs.language)
        return (*page_values(state), *words.updates(state.prefs.language))

    return handler


def language_settings(zh_title: str, en_title: str) -> dict:
    """The settings of `assets/page/language.js`: on a Language change, the page's `lang`, its
    title, and the accessible names of `ui.language` and `ui.a11y` (which read `lang`) follow
    the chosen language; so do Gradio's own words ("Loading…", the upload hints, the API
    page), through the locale of Gradio's front end (`changeLocale` of its core module, which
    the page has loaded already: importing it again gives the same module)."""
    return {"titles": {"zh": zh_title, "en": en_title}}
