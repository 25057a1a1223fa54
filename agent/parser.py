"""Model text -> one ReAct step: an action (a tool and its JSON input) or an answer.

The protocol is the multimodal ReAct header's (`Thought:` / `Action:` / `Action Input:`, the
system's `Observation:`, finishing with `Answer:`) plus the plugin-task prompts' JSON Thought and
`Final Answer:`. Models bend it in many ways (bold or lower-case labels, full-width colons, code
fences, Python dicts, `tool(args)` calls, a made-up Observation); each is read the way a careful
person would read it. The label grammar is in `labels.py`, tool inputs in `action_input.py`,
tool names in `tool_names.py`, and `AnswerStream` (`answer_stream.py`) forwards the answer while
the reply is still streaming.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from . import tool_names
from .action_input import MD_ESCAPE, as_input, call, json_call, load, strip_fence, to_input
from .answer_stream import AnswerStream
from .labels import (
    FENCE_LINE,
    Mark,
    clean_value,
    is_no_tool,
    labels,
    spread_midline,
    trim_name,
)
from .reasoning import strip_reasoning

__all__ = ["AnswerStream", "ParseError", "Step", "parse_step"]

_INLINE_INPUT = re.compile(r"[ \t,;]+(?:\*\*)?Action[ \t_]*Input(?:\*\*)?[ \t]*[:：]", re.I)
_INLINE_JSON = re.compile(r"^[`*'\"]*([A-Za-z_][\w.\-]*)[`*'\"]*[ \t]*[:,]?[ \t]*([{\[].*)$", re.S)
_TOOL_TAGS = re.compile(r"</?tool_call>|<\|python_tag\|>|<\|eom_id\|>|<\|eot_id\|>")


class Step(BaseModel):
    """One step of the loop, as the model wrote it."""

    kind: Literal["action", "answer"]
    thought: str = ""
    thought_data: dict[str, Any] | None = None
    tool: str | None = None
    tool_input: dict[str, Any] = Field(default_factory=dict)
    answer: str | None = None
    raw: str = ""


class ParseError(ValueError):
    """The reply holds no usable step. The message is the retry instruction for the model."""

    def __init__(self, reason: str, tools: Sequence[str] = ()) -> None:
        self.reason = reason
        self.tools = tuple(tools)
        names = f"one of: {', '.join(self.tools)}" if self.tools else "a tool name"
        super().__init__(
            f"Could not read your reply: {reason}. Reply in exactly this format:\n"
            f"Thought: ...\nAction: <{names}>\nAction Input: <a JSON object>\n"
            "or\nThought: ...\nAnswer: <your answer>"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.reason, self.tools)


def parse_step(text: str, tools: Sequence[str] = ()) -> Step:
    """Read one step from `text`; raise `ParseError` when it holds none."""
    if not text.strip():
        raise ParseError("the reply was empty", tools)
    text = strip_reasoning(text)
    if not text.strip():
        raise ParseError("the reply held only reasoning (<think>), no step", tools)
    try:
        step = _parse(text, tools)
    except RecursionError as error:
        raise ParseError("it is nested too deeply to read", tools) from error
    return step.model_copy(update={"raw": text})


def _parse(text: str, tools: Sequence[str]) -> Step:
    marks = labels(text)
    if not marks:
        found = _bare_call(text, tools)
        if found is None:
            return Step(kind="answer", answer=text.strip())
        if found[0] is None:
            return Step(kind="answer", answer=found[1]["input"])
        return Step(kind="action", tool=found[0], tool_input=found[1])
    step = _read(text, marks, tools)
    if step is None:
        spread = spread_midline(text)
        step = _read(spread, labels(spread), tools) if spread != text else None
    if step is None:
        kinds = {mark.kind for mark in marks}
        reason = "there is an Action Input but no Action line naming the tool"
        raise ParseError(reason if "actioninput" in kinds else "it has no Action or Answer", tools)
    return step


def _read(text: str, marks: list[Mark], tools: Sequence[str]) -> Step | None:
    """The first Action or Answer decides; what follows an Action (a guessed Observation or
    Answer) is dropped, since the tool has not run yet."""
    ends = [mark.start for mark in marks[1:]] + [len(text)]
    values = [text[mark.end : stop] for mark, stop in zip(marks, ends, strict=True)]
    thought = FENCE_LINE.sub("", text[: marks[0].start])
    for i, mark in enumerate(marks):
        if mark.kind == "thought":
            thought = values[i]
        elif mark.kind == "answer":
            answer = clean_value(values[i])
            if not answer:
                raise ParseError("the Answer is empty", tools)
            return Step(kind="answer", answer=answer, **_thought(thought))
        elif mark.kind == "action":
            if is_no_tool(values[i].split("\n", 1)[0]):
                continue
            has_input = i + 1 < len(marks) and marks[i + 1].kind == "actioninput"
            tool, tool_input = _action(values[i], values[i + 1] if has_input else None, tools)
            answer = tool_names.answer_of(tool, tool_input, tools)
            if answer:
                return Step(kind="answer", answer=answer, **_thought(thought))
            return Step(kind="action", tool=tool, tool_input=tool_input, **_thought(thought))
    return None


def _thought(value: str) -> dict[str, Any]:
    text = clean_value(value)
    data = load(text) if text.startswith(("{", "```")) else None
    if not isinstance(data, dict):
        return {"thought": text, "thought_data": None}
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    return {"thought": content or "", "thought_data": data}


def _action(value: str, input_text: str | None, tools: Sequence[str]) -> tuple[str, dict]:
    text = MD_ESCAPE.sub("_", clean_value(value))
    same_line = _INLINE_INPUT.search(text.split("\n", 1)[0])
    if same_line and input_text is None:  # "Action: zoom, Action Input: {...}"
        text, input_text = text[: same_line.start()], text[same_line.end() :]
    found = call(text) or (json_call(text) if text.startswith(("{", "```")) else None)
    inline = _INLINE_JSON.match(text)
    if found is not None:
        name, args = found[0], to_input(found[1])
    elif inline:  # "Action: zoom {"image_id": "img_1"}"
        name, args = inline[1], as_input(inline[2])
    else:
        name, _, rest = text.partition("\n")
        args = as_input(rest) if rest.strip() else {}
    if input_text is not None and clean_value(input_text):
        args = as_input(input_text)
    name = trim_name(name)
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        name = name[2:-2]
    if not name:
        raise ParseError("the Action line names no tool", tools)
    return tool_names.resolve(name, tools), args


def _bare_call(text: str, tools: Sequence[str]) -> tuple[str | None, dict] | None:
    """A reply without labels that is a tool call all the same: native JSON tool-call
    syntax, or `tool(args)` naming a known tool. (None, {"input": answer}) is an answer."""
    text = strip_fence(_TOOL_TAGS.sub("", text))
    found = json_call(text) if text.startswith("{") else call(text)
    if found is None:
        return None
    tool, args = tool_names.resolve(trim_name(found[0]), tools), to_input(found[1])
    answer = tool_names.answer_of(tool, args, tools)
    if answer:
        return None, {"input": answer}
    return (tool, args) if tool in tools or text.startswith("{") else None
