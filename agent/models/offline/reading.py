"""The request as the offline model reads it: the turn as data, read from the messages every
model is given, as pydantic-ai's TestModel reads message parts. It finds what a person finds
in the chat: the latest words and the images noted on each message, each step's action and
its Observation (from the messages, or from the plugin-task prompt's transcript), the pending
task the prompt states, and the note saying which uploads never arrived."""

from __future__ import annotations

import json
import re
import string
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools import words as catalog

from ...refusals import SENTENCES
from ..base import ModelRequest
from .texts import NOTE, UNSHOWN, note_ids, plain, strip_notes, text_of


def _pattern(template: str, **groups: str) -> str:
    """A catalog sentence as a regular expression, its placeholders as the given groups."""
    pattern = ""
    for literal, name, _, _ in string.Formatter().parse(template):
        pattern += re.escape(literal)
        if name is not None:
            pattern += groups.get(name, ".*?")
    return pattern


_OBSERVATION = "Observation:"
_ASKED = re.compile(r"^Question: ", re.MULTILINE)
_FORMAT_QUESTION = "Question: the input question you must answer"
# The plugin-task prompts name the actions the step may take; the slot-filling one only the
# pending tool and two control actions.
_CHOICES = re.compile(r"^Action: the action to take, should be one of \[(.*)\]$", re.MULTILINE)
_FILLING_TAIL = ",end_conversation,ASK_USER_FOR_REQUIRED_PARAMS"
_BLOCK = re.compile(r"^(Thought:|Action:|Observation: ?)", re.MULTILINE)
_ACTION = re.compile(r"^Action:\s*(\S+)", re.MULTILINE)
_NO_TOOL = "No tool fits this request"
# What the agent writes as the Observation of a step that did not work: a tool's error or
# timeout, a call to no tool, arguments that do not fit, a call denied or not allowed.
_FAILED = [
    r"Error: ",
    r"\S+ did not finish within ",
    r"There is no tool named ",
    r"The arguments for \S+ are not valid \(",
    *(
        _pattern(catalog.words(lang, f"approval.{key}"), tool=r"\S+") + "$"
        for lang in ("en", "zh")
        for key in ("denied", "refused")
    ),
]
_FAILED_RE = re.compile("|".join(f"^(?:{p})" for p in _FAILED))


class StepHint(BaseModel):
    """A finished step of this turn: its Observation, whether a tool answered it, the agent
    found no tool or gave feedback, whether it worked, and the images it brought."""

    text: str
    kind: Literal["tool", "no_tool", "feedback"] = "tool"
    ok: bool = True
    image_ids: list[str] = Field(default_factory=list)


class TurnFacts(BaseModel):
    """This turn as data: what the person asked, the images noted in the conversation, each
    finished step, the task dialogue's state, why uploads were refused, and the prompt style."""

    question: str = ""
    image_ids: list[str] = Field(default_factory=list)
    steps: list[StepHint] = Field(default_factory=list)
    pending_tool: str | None = None
    known: dict[str, Any] = Field(default_factory=dict)
    refused_images: list[str] = Field(default_factory=list)
    style: str = "react"

    @property
    def observations(self) -> list[str]:
        return [step.text for step in self.steps]

    @property
    def observation_images(self) -> list[list[str]]:
        """Ids of the images each observation brought (a zoom's crop, an edit's result)."""
        return [step.image_ids for step in self.steps]


class Reading(ModelRequest):
    """A request with what the offline model read in it."""

    facts: TurnFacts = Field(default_factory=TurnFacts)


def read(request: ModelRequest) -> Reading:
    if isinstance(request, Reading):
        return request
    messages = request.messages
    users = [
        n
        for n, m in enumerate(messages)
        if m.get("role") == "user" and not text_of(m).startswith(_OBSERVATION)
    ]
    current = users[-1] if users else len(messages)
    latest = text_of(messages[current]) if users else ""
    choices = _CHOICES.findall(latest)
    filling = bool(choices) and choices[-1].endswith(_FILLING_TAIL)
    state = _task_state(
        "\n".join(text_of(m) for m in messages if m.get("role") == "system") or latest
    )
    facts = TurnFacts(
        image_ids=_image_ids(messages),
        refused_images=_refused(latest),
        style="plugin-task" if choices else "react",
    )
    if state is not None:
        facts.pending_tool, facts.known = state
    elif filling:
        facts.pending_tool = choices[-1].removesuffix(_FILLING_TAIL)
    if request.purpose == "final" or filling:
        question, reply, steps = _transcript(latest)
        facts.question = reply if reply is not None else question
        facts.steps = steps
    else:
        asked = _asked(latest) if choices else latest
        facts.question = strip_notes(asked)
        facts.steps = _step_messages(messages[current + 1 :])
    facts.question = plain(facts.question.strip())
    return Reading(**dict(request), facts=facts)


