"""Reading a tool's input as models write it: JSON, a Python dict, JSON that needs repair, a
`tool(args)` call, keyword arguments, or a bare string (`{"input": ...}`).

Nothing here is evaluated: Python syntax is read with `ast` and only literals are kept.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from typing import Any

import json_repair

from .labels import clean_value

MD_ESCAPE = re.compile(r"(?<!\\)\\_")
_FENCE_LANG = re.compile(r"[\w+-]*")
_FENCE_LANG_PREFIX = re.compile(r"^[\w+-]+[ \t]+(?=[{\[])")
_CALL = re.compile(r"^([A-Za-z_][\w.\-]*)[ \t]*\((.*)\)\s*$", re.DOTALL)
_EMPTY_INPUT = {"", "none", "null", "n/a", "{}"}
_JSON_WORDS = {"true": True, "false": False, "null": None, "none": None}
_DECODER = json.JSONDecoder()
_BARE = object()  # load's answer for text that is not JSON or a Python literal


def as_input(text: str) -> dict[str, Any]:
    """Action Input text -> a dict, whatever shape the model gave it."""
    text = MD_ESCAPE.sub("_", clean_value(text))
    if text.lower() in _EMPTY_INPUT:
        return {}
    value = load(text)
    if value is not _BARE:
        return wrap(value)
    source = f"_({text})"
    node = parse_python(source) if "=" in text else None
    if isinstance(node, ast.Call) and node.keywords and not node.args:
        return {k.arg or "input": literal(k.value, source) for k in node.keywords}
    return {"input": strip_fence(text)}


def to_input(value: Any) -> dict[str, Any]:
    return as_input(value) if isinstance(value, str) else wrap(value)


def call(text: str) -> tuple[str, dict] | None:
    """`tool(...)` call syntax, read with `ast`: keywords become the input, one positional
    argument becomes the input itself (a dict) or {"input": value}."""
    match = _CALL.match(text)
    if match is None:
        return None
    name, inner = match[1], match[2]
    source = f"_({inner})"
    node = parse_python(source)
    if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return name, as_input(inner)
    args: dict[str, Any] = {k.arg: literal(k.value, source) for k in node.keywords if k.arg}
    values = [literal(a, source) for a in node.args]
    if len(values) == 1 and not args:
        return name, wrap(values[0])
    if values:
        args["input"] = values[0] if len(values) == 1 else values
    return name, args


def json_call(text: str) -> tuple[str, Any] | None:
    """A tool call written as JSON: `{"name": ..., "arguments": ...}` and its kin."""
    data = load(text)
    if not isinstance(data, dict):
        return None
    names = [data.get(k) for k in ("name", "action", "tool", "tool_name")]
    name = next((n for n in names if isinstance(n, str) and n.strip()), None)
    keys = ("arguments", "parameters", "args", "action_input", "tool_input", "input")
    key = next((k for k in keys if k in data), None)
    if name is None or key is None:
        return None
    return name, data[key]


def load(text: str) -> Any:
    """JSON, then a Python literal, then repaired JSON; `_BARE` when it is none of them."""
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
        try:
            value = json_repair.loads(s)
        except Exception:
            value = None
        # json_repair answers "" for text it cannot read; that stays a bare string.
        if isinstance(value, dict) or (isinstance(value, list) and value):
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
        return ast.get_source_segment(source, node) or ast.unparse(node)
    except RecursionError:
        return None


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
