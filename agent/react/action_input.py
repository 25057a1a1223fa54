"""Reading a tool's input as models write it: JSON, a Python dict, JSON that needs repair, a
`tool(args)` or `tool[arg]` call, keyword arguments, or a bare string (`{"input": ...}`).

Nothing here is evaluated: Python syntax is read with `ast` and only literals are kept.
Broken JSON is repaired within one reply's budget (`repair`), and an input past it is refused
with a sentence.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import warnings
from typing import Any

from .grammar import clean_value
from .repair import REPAIR_REFUSED, repair

MD_ESCAPE = re.compile(r"(?<!\\)\\_")
_FENCE_LANG = re.compile(r"[\w+-]*")
_FENCE_LANG_PREFIX = re.compile(r"^[\w+-]+[ \t]+(?=[{\[])")
_CALL_HEAD = re.compile(r"([A-Za-z_][\w.\-]*)(?:[ \t]*\(|\[)")
# `q=` or a lone `=`: an argument written without its value.
_EMPTY_ARG = re.compile(r"(?:^|,)\s*([A-Za-z_]\w*)?\s*=\s*(?=,|$)")
_EMPTY_INPUT = {"", "none", "null", "n/a", "{}"}
_JSON_WORDS = {"true": True, "false": False, "null": None, "none": None}
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_SCAN_QUOTED = re.compile(r"[\"'\\\\()\[\]{}]")
_SCAN_BARE = re.compile(r"[()\[\]{}]")
_DECODER = json.JSONDecoder()
_BARE = object()  # load's answer for text that is not JSON or a Python literal
_TOO_BROKEN = (
    "the tool input is broken JSON too long to repair; write the Action Input as valid JSON "
    "(double quotes, every bracket closed)"
)
_SCHEMA_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
_SCHEMA_KEYS = {
    "type", "description", "title", "default", "enum", "items", "format", "minimum", "maximum",
    "minLength", "maxLength", "minItems", "maxItems", "pattern", "examples", "example", "anyOf",
    "oneOf", "allOf", "properties", "required", "additionalProperties", "nullable", "const",
    "$schema",
}  # fmt: skip
_NAME_KEYS = ("name", "action", "tool", "tool_name", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "action_input", "tool_input", "input", "params")


class Unreadable(ValueError):
    """The reply has the shape of a step but nothing usable in it; `reason` says what."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def as_input(text: str) -> dict[str, Any]:
    """Action Input text -> a dict, whatever shape the model gave it."""
    text = MD_ESCAPE.sub("_", clean_value(text))
    if text.lower() in _EMPTY_INPUT:
        return {}
    value = load(text)
    if value is REPAIR_REFUSED:
        raise Unreadable(_TOO_BROKEN)
    if value is not _BARE:
        return wrap(value)
    if "=" in text:
        source = f"_({text})"
        node = parse_python(source)
        if isinstance(node, ast.Call) and node.keywords and not node.args:
            return {k.arg or "input": literal(k.value, source) for k in node.keywords}
        empty = _EMPTY_ARG.search(text)
        if empty:
            named = f"the argument {empty[1]}" if empty[1] else "an argument"
            raise Unreadable(f"{named} in the Action Input has `=` but no value")
    return {"input": strip_fence(text)}


def to_input(value: Any) -> dict[str, Any]:
    return as_input(value) if isinstance(value, str) else wrap(value)


def is_blank(text: str) -> bool:
    """No input at all: nothing, or an empty code block."""
    return not strip_fence(clean_value(text))


def call_name(text: str, at: int = 0) -> str | None:
    """The name of a `name(...)` or `name[...]` call that opens at `at`, if one does."""
    head = _CALL_HEAD.match(text, at)
    return head[1] if head else None


def split_call(text: str) -> tuple[str, str, str] | None:
    """`name(...)` or `name[...]` at the start of `text`: the name, what is inside the brackets
    and the text after them. A call the reply ends inside runs to the end of the text."""
    head = _CALL_HEAD.match(text)
    if head is None:
        return None
    opened = head.end() - 1
    close = closing(text, opened)
    if close is None:
        return head[1], text[opened + 1 :], ""
    return head[1], text[opened + 1 : close], text[close + 1 :]


def closing(text: str, opened: int) -> int | None:
    """Where the bracket at `opened` closes, skipping quoted strings; None if it never does."""
    found = _scan(text, opened, quotes=True)
    # An apostrophe in bare words ("it's") opens no string; count brackets alone then.
    return found if found is not None else _scan(text, opened, quotes=False)


def _scan(text: str, opened: int, quotes: bool) -> int | None:
    stack = [_CLOSERS[text[opened]]]
    quote = ""
    # Jump from one character that matters to the next: prose between brackets costs nothing.
    pattern = _SCAN_QUOTED if quotes else _SCAN_BARE
    i = opened + 1
    while (found := pattern.search(text, i)) is not None:
        i = found.start()
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    return None


