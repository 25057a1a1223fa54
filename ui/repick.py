"""The same file picked again is taken again.

A file input fires no change when the file chosen is the one it already holds, and Gradio
6.31's input keeps the last file it was given: a person who sent an image, or removed its
thumbnail, could not pick that image again. Once the input has handed its files over, it is
emptied, so every choice is a change."""

from __future__ import annotations


def repick_script() -> str:
    """Browser code that empties the message input's file chooser after each choice."""
    return """() => {
  document.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || input.type !== "file") return;
    if (!input.closest("#input")) return;
    // Gradio has taken `input.files` (a list of its own) by the time this runs.
    setTimeout(() => { input.value = ""; }, 0);
  }, true);
}"""
