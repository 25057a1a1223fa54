"""Fixes, made in the browser (`assets/page/a11y.js`), to Gradio's own markup where it is hard
to use without a mouse or a screen: Gradio 6.31 has no setting for any of these.

- Each folded step in the trace (and the chat's "Thinking…") is a `role=button` title holding a
  second, nameless arrow button: two Tab stops, one of them silent, and an interactive element
  inside another. The arrow leaves the tab order and the accessibility tree (`inert`); the
  title, which has the step's name, still folds and unfolds the step, by click or by key.
- A message's image is a button with no name; it gets one.
- A message's `aria-label` sits on a `div` with no role, where it means nothing; the `div`
  becomes a group, which the label names.
- The line that says what is wrong with the settings is an alert, read out when it shows.
- The conversation and the trace are both a `log` named "chatbot conversation", and both are
  read out as they change. Each is named by its own label, and the trace is not read out as
  it streams (the status line is): a screen reader goes to it when it wants the steps.
- An image in a message has an empty `alt`; it gets its id (`img_2`), which its file is named
  by and the page and the agent call it.
- The thumbnails of the input's uploads are list items outside any list (whose row, with its
  upload button, cannot be one): plain items.
"""

from __future__ import annotations

from tools.words import LANGUAGES, both, words

IMAGE_NAME = both("page.image_larger")
PANEL_NAMES = {
    language: {
        "chat": words(language, "page.chat_label"),
        "trace": words(language, "page.trace_label"),
    }
    for language in LANGUAGES
}


def a11y_settings() -> dict:
    """The settings of `assets/page/a11y.js`, which applies the fixes, also to what the page
    shows later, once per batch of changes, before anything else runs."""
    return {"imageName": IMAGE_NAME, "panels": PANEL_NAMES}
