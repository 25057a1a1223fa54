"""A page's turns -> the values a turn streams to it: the chat, the trace panel and the status
line. Pure data, no gradio; each turn's own trace comes from its `TurnView`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from agent.events import ApprovalEvent, AskUserEvent, ErrorEvent

from ..labels import joined, t, vision_text, words
from ..typed_text import as_typed

if TYPE_CHECKING:
    from ..trace.view import TurnView
    from .state import PageState

# Turns the trace panel keeps: the page sends the whole trace on every update.
TRACE_TURNS = 20


@dataclass
class ReadImage:
    path: str
    id: str


@dataclass
class ReadTurn:
    """A turn of a conversation read from a file, with what the chat and the trace show."""

    text: str
    refs: list[ReadImage]
    view: TurnView
    gone: list[str] = field(default_factory=list)


@dataclass
class ReadPrefs:
    language: str


@dataclass
class ReadConversation:
    """A conversation read from a file (`agent.conversation_file`), shown as a session's is."""

    turns: list[ReadTurn]
    prefs: ReadPrefs


def page_values(state: PageState) -> tuple:
    """What a turn streams: only values, never component updates, because each component
    update makes Gradio rebuild that component's config on the event loop."""
    return chat_messages(state), trace_messages(state), state, status_text(state)


def chat_messages(state: PageState | ReadConversation) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for record in state.turns:
        gone = [t("image_gone", state.prefs.language).format(id=i) for i in record.gone]
        images = [(ref.path, ref.id) for ref in record.refs]
        messages.append(user_message(record.text, images, gone))
        view = record.view
        if view.answer:
            messages.append(answer_message(view))
        elif not view.done:
            working = {"title": words(state.prefs.language)["thinking"], "status": "pending"}
            messages.append({"role": "assistant", "content": "", "metadata": working})
    return messages


def trace_messages(state: PageState | ReadConversation) -> list[dict[str, Any]]:
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
    # How images go to the model, once known: the setting, or what the model showed.
    return joined(_turn_status(state), vision_text(state.vision_state(), state.prefs.language))


def _turn_status(state: PageState) -> str:
    view = state.turns[-1].view
    if view.stats_line:
        if isinstance(view.final, AskUserEvent):
            return joined(words(state.prefs.language)["awaiting"], view.stats_line)
        if isinstance(view.final, ApprovalEvent):
            return joined(words(state.prefs.language)["awaiting_approval"], view.stats_line)
        return view.stats_line
    model = view.model_name if view.model else ""
    if view.stopped:
        return joined(words(state.prefs.language)["stopped"], model)
    if view.silent_for is not None:
        return joined(words(state.prefs.language)["silent"].format(s=view.silent_for), model)
    return joined(t("working", state.prefs.language), model)


def user_message(
    text: str, images: Iterable[tuple[str, str]] = (), gone: Iterable[str] = ()
) -> dict[str, Any]:
    """The person's turn in the conversation: their words, and their images as thumbnails,
    each captioned with its id (`img_1`), the name by which the person and the agent can
    point at it; and a line for each image a restored conversation no longer has (`gone`)."""
    # Shown as typed: "<b>x</b>" and "9**9**9" are the person's words, not markup to draw.
    content: list[Any] = [as_typed(text)] if text.strip() else []
    for path, image_id in images:
        content.extend(_captioned(path, image_id))
    content.extend(gone)
    return {"role": "user", "content": content or [""]}


def answer_message(view: TurnView) -> dict[str, Any]:
    """The agent's reply: its words, then the images its tools made in the turn, each with
    its id; an error reads as an error."""
    if isinstance(view.final, ErrorEvent):
        label = escape(words(view.language)["error"])
        text = f'<div class="reply-error"><strong>{label}</strong> {escape(view.answer)}</div>'
    else:
        text = "\n\n".join([view.answer, *view.asides])
    if not view.made:
        return {"role": "assistant", "content": text}
    content: list[Any] = [text]
    for image in view.made:
        content.extend(_captioned(image.path, image.id))
    return {"role": "assistant", "content": content}


def _captioned(path: str, image_id: str) -> list[Any]:
    # Markdown code, so the caption reads as a name and not as part of the message.
    return [{"path": path}, f"`{image_id}`"]
