"""A plugin's result as a sentence a person reads, for a model that cannot read JSON itself.

A manifest may give `answer`: per language, a list of template parts whose `{dotted.path}`
placeholders name values in the result ("{resolved.place}", "{daily.temperature_2m_max.0}"); a
part with a value missing is left out, so one template fits a thin answer and a full one.
Without a template the sentence names the fields that matter: the scalar values, with their
units when the result gives them (`current_units` beside `current`), not coordinates, ids or
the service's own bookkeeping.
"""

from __future__ import annotations

import re
from typing import Any

from tools import words
from tools.plugins.manifest import PluginManifest, dig

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")
MAX_FIELDS = 8
# Values a person does not ask a service for.
_NOISE = re.compile(
    r"^(?:lat(?:itude)?|lon(?:gitude)?|lng|id|.*_id|generationtime_ms|utc_offset_seconds|"
    r"timezone_abbreviation|elevation|interval|query|headers|status|.*_code_unit|time)$",
    re.IGNORECASE,
)


def _shown(value: Any) -> str | None:
    if isinstance(value, bool) or value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value).strip()
    return text or None


def from_template(parts: list[str], data: Any) -> str:
    """The parts whose placeholders all have a value, filled and joined; "" when no value
    was found at all."""
    said, filled = [], 0
    for part in parts:
        values = {name: _shown(dig(data, name)) for name in _PLACEHOLDER.findall(part)}
        if all(value is not None for value in values.values()):
            said.append(_PLACEHOLDER.sub(lambda m, v=values: str(v[m.group(1)]), part))
            filled += bool(values)
    return "".join(said).strip() if filled else ""


def fields(data: Any, limit: int = MAX_FIELDS) -> list[tuple[str, str]]:
    """(name, value with its unit) of the scalar values that matter, outer ones first."""
    found: list[tuple[str, str]] = []

    def walk(node: Any, units: dict[str, Any], depth: int) -> None:
        if not isinstance(node, dict) or depth > 2:
            return
        nested = []
        for key, value in node.items():
            if len(found) >= limit or str(key).endswith("_units") or _NOISE.match(str(key)):
                continue
            shown = _shown(value)
            if shown is not None:
                unit = _shown(units.get(key))
                name = str(key).replace("_", " ")
                found.append((name, f"{shown} {unit}" if unit else shown))
            elif isinstance(value, dict):
                nested.append((value, node.get(f"{key}_units") or {}))
        for value, inner_units in nested:
            walk(value, inner_units if isinstance(inner_units, dict) else {}, depth + 1)

    walk(data, {}, 0)
    return found


def sentence(manifest: PluginManifest, data: Any, language: str, question: str = "") -> str:
    """The result of the plugin of `manifest` as one sentence in `language`, with what the
    `question` asks for beyond it (`answer_asked`: tomorrow's forecast, or that there is none)."""
    key = words.language_key(language)
    parts = manifest.answer.get(key) or manifest.answer.get("en") or []
    said = from_template(parts, data) if parts else ""
    if not said:
        w = words.words(key, "tools.plugin_answer")
        named = [w["field"].format(label=label, value=value) for label, value in fields(data)]
        if not named:
            return ""
        said = w["answered"].format(name=manifest.name_for_human, fields=w["join"].join(named))
    for extra in manifest.answer_asked:
        if not question or not re.search(extra.asked, question, re.IGNORECASE):
            continue
        more = from_template(extra.say.get(key) or extra.say.get("en") or [], data)
        more = more or extra.missing.get(key) or extra.missing.get("en") or ""
        if more:
            said = f"{said}{'' if key == 'zh' else ' '}{more}"
    return said
