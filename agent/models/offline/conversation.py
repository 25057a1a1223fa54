"""What the request shows about the conversation, read the way a person reads the chat.

The offline model keeps no state between calls; everything comes from the request: which
images the person uploaded and in which turn (the `[Images: …]` notes on their messages; tool
results only appear in Observations), the image the conversation was last about, and the
actions taken so far in this turn with what each one observed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from tools.image_refs import ImageIds, resolve_image

from .reading import Reading
from .texts import NOTE, NOTES_AT_END, note_ids, text_of

_GONE = re.compile(r"\[Images no longer available: ([^\]]*)\]")
_ID = re.compile(r"\bimg_\d+\b")
_ACTION = re.compile(r"^Action:\s*(\S+)\s*\nAction Input:\s*(\{.*\})\s*$", re.MULTILINE)
_OBSERVATION = "Observation:"


class Done(BaseModel):
    """One action of this turn and what came back."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    observation: str = ""
    images: list[str] = Field(default_factory=list)


class Seen(BaseModel):
    # The images there were when this turn began, oldest first.
    ids: list[str] = Field(default_factory=list)
    uploads: list[str] = Field(default_factory=list)
    turn_uploads: list[str] = Field(default_factory=list)
    focus: str | None = None
    done: list[Done] = Field(default_factory=list)
    # Every earlier question, oldest first: a follow-up of a follow-up ("and this one?", then
    # "and the one before?") takes up the last question that asked something.
    questions: list[str] = Field(default_factory=list)
    # Images earlier turns came with that the server no longer has.
    gone: list[str] = Field(default_factory=list)

    @property
    def previous_question(self) -> str:
        return self.questions[-1] if self.questions else ""

    def image_ids(self) -> ImageIds:
        return ImageIds(
            self.ids, uploads=self.uploads, turn_uploads=self.turn_uploads, focus=self.focus
        )


def read(request: Reading) -> Seen:
    made_now = {i for images in request.facts.observation_images for i in images}
    ids = [i for i in request.facts.image_ids if i not in made_now]
    messages = request.messages
    user_turns = [
        n
        for n, m in enumerate(messages)
        if m.get("role") == "user" and not text_of(m).startswith(_OBSERVATION)
    ]
    current = user_turns[-1] if user_turns else len(messages)
    uploads: list[str] = []
    focus: str | None = None
    questions: list[str] = []
    for n in user_turns[:-1]:
        text = text_of(messages[n])
        # An image sent again keeps its first id; it is still what that turn was about.
        turn = [i for i in note_ids(text) if i in ids]
        uploads.extend(i for i in turn if i not in uploads)
        words = NOTES_AT_END.sub("", text)
        reply = next(
            (text_of(m) for m in messages[n + 1 : n + 2] if m.get("role") == "assistant"), ""
        )
        then = ImageIds(ids, uploads=uploads, turn_uploads=turn, focus=turn[-1] if turn else focus)
        focus = _focus_after(words, reply, then)
        questions.append(words)
    turn_uploads = (
        [i for i in note_ids(text_of(messages[current])) if i in ids] if user_turns else []
    )
    uploads.extend(i for i in turn_uploads if i not in uploads)
    if not user_turns or not any(NOTE.search(text_of(m)) for m in messages):
        # A request built by hand, without notes: every image counts as an upload.
        uploads = list(ids)
    if turn_uploads:
        focus = turn_uploads[-1]
    steps = [text_of(m) for m in messages[current + 1 :] if m.get("role") == "assistant"]
    if request.purpose == "final":
        steps = [text_of(m) for m in messages]
    return Seen(
        ids=ids,
        uploads=uploads,
        turn_uploads=turn_uploads,
        focus=focus,
        done=_done(steps, request),
        questions=questions,
        gone=_gone(messages, ids),
    )


def _gone(messages: list[dict[str, Any]], ids: list[str]) -> list[str]:
    """Images earlier turns came with that are not on the server now: those a note says are
    gone, and those noted as sent that the server no longer has."""
    said = [i for m in messages for note in _GONE.findall(text_of(m)) for i in _ID.findall(note)]
    sent = [i for m in messages if m.get("role") == "user" for i in note_ids(text_of(m))]
    return list(dict.fromkeys([*said, *(i for i in sent if i not in ids)]))


def _focus_after(words: str, reply: str, ids: ImageIds) -> str | None:
    """The image a finished turn was about: the one the person named (a name that fits no image
    changes nothing), else the one the reply names first (it says which one it used), else what
    they sent with it."""
    choice = resolve_image(words, ids)
    if choice.way in ("id", "position", "pointer"):
        return choice.image_id or ids.focus
    named = next((i for i in _ID.findall(reply) if i in ids), None)
    return named or ids.focus


def _done(steps: list[str], request: Reading) -> list[Done]:
    actions: list[tuple[str, dict[str, Any]]] = []
    for text in steps:
        for name, raw in _ACTION.findall(text):
            try:
                args = json.loads(raw)
            except ValueError:
                args = {}
            actions.append((name, args if isinstance(args, dict) else {}))
    observations = request.facts.observations
    images = [*request.facts.observation_images, *[[]] * len(observations)][: len(observations)]
    # The final prompt also holds earlier questions to the person: the latest actions are the
    # ones with this turn's observations.
    count = min(len(actions), len(observations))
    if not count:
        return []
    return [
        Done(tool=name, args=args, observation=observation, images=list(shown))
        for (name, args), observation, shown in zip(
            actions[-count:], observations[-count:], images[-count:], strict=True
        )
    ]
