"""A page's turns -> the values a turn streams to it: the chat, the trace panel and the status
line. Pure data, no gradio; each turn's own trace comes from its `TurnView`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .labels import t, words

if TYPE_CHECKING:
    from .page_state import PageState

# Turns the trace panel keeps: the page sends the whole trace on every update.
TRACE_TURNS = 20


def page_values(state: PageState) -> tuple:
    """What a turn streams: only values, never component updates, because each component
    update makes Gradio rebuild that component's config on the event loop."""
    return chat_messages(state), trace_messages(state), state, status_text(state)


def chat_messages(state: PageState) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for record in state.turns:
        gone = [t("image_gone", state.prefs.language).format(id=i) for i in record.gone]
        messages.append(user_message(record.text, [ref.path for ref in record.refs], gone))
        view = record.view
        if view.answer:
            messages.append({"role": "assistant", "content": view.answer})
        elif not view.done:
            working = {"title": words(state.prefs.language)["thinking"], "status": "pending"}
            messages.append({"role": "assistant", "content": "", "metadata": working})
    return messages


def trace_messages(state: PageState) -> list[dict[str, Any]]:
    """Every recent turn's steps; finished turns fold, except the latest, which stays open.
    The page sends the whole trace on every update, so older turns leave it (not the chat)."""
    messages = [m for record in state.turns[-TRACE_TURNS:] for m in record.view.messages]
    latest = state.turns[-1].view.turn_id if state.turns else None
    for index, message in enumerate(messages):
        meta, content = message["metadata"], message["content"]
        if meta.get("id") == latest and meta.get("status") == "done":
            # No status: Gradio shows the group open, without a spinner.
            meta = {k: v for k, v in meta.items() if k != "status"}
            message = {**message, "metadata": meta}
        if isinstance(content, list):
            # A folded step shows images only as Markdown, so tool images become links to
            # the session's own copies.
            message = {**message, "content": _markdown_with_images(content)}
        messages[index] = message
    return messages


def _markdown_with_images(content: list[Any]) -> str:
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("path"):
            path = Path(part["path"])
            # The file is named `<id>-<random token>`; the id alone is the image's name.
            name = path.stem.partition("-")[0]
            parts.append(f"![{name}](/gradio_api/file={quote(str(path))})")
        else:
            parts.append(str(part))
    return "\n\n".join(parts)


def status_text(state: PageState) -> str:
    if not state.turns:
        return ""
    view = state.turns[-1].view
    if view.stats_line:
        return view.stats_line
    if view.stopped:
        stopped = words(state.prefs.language)["stopped"]
        return f"{stopped} · {view.model_name}" if view.model else stopped
    if view.model:
        return f"{t('working', state.prefs.language)} · {view.model_name}"
    return t("working", state.prefs.language)


def user_message(
    text: str, image_paths: Iterable[str] = (), gone: Iterable[str] = ()
) -> dict[str, Any]:
    """The person's turn in the conversation: their words, their images as thumbnails, and a
    line for each image a restored conversation no longer has (`gone`)."""
    content: list[Any] = [{"path": p} for p in image_paths]
    if text.strip():
        content.insert(0, text)
    content.extend(gone)
    return {"role": "user", "content": content or [""]}