def call_input(inner: str) -> dict[str, Any]:
    """The arguments of a call: keywords become the input, one positional argument becomes the
    input itself (a dict) or {"input": value}. A one-string list (`search(["cats"])`) is that
    string: the tool's text field, not a list."""
    source = f"_({inner})"
    node = parse_python(source)
    if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return as_input(inner)
    args: dict[str, Any] = {k.arg: literal(k.value, source) for k in node.keywords if k.arg}
    values = [literal(a, source) for a in node.args]
    if len(values) == 1 and not args:
        value = values[0]
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            value = value[0]
        return wrap(value)
    if values:
        args["input"] = values[0] if len(values) == 1 else values
    return args


def json_call(text: str) -> tuple[str, Any] | None:
    """A tool call written as JSON: `{"name": ..., "arguments": ...}`, `{"action": ...,
    "action_input": ...}` and their kin, or OpenAI's `{"function": {...}}`."""
    data = load(MD_ESCAPE.sub("_", text))
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]  # several calls: the first
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("function"), dict):
        data = data["function"]
    names = [data.get(k) for k in _NAME_KEYS]
    name = next((n for n in names if isinstance(n, str) and n.strip()), None)
    key = next((k for k in _ARG_KEYS if k in data), None)
    if name is None or key is None:
        return None
    return name, data[key]


def schema_fields(value: Any) -> list[str] | None:
    """The field names when `value` is a parameter schema echoed back instead of values
    (a JSON Schema object, its Python repr, or `{"query": {"type": "string", ...}}`)."""
    if not isinstance(value, dict) or not value:
        return None
    props = value.get("properties")
    if (
        isinstance(props, dict)
        and set(value) <= _SCHEMA_KEYS
        and (value.get("type") == "object" or "required" in value or _all_fields(props))
    ):
        return [str(k) for k in props]
    if _is_field_schema(value):
        return []
    return [str(k) for k in value] if _all_fields(value) else None


def _all_fields(props: dict[str, Any]) -> bool:
    return bool(props) and all(_is_field_schema(v) for v in props.values())


def _is_field_schema(value: Any) -> bool:
    if not isinstance(value, dict) or not value or not set(value) <= _SCHEMA_KEYS:
        return False
    kind = value.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if kinds and all(isinstance(k, str) and k in _SCHEMA_TYPES for k in kinds):
        return True
    return {"description", "required"} <= set(value) or "anyOf" in value or "oneOf" in value


def load(text: str) -> Any:
    """JSON, then a Python literal, then repaired JSON; `_BARE` when it is none of them, and
    `REPAIR_REFUSED` when it may be broken JSON but is too large to repair."""
    s = strip_fence(text)
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
    node = parse_python(s)
    if isinstance(node, ast.Dict | ast.List | ast.Tuple | ast.Set | ast.Constant):
        return literal(node, s)
    if s[0] in "{[":
        value = repair(s)
        # json_repair answers "" for text it cannot read; that stays a bare string.
        if value is REPAIR_REFUSED or isinstance(value, dict):
            return value
        if isinstance(value, list) and value:
            return value
    return _BARE


def parse_python(source: str) -> ast.expr | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source.strip(), mode="eval").body
    except Exception:  # SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError
        return None


def literal(node: ast.expr, source: str) -> Any:
    """A JSON-ready value from an AST node, never evaluating anything. `true`/`null` count;
    any other expression is kept as its source text."""
    try:
        if isinstance(node, ast.Constant):
            value = node.value
            return value if value is None or isinstance(value, str | int | float) else str(value)
        if isinstance(node, ast.Dict):
            pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True) if k is not None]
            return {_text_key(literal(k, source)): literal(v, source) for k, v in pairs}
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return [literal(e, source) for e in node.elts]
        if isinstance(node, ast.Name) and node.id.lower() in _JSON_WORDS:
            return _JSON_WORDS[node.id.lower()]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = literal(node.operand, source)
            if isinstance(operand, int | float) and not isinstance(operand, bool):
                return -operand if isinstance(node.op, ast.USub) else operand
        return _segment(source, node) or ast.unparse(node)
    except RecursionError:
        return None


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@functools.lru_cache(maxsize=4)
def _source_lines(source: str) -> list[bytes]:
    """The lines of `source` as `ast` counts them (only \\r, \\n and \\r\\n end one), encoded,
    since a node's column offsets count UTF-8 bytes."""
    return [line.encode() for line in _LINE.findall(source)]


def _segment(source: str, node: ast.expr) -> str | None:
    """`ast.get_source_segment`, with the source split once: that function splits it again for
    every node, so `f(a, a, a, ...)` of 16 KB took a minute."""
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    lines = _source_lines(source)
    first, last = node.lineno - 1, node.end_lineno - 1
    if last >= len(lines):
        return None
    if first == last:
        return lines[first][node.col_offset : node.end_col_offset].decode(errors="replace")
    middle = lines[first + 1 : last]
    parts = [lines[first][node.col_offset :], *middle, lines[last][: node.end_col_offset]]
    return b"".join(parts).decode(errors="replace")


def _text_key(key: Any) -> str:
    return key if isinstance(key, str) else json.dumps(key)


def wrap(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {_text_key(k): v for k, v in value.items()}
    return {} if value is None else {"input": value}


def strip_fence(text: str) -> str:
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