def _image_ids(messages: list[dict[str, Any]]) -> list[str]:
    """Every image a note on a message names, oldest first (ids are numbered in turn)."""
    texts = [text_of(m) for m in messages if m.get("role") == "user"]
    ids = {i for text in texts for note in (NOTE, UNSHOWN) for i in note_ids(text, note)}
    return sorted(ids, key=lambda i: int(i.removeprefix("img_")))


def _asked(text: str) -> str:
    """What follows the prompt's "Question: " (past the one in its format description)."""
    starts = [m.end() for m in _ASKED.finditer(text)]
    for start in starts:
        if not text[start - len("Question: ") :].startswith(_FORMAT_QUESTION):
            return text[start:]
    return ""


def _transcript(text: str) -> tuple[str, str | None, list[StepHint]]:
    """The plugin-task prompt's question, the person's latest reply in its transcript (None
    when there is none) and the steps taken since."""
    body = _asked(text)
    if (end := body.rfind("\nFinal Answer:")) >= 0:  # the final prompt's last line
        body = body[:end]
    blocks = [m.start() for m in _BLOCK.finditer(body)]
    question = body[: blocks[0]] if blocks else body
    parts = [body[a:b] for a, b in zip(blocks, [*blocks[1:], len(body)], strict=True)]
    # Lines of one step (Thought, Action, Action Input) go together.
    merged: list[str] = []
    for part in parts:
        if merged and part.startswith("Action:") and merged[-1].startswith("Thought:"):
            merged[-1] += part
        else:
            merged.append(part)
    reply: str | None = None
    steps: list[StepHint] = []
    action = ""
    for part in merged:
        if not part.startswith(_OBSERVATION):
            action = part
            continue
        said = strip_notes(part.removeprefix(_OBSERVATION).strip())
        if not action or "ASK_USER_FOR_REQUIRED_PARAMS" in _ACTION.findall(action)[-1:]:
            reply, steps = said, []
        else:
            steps.append(_hint(action, said, []))
        action = ""
    return strip_notes(question), reply, steps


def _step_messages(messages: list[dict[str, Any]]) -> list[StepHint]:
    steps: list[StepHint] = []
    action = ""
    for message in messages:
        text = text_of(message)
        if message.get("role") == "assistant":
            action = text
        elif text.startswith(_OBSERVATION):
            said = text.removeprefix(_OBSERVATION).lstrip(" ")
            steps.append(_hint(action, strip_notes(said), note_ids(said)))
            action = ""
    return steps


def _hint(action: str, observation: str, images: list[str]) -> StepHint:
    if observation.startswith(_NO_TOOL):
        return StepHint(text=observation, kind="no_tool", image_ids=images)
    if not _ACTION.search(action):  # an unusable reply, and why
        return StepHint(text=observation, kind="feedback", ok=False, image_ids=images)
    if _FAILED_RE.search(observation):
        return StepHint(text=observation, ok=False, image_ids=images)
    return StepHint(text=observation, image_ids=images)


_STATE = re.compile(
    "|".join(
        _pattern(
            catalog.words(lang, "prompts.task_state").splitlines()[-1],
            tool=rf"(?P<tool{n}>\S+?)",
            known=rf"(?P<known{n}>\{{.*\}})",
        )
        for n, lang in enumerate(("en", "zh"))
    )
)
_REFUSED = re.compile(
    "|".join(
        f"^{_pattern(catalog.words(lang, 'phrases.refused_note'), reasons='(.+)')}$"
        for lang in ("en", "zh")
    ),
    re.MULTILINE,
)
_REASON = re.compile(
    "|".join(
        f"(?:{_pattern(sentence)})" for kinds in SENTENCES.values() for sentence in kinds.values()
    )
)


def _task_state(text: str) -> tuple[str, dict[str, Any]] | None:
    """The pending task the prompt states: its tool and the parameters known."""
    found = _STATE.search(text)
    if found is None:
        return None
    groups = {k[:-1]: v for k, v in found.groupdict().items() if v is not None}
    try:
        known = json.loads(groups["known"])
    except ValueError:
        known = {}
    return groups["tool"], known if isinstance(known, dict) else {}


def _refused(text: str) -> list[str]:
    """The reasons the note on the person's message gives for each upload that never arrived."""
    found = [next(g for g in m.groups() if g is not None) for m in _REFUSED.finditer(text)]
    if not found:
        return []
    pieces = re.split(r"(?<=[.。]) ", found[-1])
    reasons: list[str] = []
    held = ""
    for piece in pieces:
        held = f"{held} {piece}" if held else piece
        if _REASON.fullmatch(held):
            reasons.append(held)
            held = ""
    if held:
        reasons.append(held)
    return reasons
