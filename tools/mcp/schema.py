"""An MCP tool's input JSON schema as a pydantic `Args` model, so the runner validates an MCP
tool's arguments (and asks the person for missing required ones) exactly as a built-in tool's.

Types map as JSON schema means them: string, integer, number, boolean, array of, object, enum
and const (as `Literal`), `anyOf`/`oneOf` (a null choice makes the field optional), local `$ref`s.
Bounds (minimum, maxLength, …) are kept; whatever cannot be mapped becomes `Any`, left to the
server to check.

A string field that carries image data (named like an image, described as base64 or a data URL,
or `contentEncoding: base64`) takes an image id of the conversation instead: the model cannot
write image bytes, but it can name `img_1`. `image_fields` says how each wants the data.
"""

from __future__ import annotations

import keyword
import re
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, Field, create_model

from tools.base import StrictArgs

ImageEncoding = Literal["data_url", "base64"]

_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict[str, Any],
    "null": type(None),
}
_BOUNDS = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_length",
    "maxItems": "max_length",
}
_IMAGE_NAME = re.compile(r"image|img|photo|picture|screenshot", re.IGNORECASE)
_IMAGE_TEXT = re.compile(r"base64|data[ _-]?ur[li]|image data|encoded image", re.IGNORECASE)
_DATA_URL_TEXT = re.compile(r"data[ _-]?ur[li]", re.IGNORECASE)


class McpArgs(StrictArgs):
    """Arguments of an MCP tool; `model_dump(by_alias=True)` gives the server's own names."""


def image_fields(schema: dict[str, Any]) -> dict[str, ImageEncoding]:
    """The properties that take image data, and whether as a data URL or bare base64."""
    found: dict[str, ImageEncoding] = {}
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict) or prop.get("type") != "string" or "enum" in prop:
            continue
        text = str(prop.get("description") or "")
        bare = prop.get("contentEncoding") == "base64" or prop.get("format") in ("byte", "binary")
        media = str(prop.get("contentMediaType") or "").startswith("image/")
        if bare or media or _IMAGE_NAME.search(name) or _IMAGE_TEXT.search(text):
            says_base64 = "base64" in text.lower() and not _DATA_URL_TEXT.search(text)
            found[name] = "base64" if bare or says_base64 else "data_url"
    return found


def args_model(model_name: str, schema: dict[str, Any]) -> type[BaseModel]:
    """A pydantic model of the tool's arguments: required fields required, types mapped."""
    defs = schema.get("$defs") or schema.get("definitions") or {}
    required = set(schema.get("required") or [])
    images = image_fields(schema)
    fields: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        prop = _resolve(prop, defs) if isinstance(prop, dict) else {}
        annotation = str if name in images else _annotation(prop, defs)
        description = str(prop.get("description") or "")
        if name in images:
            description = (
                "The id of an image of this conversation, e.g. img_1 (the tool is sent the "
                f"image itself). {description}"
            ).strip()
        extra = {
            keyword: prop[key]
            for key, keyword in _BOUNDS.items()
            if isinstance(prop.get(key), int | float) and name not in images
        }
        if name in required:
            default: Any = ...
        else:
            default = prop.get("default")
            annotation = Optional[annotation]  # noqa: UP045 - a runtime type, not a hint
        # A name that is no Python name is renamed; the server still gets its own name.
        field_name = python_name(name)
        alias = name if field_name != name else None
        fields[field_name] = (
            annotation,
            Field(default, description=description or None, serialization_alias=alias, **extra),
        )
    return create_model(model_name, __base__=McpArgs, **fields)


def python_name(name: str) -> str:
    """`name` as a field name pydantic accepts; it still reads as `name` once spaces, `_` and
    `-` are ignored, which is how the agent matches the keys a model writes to fields."""
    text = re.sub(r"\W", "_", name) or "field"
    if text[0].isdigit():
        text = f"n{text}"
    text = text.lstrip("_") or "field"
    if keyword.iskeyword(text) or hasattr(BaseModel, text) or text.startswith("model_"):
        text = f"{text}_"
    return text


def _resolve(prop: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    ref = prop.get("$ref")
    if not isinstance(ref, str) or depth > 8:
        return prop
    target = defs.get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/") else None
    if not isinstance(target, dict):
        return {k: v for k, v in prop.items() if k != "$ref"}
    return _resolve({**target, **{k: v for k, v in prop.items() if k != "$ref"}}, defs, depth + 1)


def _annotation(prop: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> Any:
    if depth > 8:
        return Any
    prop = _resolve(prop, defs)
    if "const" in prop and _literal_ok([prop["const"]]):
        return Literal[prop["const"]]
    if isinstance(prop.get("enum"), list) and prop["enum"] and _literal_ok(prop["enum"]):
        return Literal[tuple(prop["enum"])]
    choices = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(choices, list) and choices:
        mapped = [_annotation(c, defs, depth + 1) for c in choices if isinstance(c, dict)]
        return _union(mapped)
    kind = prop.get("type")
    if isinstance(kind, list):
        return _union([_annotation({**prop, "type": k}, defs, depth + 1) for k in kind])
    if kind == "array":
        items = prop.get("items")
        return list[_annotation(items, defs, depth + 1) if isinstance(items, dict) else Any]
    return _TYPES.get(kind, Any) if isinstance(kind, str) else Any


def _union(types: list[Any]) -> Any:
    if not types or Any in types:
        return Any
    unique = list(dict.fromkeys(types))
    return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # noqa: UP007


def _literal_ok(values: list[Any]) -> bool:
    return all(isinstance(v, str | int | float | bool) for v in values)
