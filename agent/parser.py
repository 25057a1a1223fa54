"""Model text -> one ReAct step: an action (a tool and its JSON input) or an answer.

The protocol is the multimodal ReAct header's (`Thought:` / `Action:` / `Action Input:`, the
system's `Observation:`, finishing with `Answer:`) plus the plugin-task prompts' JSON Thought and
`Final Answer:`. Models bend it in many ways (bold or lower-case labels, full-width colons, code
fences, Python dicts, `tool(args)` calls, a made-up Observation); each is read the way a careful
person would read it. `AnswerStream` forwards the answer while the reply is still streaming.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import json_repair
from pydantic import BaseModel, Field

from .reasoning import strip_reasoning

__all__ = ["AnswerStream", "ParseError", "Step", "parse_step"]

_SEP = r"[ \t_]{0,3}"
# A label starts a line. Every piece is bounded so a label is decided within its first 64
# characters (AnswerStream relies on that), and nothing crosses a newline. Bold opened before
# the label and not closed before the colon (`**Answer:**`) is closed after it.
_LABEL = re.compile(
    r"^[ \t]{0,8}(?:#{1,6}[ \t]{0,3})?(?:[-*•>][ \t]{1,3})?(?P<b1>\*\*|__|\*)?[ \t]{0,3}"
    rf"(?P<label>thoughts?|action{_SEP}input|action|final{_SEP}answer|answer|observations?)"
    r"[ \t]{0,3}(?P<b2>(?P=b1))?[ \t]{0,3}[:：](?(b1)(?(b2)|[ \t]{0,3}(?P=b1)?))",
    re.IGNORECASE | re.MULTILINE | re.ASCII,
)
_LABEL_SPAN = 64
_LABEL_WORDS = "thought thoughts action actioninput finalanswer answer observation observations"
# Labels written mid-line ("Thought: ... Action: zoom"), read only when nothing else decides.
_MIDLINE = re.compile(
    r"(?<=\S)[ \t]+(?=(?:\*\*)?(?:Action Input|Action|Final Answer|Answer|Observation)"
    r"(?:\*\*)?[ \t]*[:：])"
)
_FENCE_LANG = re.compile(r"[\w+-]*")
_FENCE_LANG_PREFIX = re.compile(r"^[\w+-]+[ \t]+(?=[{\[])")
_FENCE_LINE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_CALL = re.compile(r"^([A-Za-z_][\w.\-]*)[ \t]*\((.*)\)\s*$", re.DOTALL)
_INLINE_INPUT = re.compile(r"[ \t,;]+(?:\*\*)?Action[ \t_]*Input(?:\*\*)?[ \t]*[:：]", re.I)
_INLINE_JSON = re.compile(r"^[`*'\"]*([A-Za-z_][\w.\-]*)[`*'\"]*[ \t]*[:,]?[ \t]*([{\[].*)$", re.S)
_LABEL_GAP = re.compile(r"[ \t_]")
_NAME_GAP = re.compile(r"[\s_\-]+")
_TOOL_SUFFIX = re.compile(r"\s+tool$", re.IGNORECASE)
_MD_ESCAPE = re.compile(r"(?<!\\)\\_")
_TOOL_TAGS = re.compile(r"</?tool_call>|<\|python_tag\|>|<\|eom_id\|>|<\|eot_id\|>")
_NO_TOOL = {"none", "n/a", "null", "no action", "nothing", "no tool"}
_EMPTY_INPUT = {"", "none", "null", "n/a", "{}"}
_JSON_WORDS = {"true": True, "false": False, "null": None, "none": None}
_DECODER = json.JSONDecoder()
_BARE = object()  # _load's answer for text that is not JSON or a Python literal


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
    marks = _labels(text)
    if not marks:
        call = _bare_call(text, tools)
        if call is None:
            return Step(kind="answer", answer=text.strip())
        if call[0] is None:
            return Step(kind="answer", answer=call[1]["input"])
        return Step(kind="action", tool=call[0], tool_input=call[1])
    step = _read(text, marks, tools)
    if step is None:
        spread = _MIDLINE.sub("\n", text)
        step = _read(spread, _labels(spread), tools) if spread != text else None
    if step is None:
        kinds = {kind for kind, _, _ in marks}
        reason = "there is an Action Input but no Action line naming the tool"
        raise ParseError(reason if "actioninput" in kinds else "it has no Action or Answer", tools)
    return step


def _labels(text: str) -> list[tuple[str, int, int]]:
    return [(_kind(m), m.start(), m.end()) for m in _LABEL.finditer(text)]


def _kind(match: re.Match[str]) -> str:
    word = _LABEL_GAP.sub("", match["label"].lower()).rstrip("s")
    return "answer" if word == "finalanswer" else word


def _read(text: str, marks: list[tuple[str, int, int]], tools: Sequence[str]) -> Step | None:
    """The first Action or Answer decides; what follows an Action (a guessed Observation or
    Answer) is dropped, since the tool has not run yet."""
    ends = [start for _, start, _ in marks[1:]] + [len(text)]
    values = [text[end:stop] for (_, _, end), stop in zip(marks, ends, strict=True)]
    thought = _FENCE_LINE.sub("", text[: marks[0][1]])
    for i, (kind, _, _) in enumerate(marks):
        if kind == "thought":
            thought = values[i]
        elif kind == "answer":
            answer = _clean_value(values[i])
            if not answer:
                raise ParseError("the Answer is empty", tools)
            return Step(kind="answer", answer=answer, **_thought(thought))
        elif kind == "action":
            if _is_no_tool(values[i].split("\n", 1)[0]):
                continue
            has_input = i + 1 < len(marks) and marks[i + 1][0] == "actioninput"
            tool, tool_input = _action(values[i], values[i + 1] if has_input else None, tools)
            answer = _answer_tool(tool, tool_input, tools)
            if answer:
                return Step(kind="answer", answer=answer, **_thought(thought))
            return Step(kind="action", tool=tool, tool_input=tool_input, **_thought(thought))
    return None


def _thought(value: str) -> dict[str, Any]:
    text = _clean_value(value)
    data = _load(text) if text.startswith(("{", "```")) else None
    if not isinstance(data, dict):
        return {"thought": text, "thought_data": None}
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    return {"thought": content or "", "thought_data": data}


def _action(value: str, input_text: str | None, tools: Sequence[str]) -> tuple[str, dict]:
    text = _MD_ESCAPE.sub("_", _clean_value(value))
    same_line = _INLINE_INPUT.search(text.split("\n", 1)[0])
    if same_line and input_text is None:  # "Action: zoom, Action Input: {...}"
        text, input_text = text[: same_line.start()], text[same_line.end() :]
    call = _call(text) or (_json_call(text) if text.startswith(("{", "```")) else None)
    inline = _INLINE_JSON.match(text)
    if call is not None:
        name, args = call[0], _to_input(call[1])
    elif inline:  # "Action: zoom {"image_id": "img_1"}"
        name, args = inline[1], _as_input(inline[2])
    else:
        name, _, rest = text.partition("\n")
        args = _as_input(rest) if rest.strip() else {}
    if input_text is not None and _clean_value(input_text):
        args = _as_input(input_text)
    name = _trim_name(name)
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        name = name[2:-2]
    if not name:
        raise ParseError("the Action line names no tool", tools)
    return _resolve(name, tools), args


def _resolve(name: str, tools: Sequence[str]) -> str:
    if name in tools:
        return name
    known = _keys(tuple(tools))
    for candidate in (name, name.rsplit(".", 1)[-1], _TOOL_SUFFIX.sub("", name)):
        if _key(candidate) in known:
            return known[_key(candidate)]
    return name


@functools.lru_cache(maxsize=64)
def _keys(tools: tuple[str, ...]) -> dict[str, str]:
    return {_key(tool): tool for tool in tools}


def _trim_name(name: str) -> str:
    return name.strip().lstrip(" \t*`'\"[<").rstrip(" \t*`'\".,;:!?]>").strip()


def _key(name: str) -> str:
    return _NAME_GAP.sub("_", name.strip().lower())


def _is_no_tool(line: str) -> bool:
    return _trim_name(line).lower() in _NO_TOOL


def _bare_call(text: str, tools: Sequence[str]) -> tuple[str | None, dict] | None:
    """A reply without labels that is a tool call all the same: native JSON tool-call
    syntax, or `tool(args)` naming a known tool. (None, {"input": answer}) is an answer."""
    text = _strip_fence(_TOOL_TAGS.sub("", text))
    call = _json_call(text) if text.startswith("{") else _call(text)
    if call is None:
        return None
    tool, args = _resolve(_trim_name(call[0]), tools), _to_input(call[1])
    answer = _answer_tool(tool, args, tools)
    if answer:
        return None, {"input": answer}
    return (tool, args) if tool in tools or text.startswith("{") else None


def _answer_tool(tool: str, args: dict[str, Any], tools: Sequence[str]) -> str | None:
    """`Final Answer` written as a tool (as JSON-style agents do): its input is the answer."""
    if tool in tools or _key(tool) not in {"final_answer", "answer"} or not args:
        return None
    value = next(iter(args.values())) if len(args) == 1 else args
    return value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _json_call(text: str) -> tuple[str, Any] | None:
    data = _load(text)
    if not isinstance(data, dict):
        return None
    names = [data.get(k) for k in ("name", "action", "tool", "tool_name")]
    name = next((n for n in names if isinstance(n, str) and n.strip()), None)
    keys = ("arguments", "parameters", "args", "action_input", "tool_input", "input")
    key = next((k for k in keys if k in data), None)
    if name is None or key is None:
        return None
    return name, data[key]


def _call(text: str) -> tuple[str, dict] | None:
    """`tool(...)` call syntax, read with `ast`: keywords become the input, one positional
    argument becomes the input itself (a dict) or {"input": value}."""
    match = _CALL.match(text)
    if match is None:
        return None
    name, inner = match[1], match[2]
    source = f"_({inner})"
    node = _parse_python(source)
    if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return name, _as_input(inner)
    args: dict[str, Any] = {k.arg: _literal(k.value, source) for k in node.keywords if k.arg}
    values = [_literal(a, source) for a in node.args]
    if len(values) == 1 and not args:
        return name, _wrap(values[0])
    if values:
        args["input"] = values[0] if len(values) == 1 else values
    return name, args


def _to_input(value: Any) -> dict[str, Any]:
    return _as_input(value) if isinstance(value, str) else _wrap(value)


def _as_input(text: str) -> dict[str, Any]:
    """Action Input text -> a dict, whatever shape the model gave it."""
    text = _MD_ESCAPE.sub("_", _clean_value(text))
    if text.lower() in _EMPTY_INPUT:
        return {}
    value = _load(text)
    if value is not _BARE:
        return _wrap(value)
    source = f"_({text})"
    node = _parse_python(source) if "=" in text else None
    if isinstance(node, ast.Call) and node.keywords and not node.args:
        return {k.arg or "input": _literal(k.value, source) for k in node.keywords}
    return {"input": _strip_fence(text)}


def _load(text: str) -> Any:
    """JSON, then a Python literal, then repaired JSON; `_BARE` when it is none of them."""
    s = _strip_fence(text)
    if not s:
        return None
    if s.startswith("{{") and s.endswith("}}"):  # braces doubled as in the prompt template
        s = s[1:-1]
    try:
        value, end = _DECODER.raw_decode(s)
        if isinstance(value, dict | list) or not s[end:].strip():
            return value
    except (ValueError, RecursionError):
        pass
    node = _parse_python(s)
    if isinstance(node, ast.Dict | ast.List | ast.Tuple | ast.Set | ast.Constant):
        return _literal(node, s)
    if s[0] in "{[":
        try:
            value = json_repair.loads(s)
        except Exception:
            value = None
        # json_repair answers "" for text it cannot read; that stays a bare string.
        if isinstance(value, dict) or (isinstance(value, list) and value):
            return value
    return _BARE


def _parse_python(source: str) -> ast.expr | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source.strip(), mode="eval").body
    except Exception:  # SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError
        return None


def _literal(node: ast.expr, source: str) -> Any:
    """A JSON-ready value from an AST node, never evaluating anything. `true`/`null` count;
    any other expression is kept as its source text."""
    try:
        if isinstance(node, ast.Constant):
            value = node.value
            return value if value is None or isinstance(value, str | int | float) else str(value)
        if isinstance(node, ast.Dict):
            pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True) if k is not None]
            return {_text_key(_literal(k, source)): _literal(v, source) for k, v in pairs}
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return [_literal(e, source) for e in node.elts]
        if isinstance(node, ast.Name) and node.id.lower() in _JSON_WORDS:
            return _JSON_WORDS[node.id.lower()]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = _literal(node.operand, source)
            if isinstance(operand, int | float) and not isinstance(operand, bool):
                return -operand if isinstance(node.op, ast.USub) else operand
        return ast.get_source_segment(source, node) or ast.unparse(node)
    except RecursionError:
        return None


def _text_key(key: Any) -> str:
    return key if isinstance(key, str) else json.dumps(key)


def _wrap(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {_text_key(k): v for k, v in value.items()}
    return {} if value is None else {"input": value}


def _strip_fence(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text[3:].removesuffix("```")
        first, newline, rest = text.partition("\n")
        if newline and _FENCE_LANG.fullmatch(first.strip()):
            return rest.strip()
        return _FENCE_LANG_PREFIX.sub("", text).strip()
    if len(text) > 1 and text[0] == text[-1] == "`":
        return text.strip("`").strip()
    return text


def _clean_value(value: str) -> str:
    """Trim a label's value: whitespace, a closing fence left unmatched (the end of a fence
    around the whole reply) and an unmatched closing `**` (from `**Answer: ...**`)."""
    value = value.strip()
    last_line = value.rsplit("\n", 1)[-1]
    if last_line.strip() == "```" and len(_FENCE_LINE.findall(value)) % 2:
        value = value[: len(value) - len(last_line)].rstrip()
    if value.endswith("**") and value.count("**") % 2:
        value = value[:-2].rstrip()
    return value


def _maybe_label(line: str) -> bool:
    """Whether an unfinished line could still become a label (never False when it could)."""
    if len(line) > _LABEL_SPAN:
        return False
    core = _LABEL_GAP.sub("", line.lstrip(" \t#>-•*_").lower())
    for word in _LABEL_WORDS.split():
        if word.startswith(core) or (core.startswith(word) and not core[len(word) :].strip("*")):
            return True
    return False


class AnswerStream:
    """Forwards the answer of a streaming reply: the text after a line-start `Answer:` or
    `Final Answer:` label, exactly as `parse_step` will read it, and nothing before it.

    It holds back only what may still change: a line that may become a label (which ends the
    answer), and trailing whitespace, `*` and backticks (trimmed from the end of an answer).
    After an `Action:` line it forwards nothing. A reply that `parse_step` reads as an answer
    without a line-start label (plain prose) streams nothing here; the caller sends the parsed
    answer when this stream stayed empty.
    """

    def __init__(self) -> None:
        self._mode = "seek"  # seek -> answer -> done, or seek -> done after an Action
        self._state = "open"  # this line: open (may be a label), through, skip, action
        self._line = ""
        self._value: list[str] = []  # the raw answer, for the final trim in finish()
        self._pending: list[str] = []  # held back: it may yet be trimmed from the end
        self._started = False
        self._sent = 0

    def feed(self, chunk: str) -> str:
        out: list[str] = []
        pos = 0
        while pos < len(chunk) and self._mode != "done":
            end = chunk.find("\n", pos)
            stop = len(chunk) if end < 0 else end
            out.append(self._take(chunk[pos:stop], end >= 0))
            pos = stop + 1
        return "".join(out)

    def finish(self) -> str:
        """The rest of the answer, trimmed as `parse_step` trims it."""
        out = ""
        if self._state == "open" and self._mode != "done":
            match = _LABEL.match(self._line)
            if match is None and self._mode == "answer":
                out = self._push(self._line)
            elif match is not None and self._mode == "seek" and _kind(match) == "answer":
                out = self._push(self._line[match.end() :])
        self._mode, self._line = "done", ""
        final = _clean_value("".join(self._value))
        tail, self._sent = final[self._sent :], max(self._sent, len(final))
        return out + tail

    def _take(self, piece: str, ends_line: bool) -> str:
        out = ""
        if self._state == "through":
            out = self._push(piece)
        elif self._state != "skip":
            self._line += piece
            if self._state == "open":
                out = self._decide(ends_line)
            elif len(self._line) > _LABEL_SPAN:  # too long for "none": it names a tool
                self._mode = "done"
        if ends_line:
            if self._state == "action" and not _is_no_tool(self._line):
                self._mode = "done"
            elif self._state == "through":
                out += self._push("\n")
            self._line, self._state = "", "open"
        return out

    def _decide(self, ends_line: bool) -> str:
        line = self._line
        match = _LABEL.match(line)
        if match is None:
            if ends_line or not _maybe_label(line):
                self._line = ""
                self._state = "through" if self._mode == "answer" else "skip"
                return self._push(line) if self._mode == "answer" else ""
            return ""
        kind = _kind(match)
        if self._mode == "answer":
            self._mode = "done"  # any label ends the answer
        elif kind == "answer":
            rest = line[match.end() :]
            # Wait while a closing `**` may still follow the colon.
            if ends_line or rest.strip(" \t*_") or len(rest) >= 6:
                self._mode, self._state, self._line = "answer", "through", ""
                return self._push(rest)
        elif kind == "action":
            self._state, self._line = "action", line[match.end() :]
        else:
            self._state = "skip"
        return ""

    def _push(self, text: str) -> str:
        self._value.append(text)
        if not self._started:
            text = text.lstrip()
            if not text:
                return ""
            self._started = True
        keep = len(text)
        while keep and (text[keep - 1].isspace() or text[keep - 1] in "*`"):
            keep -= 1
        if not keep:
            self._pending.append(text)
            return ""
        out = "".join(self._pending) + text[:keep]
        self._pending = [text[keep:]]
        self._sent += len(out)
        return out
