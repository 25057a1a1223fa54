"""Conversation and steps -> OpenAI chat messages with text and image parts, in one place."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from .images.store import ImageRef, ImageStore
from .session import Session

Detail = Literal["auto", "low", "high"]

# Older images stay in the conversation as text only; each image costs the model real tokens.
HISTORY_IMAGE_LIMIT = 4
# A long conversation keeps its latest turns; the earliest drop out of the request.
HISTORY_TURN_LIMIT = 20


class NativeCall(BaseModel):
    """A tool call as a model calling tools natively wrote it: which reply, its id, its raw
    arguments, and the reply's text before the calls."""

    reply: int
    id: str
    name: str
    arguments: str = "{}"
    content: str = ""


class StepRecord(BaseModel):
    """One finished step of this turn, as it is replayed to the model.

    `kind` says what wrote the observation: a tool (`ok` says whether it succeeded), the
    agent's finding that no tool fits, or the agent's feedback on an unusable step.
    """

    text: str
    observation: str
    image_ids: list[str] = Field(default_factory=list)
    kind: Literal["tool", "no_tool", "feedback"] = "tool"
    ok: bool = True
    tool: str = ""
    call: NativeCall | None = None


def action_text(
    thought: str, tool: str, tool_input: dict[str, Any], thought_data: dict[str, Any] | None = None
) -> str:
    """The canonical replay of an action; JSON, never Python repr."""
    thought_part = json.dumps(thought_data, ensure_ascii=False) if thought_data else thought
    return (
        f"Thought: {thought_part}\nAction: {tool}\n"
        f"Action Input: {json.dumps(tool_input, ensure_ascii=False)}"
    )


def image_note(refs: Sequence[ImageRef]) -> str:
    # Last in its message's text, in the order of the image parts: a model that takes text
    # only is told which image each left-out part was from it (`agent.models.vision`).
    return f"[Images: {', '.join(f'{r.id} ({_facts(r)})' for r in refs)}]"


def made_note(session: Session, shown: Iterable[str]) -> str:
    """A line naming the conversation's images that no message shows (those tools made in
    earlier turns, uploads of turns no longer in the history), so that a model knows they
    exist and "img_2" can be looked at again."""
    seen = {i for turn in session.history for i in turn.image_ids} | set(shown)
    made = [session.images.get(i) for i in session.images.ids() if i not in seen]
    if not made:
        return ""
    listed = ", ".join(f"{r.id} ({_facts(r)})" for r in made)
    return f"\n[Other images in this conversation, not shown: {listed}]"


def _facts(ref: ImageRef) -> str:
    facts = [f"{ref.width}x{ref.height}"]
    if ref.label:
        facts.append(ref.label)
    if ref.page:
        facts.append(f"page {ref.page} of {ref.pages} of the PDF {ref.source_name}".rstrip())
    return ", ".join(facts)


def image_part(ref: ImageRef, detail: Detail) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": ref.data_url(), "detail": detail}}


def user_message(text: str, refs: Sequence[ImageRef], detail: Detail) -> dict[str, Any]:
    if not refs:
        return {"role": "user", "content": text}
    content: list[dict[str, Any]] = [{"type": "text", "text": f"{text}\n{image_note(refs)}"}]
    content.extend(image_part(ref, detail) for ref in refs)
    return {"role": "user", "content": content}


def history_messages(
    session: Session, detail: Detail, image_limit: int = HISTORY_IMAGE_LIMIT
) -> list[dict[str, Any]]:
    """Earlier turns: each image is sent once, in the turn it came with; the oldest as text."""
    store: ImageStore = session.images
    turns = session.history[-HISTORY_TURN_LIMIT:]
    all_ids = [i for turn in turns for i in turn.image_ids]
    keep = set(all_ids[-image_limit:]) if image_limit else set()
    messages: list[dict[str, Any]] = []
    for turn in turns:
        refs = [store.get(i) for i in turn.image_ids if i in keep]
        dropped = [i for i in turn.image_ids if i not in keep]
        text = turn.user_text + (
            f"\n[Earlier images, not shown again: {', '.join(dropped)}]" if dropped else ""
        )
        messages.append(user_message(text, refs, detail))
        if turn.reply:
            messages.append({"role": "assistant", "content": turn.reply})
    return messages


def step_messages(
    steps: Sequence[StepRecord], store: ImageStore, detail: Detail
) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for step in steps:
        messages.append({"role": "assistant", "content": step.text})
        refs = [store.get(i) for i in step.image_ids]
        messages.append(user_message(f"Observation: {step.observation}", refs, detail))
    return messages


def react_messages(
    header: str,
    session: Session,
    text: str,
    refs: Sequence[ImageRef],
    steps: Sequence[StepRecord],
    detail: Detail,
) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": header},
        *history_messages(session, detail),
        user_message(text, refs, detail),
        *step_messages(steps, session.images, detail),
    ]


def prompt_messages(
    prompt: str,
    session: Session,
    refs: Sequence[ImageRef],
    steps: Sequence[StepRecord],
    detail: Detail,
) -> list[dict[str, Any]]:
    """The plugin-task style: one completion-style prompt as the latest user message."""
    return [
        *history_messages(session, detail),
        user_message(prompt, refs, detail),
        *step_messages(steps, session.images, detail),
    ]
