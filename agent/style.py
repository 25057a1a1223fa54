"""The two prompt styles the agent speaks, each as one small object.

- `react`: the multimodal ReAct header (from llama-index) as the system message, prose Thought;
  a tool's Observation goes back to the model, which writes the answer.
- `plugin-task`: the task-dialogue prompts (from the Orion-14B plugin demo): an intent prompt,
  a slot-filling prompt while a task is pending, a JSON Thought; after a tool runs (or none
  fits), one more call with the final-answer prompt writes the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import prompts
from .images.store import ImageRef
from .messages import Detail, StepRecord, prompt_messages, react_messages
from .session import Session


@dataclass(frozen=True)
class TurnContext:
    """What a style needs of the turn to write the messages of a model call."""

    session: Session
    text: str
    refs: Sequence[ImageRef]
    steps: Sequence[StepRecord]
    transcript: str
    language: str
    detail: Detail
    # The lines under the person's words (in `text` too): uploads that never arrived, images
    # no message shows.
    note: str = ""


class ReactStyle:
    name = "react"
    final_answer_call = False

    def __init__(self, tools: Sequence[Any]) -> None:
        self.tools = list(tools)
        self._headers: dict[tuple[str, str], str] = {}

    def header(self, language: str, task_state: str = "") -> str:
        """The system header; the same tools, language and task give the same text."""
        key = (language, task_state)
        if key not in self._headers:
            if len(self._headers) > 32:
                self._headers.clear()
            self._headers[key] = prompts.react_header(self.tools, language, task_state)
        return self._headers[key]

    def messages(self, turn: TurnContext) -> list[dict[str, Any]]:
        task = turn.session.task
        state = ""
        if task:
            state = prompts.task_state_text(task.tool, task.known, task.missing, turn.language)
        header = self.header(turn.language, state)
        return react_messages(header, turn.session, turn.text, turn.refs, turn.steps, turn.detail)


class PluginTaskStyle:
    name = "plugin-task"
    final_answer_call = True

    def __init__(self, tools: Sequence[Any]) -> None:
        self.tools = list(tools)
        self.by_name = {tool.name: tool for tool in self.tools}

    def messages(self, turn: TurnContext) -> list[dict[str, Any]]:
        task = turn.session.task
        if task and task.tool in self.by_name:
            tool = self.by_name[task.tool]
            # The prompt says what is known so far, merged in code from every source, and the
            # notes under this reply: its transcript shows neither.
            state = prompts.task_state_text(task.tool, task.known, task.missing, turn.language)
            prompt = prompts.filling_slot_prompt(
                tool, task.request, turn.transcript, turn.language, state + turn.note
            )
            return prompt_messages(prompt, turn.session, turn.refs, [], turn.detail)
        prompt = prompts.intent_prompt(self.tools, turn.text, turn.language)
        return prompt_messages(prompt, turn.session, turn.refs, turn.steps, turn.detail)


STYLES: dict[str, Callable[[Sequence[Any]], ReactStyle | PluginTaskStyle]] = {
    "react": ReactStyle,
    "plugin-task": PluginTaskStyle,
}


def make_style(name: str, tools: Sequence[Any]) -> ReactStyle | PluginTaskStyle:
    try:
        return STYLES[name](tools)
    except KeyError:
        raise ValueError(f"unknown prompt style {name!r}; use one of {', '.join(STYLES)}") from None
