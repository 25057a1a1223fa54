"""A person's reply, in their own words, as the content an MCP elicitation asked for.

An elicitation's schema is flat: an object of strings, numbers, booleans and enums. A reply may
be JSON (`{"color": "blue"}`), `name: value` pairs, or, for the usual one-field question, just the
value ("blue", "yes", "3"). What cannot be read as the schema's values is None: the server is
told the person declined, and the tool says what it does then.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tools.words import LANGUAGES, words

# A boolean written as JSON or as a digit is the same in every language; the words are not.
_YES = {"true", "1"}.union(*(words(language, "tools.mcp.replies.yes") for language in LANGUAGES))
_NO = {"false", "0"}.union(*(words(language, "tools.mcp.replies.no") for language in LANGUAGES))
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_PAIR = re.compile(r"^\s*([\w\- ]+?)\s*[:=：]\s*(.+?)\s*$")


def fit_reply(reply: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The elicitation content for `reply`, or None when it does not fit `schema`."""
    props: dict[str, Any] = {
        k: v for k, v in (schema.get("properties") or {}).items() if isinstance(v, dict)
    }
    required = [name for name in schema.get("required") or [] if name in props]
    given = _given(reply, props)
    if given is None:
        # One value for a one-question form (or the one field it requires).
        only = required if len(required) == 1 else list(props) if len(props) == 1 else []
        if not only:
            return None
        given = {only[0]: reply}
    content: dict[str, Any] = {}
    for name, raw in given.items():
        value = _value(raw, props[name])
        if value is None:
            return None
        content[name] = value
    if any(name not in content for name in required):
        return None
    return content


def _given(reply: str, props: dict[str, Any]) -> dict[str, Any] | None:
    """Named values in the reply: a JSON object, or `name: value` lines or items."""
    try:
        document = json.loads(reply)
    except ValueError:
        document = None
    if isinstance(document, dict):
        found = {k: v for k, v in document.items() if k in props}
        return found or None
    found = {}
    for part in re.split(r"[\n,;，；]", reply):
        match = _PAIR.match(part)
        if match:
            key = match.group(1).strip().lower().replace(" ", "_")
            name = next((p for p in props if p.lower() == key), None)
            if name is not None:
                found[name] = match.group(2)
    return found or None


def _value(raw: Any, prop: dict[str, Any]) -> Any:
    kind = prop.get("type")
    text = str(raw).strip()
    options = prop.get("enum")
    if isinstance(options, list) and options:
        return _choice(text, [str(option) for option in options], options)
    if kind == "boolean":
        if isinstance(raw, bool):
            return raw
        word = text.lower().rstrip(".!。！")
        return True if word in _YES else False if word in _NO else None
    if kind in ("integer", "number"):
        match = _NUMBER.search(text)
        if not match:
            return None
        number = float(match.group())
        return int(number) if kind == "integer" and number.is_integer() else number
    if kind == "array":
        items = prop.get("items")
        items = items if isinstance(items, dict) else {}
        choices = items.get("enum") if isinstance(items.get("enum"), list) else None
        if choices:
            return [str(c) for c in choices if re.search(rf"\b{re.escape(str(c))}\b", text, re.I)]
        return [part.strip() for part in re.split(r"[,;，；]", text) if part.strip()]
    return text if text else None


def _choice(text: str, labels: list[str], options: list[Any]) -> Any:
    lowered = text.lower()
    for label, option in zip(labels, options, strict=True):
        if lowered == label.lower():
            return option
    mentioned = [
        option
        for label, option in zip(labels, options, strict=True)
        if re.search(rf"(?<!\w){re.escape(label.lower())}(?!\w)", lowered)
    ]
    return mentioned[0] if len(mentioned) == 1 else None
