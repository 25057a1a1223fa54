"""Options shared by the page's event listeners (`.click`, `.change`, `.then`, ...), typed as
Gradio's listeners take them."""

from __future__ import annotations

from typing import Literal, TypedDict


class Private(TypedDict):
    """A listener that is no endpoint of the page's API."""

    api_visibility: Literal["public", "private", "undocumented"]


class Quiet(Private):
    """A private listener that shows no progress."""

    show_progress: Literal["full", "minimal", "hidden"]
