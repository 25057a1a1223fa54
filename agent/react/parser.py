"""Model text -> one ReAct step: an action (a tool and its JSON input) or an answer.

The protocol is the multimodal ReAct header's (`Thought:` / `Action:` / `Action Input:`, the
system's `Observation:`, finishing with `Answer:`) plus the plugin-task prompts' JSON Thought and
`Final Answer:`. Models bend it in many ways (bold, lower-case, Chinese or colon-less labels,
code fences, Python dicts, `tool(args)` calls, JSON call blobs, a made-up Observation, a stop
word cut in half); each is read the way a careful person would read it. The label grammar is
in `labels.py`, tool inputs in `action_input.py`, tool names in `tool_names.py`, calls written
without an Action label in `embedded_calls.py`, and `AnswerStream` (`answer_stream.py`)
forwards the answer while the reply is still streaming.

A reply with both an action and an answer is decided by what the model concluded, in the
order it wrote them:
- An answer before any tool call is the answer; an action written after it is the model running
  on past its conclusion. This is also what can be streamed: the answer reaches the user
  before the rest of the reply exists.
- An answer after the call, with no Observation between, is the answer. The loop stops the
  model at `Observation:`, so a reply that goes on past its call without one did not wait for a
  result: the model concluded (models that always write every label often repeat the previous
  call just before their final answer).
- After an Observation the model wrote itself, or a second Action, the first call stands:
  whatever follows rests on a result the tool has not given.
- An answer that only announces the next step ("I will now search...", "我将搜索") is no
  conclusion: with a tool call in the reply, the call stands.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from . import tool_names
from .action_input import (
    MD_ESCAPE,
    Unreadable,
    as_input,
    call_input,
    is_blank,
    json_call,
    load,
    schema_fields,
    split_call,
    strip_fence,
    to_input,
)
from .answer_stream import AnswerStream
from .embedded_calls import embedded_call
from .grammar import (
    FENCE_LINE,
    Mark,
    clean_value,
    drop_cut_stop,
    is_no_tool,
    is_placeholder,
    labels,
    loose_label_at_start,
    loose_labels,
    spread_midline,
    trim_name,
)
from .reasoning import strip_reasoning
from .repair import repair_budget

__all__ = ["AnswerStream", "ParseError", "Step", "parse_step"]

# Each run of separators is tried once, from its start (a line of 16,000 commas took 8 s).
_INLINE_INPUT = re.compile(
    r"(?<![ \t,;])[ \t,;]++(?:\*\*)?Action[ \t_]*+Input(?:\*\*)?[ \t]*+[:：]", re.I
)
_INLINE_JSON = re.compile(r"^[`*'\"]*([A-Za-z_][\w.\-]*)[`*'\"]*[ \t]*[:,]?[ \t]*([{\[].*)$", re.S)
_NAME = r"[`*'\"]*[A-Za-z_][\w.\-]*[`*'\"]*"
_NAME_ONLY = re.compile(rf"^{_NAME}$")
_NAME_LIKE = re.compile(rf"^{_NAME}(?:[ \t]*[(\[{{].*)?$")
_CODE = re.compile(
    r"^\s*(?:import\s|from\s+\S+\s+import\s|def\s|class\s|for\s.+\sin\s|while\s|"
    r"return\b|const\s|let\s|var\s|await\s|[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?\s*=[^=])"
)
_EMPTY_INPUT = (
    "the Action Input is empty; give the arguments as a JSON object, or {} if the tool takes none"
)


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
        with repair_budget():  # one budget for the whole reply, however many inputs it holds
            step = _parse(drop_cut_stop(text), tools)
    except Unreadable as error:
        raise ParseError(error.reason, tools) from error
    except RecursionError as error:
        raise ParseError("it is nested too deeply to read", tools) from error
    step.raw = text
    return step


def _parse(text: str, tools: Sequence[str]) -> Step:
    marks = labels(text)
    step = _read(text, marks, tools) if marks else None
    if step is None and marks:
        spread = spread_midline(text)
        step = _read(spread, labels(spread), tools) if spread != text else None
    step = step or _read_loose(text, marks, tools) or _embedded_call(text, tools)
    if step is not None:
        return step
    if not marks:
        return Step(kind="answer", answer=text.strip())
    if any(mark.kind == "actioninput" for mark in marks):
        raise Unreadable("there is an Action Input but no Action line naming the tool")
    raise Unreadable("it has no Action or Answer")


def _read(text: str, marks: list[Mark], tools: Sequence[str]) -> Step | None:
    """Decide between the labelled actions and answers by the rule in the module docstring."""
    ends = [mark.start for mark in marks[1:]] + [len(text)]
    values = [text[mark.end : stop] for mark, stop in zip(marks, ends, strict=True)]
    thought = FENCE_LINE.sub("", text[: marks[0].start])
    call: tuple[int, str] | None = None
    waiting: tuple[str, str] | None = None  # a placeholder answer, if nothing better comes
    for i, mark in enumerate(marks):
        if mark.kind == "thought":
            thought = values[i]
        elif mark.kind == "answer":
            if is_placeholder(values[i]):
                waiting = None if call is not None else (values[i], thought)
                continue
            answer = clean_value(values[i])
            if answer:
                return Step(kind="answer", answer=answer, **_thought(thought))
            if call is not None:
                break
            raise Unreadable("the Answer is empty")
        elif mark.kind == "action":
            if call is not None:
                break
            if not is_no_tool(values[i].split("\n", 1)[0]):
                call, waiting = (i, thought), None
        elif mark.kind == "observation" and call is not None:
            break
    if call is not None:
        i, thought = call
        has_input = i + 1 < len(marks) and marks[i + 1].kind == "actioninput"
        return _action(values[i], values[i + 1] if has_input else None, thought, tools)
    if waiting is not None:
        return Step(kind="answer", answer=clean_value(waiting[0]), **_thought(waiting[1]))
    return None


def _read_loose(text: str, marks: list[Mark], tools: Sequence[str]) -> Step | None:
    """Labels written without colons (`Action search`, `Action Input {...}`). A colon-less
    Action counts when it names a known tool or an Action Input follows it; the other labels
    count only around such an Action, so prose that starts a line with "Action" stays prose."""
    taken = {mark.start for mark in marks}
    found = sorted(
        [(m, rest) for m, rest in loose_labels(text) if m.start not in taken]
        + [(m, None) for m in marks],
        key=lambda pair: pair[0].start,
    )
    kept: list[Mark] = []
    acted = False
    for n, (mark, rest) in enumerate(found):
        if rest is None or (mark.kind == "thought" and not text[: mark.start].strip()):
            kept.append(mark)
        elif mark.kind == "action" and _NAME_LIKE.match(rest):
            follows = found[n + 1][0].kind if n + 1 < len(found) else ""
            name = trim_name(re.split(r"[\s(\[{]", rest.strip("`*'\""), maxsplit=1)[0])
            if follows == "actioninput" or tool_names.known(name, tools):
                kept.append(mark)
                acted = True
        elif mark.kind in ("actioninput", "observation") and acted:
            kept.append(mark)
        elif mark.kind == "answer" and kept:
            kept.append(mark)
            acted = True
    return _read(text, kept, tools) if acted else None


def _embedded_call(text: str, tools: Sequence[str]) -> Step | None:
    found = embedded_call(text, tools)
    return _call_step(*found, tools) if found else None


def _action(value: str, input_text: str | None, thought: str, tools: Sequence[str]) -> Step:
    """An Action label's value (and its Action Input's, when there is one) -> the step."""
    text = MD_ESCAPE.sub("_", clean_value(value))
    first, _, rest = text.partition("\n")
    same_line = _INLINE_INPUT.search(first)
    if input_text is None and same_line:  # "Action: zoom, Action Input: {...}"
        text, input_text = text[: same_line.start()], text[same_line.end() :]
    elif input_text is None:
        loose = loose_label_at_start(rest)
        if loose and loose[0].kind == "actioninput":  # "Action Input {...}" without a colon
            text, input_text = first, rest[loose[0].end :]
    name, args = _name_and_args(text, tools)
    if input_text is not None:
        if is_blank(input_text):
            raise Unreadable(_EMPTY_INPUT)
        args = as_input(input_text)
    name = trim_name(name)
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        name = name[2:-2]
    if not name:
        raise Unreadable("the Action line names no tool")
    return _call_step(name, args, thought, tools)


def _name_and_args(text: str, tools: Sequence[str]) -> tuple[str, dict[str, Any]]:
    if text.startswith("```"):
        inner = strip_fence(text)
        blob = json_call(text)
        if blob is not None:
            return blob[0], to_input(blob[1])
        call = _code_call(inner, tools)
        if call is not None:
            return call
        if _NAME_ONLY.match(inner):
            return inner, {}
        raise Unreadable(
            "the Action holds code; write only the tool name on the Action line and its "
            "arguments as JSON on the Action Input line"
        )
    if text.startswith(("{", "[")):
        call = json_call(text)
        if call is None:
            raise Unreadable("the Action line holds arguments but no tool name")
        return call[0], to_input(call[1])
    parts = split_call(text)
    if parts is not None:
        return parts[0], call_input(parts[1])
    inline = _INLINE_JSON.match(text)
    if inline:  # "Action: zoom {"image_id": "img_1"}"
        return inline[1], as_input(inline[2])
    name, _, rest = text.partition("\n")
    if _CODE.match(name):
        raise Unreadable("the Action line holds code, not a tool name")
    return name, as_input(rest) if rest.strip() else {}


def _code_call(inner: str, tools: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """A fenced `tool(...)` call, when it names a known tool (or any, without a tool list)."""
    parts = split_call(inner)
    if parts is None or parts[2].strip():
        return None
    name = parts[0]
    if tools and not tool_names.is_callable(name, tools):
        return None
    return name, call_input(parts[1])


def _call_step(name: str, args: dict[str, Any], thought: str, tools: Sequence[str]) -> Step:
    name = trim_name(name)
    answer = tool_names.answer_of(name, args, tools)
    if answer:
        return Step(kind="answer", answer=answer, **_thought(thought))
    if tool_names.is_answer_tool(name, tools):
        raise Unreadable("the final answer is empty")
    fields = schema_fields(args)
    if fields is not None:
        example = json.dumps({fields[0] if fields else "input": "..."})
        raise Unreadable(
            "the Action Input repeats the tool's parameter schema instead of giving values; "
            f"write the values themselves, e.g. {example}"
        )
    tool = tool_names.resolve(name, tools)
    return Step(kind="action", tool=tool, tool_input=args, **_thought(thought))


def _thought(value: str) -> dict[str, Any]:
    text = clean_value(value)
    data = load(text) if text.startswith(("{", "```")) else None
    if not isinstance(data, dict):
        return {"thought": text, "thought_data": None}
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    return {"thought": content or "", "thought_data": data}
