"""The manifest of an HTTP plugin: its layout, its validation, and its arguments as a model.

Manifest layout (the plugin format of the task-dialogue prompts, made explicit)::

    {
      "name_for_model": "query_express",          # the tool name: letters, digits, _
      "name_for_human": "Parcel tracking",
      "description_for_human": "Track a parcel by its number.",
      "description_for_model": "Optional; used as the tool description when given.",
      "url": "https://api.example.com/track/{carrier}",   # {name}: one path segment
      "method": "GET",                            # GET: arguments in the query string;
                                                  # POST: arguments as a JSON body
      "headers": {"Accept": "application/json",
                  "X-API-Key": {"env": "EXPRESS_KEY", "prefix": ""}},   # secret from env
      "request_body": [                           # parameters, each one field:
        {"name": "number", "description": "The tracking number.", "required": true,
         "type": "string", "enum": []},
        {"name": "carrier", "description": "Who ships it.", "required": true,
         "type": "string", "enum": ["ups", "dhl"]}
      ],
      "triggers": ["\\\\btrack\\\\b", "快递"],          # regexes for the offline model
      "extract": {"number": ["\\\\b(\\\\d{10,})\\\\b"],     # regexes whose group 1 is a value,
                  "carrier": [{"pattern": "敦豪", "value": "dhl"}]},   # or a value if it matches
      "timeout_seconds": 10,                      # for the whole call, default 10
      "max_response_bytes": 1000000,              # larger answers are refused, default 1 MB
      "enabled_by": "AGENT_ENABLE_EXPRESS",       # optional: load only when truthy
      "base_url_env": "EXPRESS_BASE_URL"          # optional: replaces scheme://host[:port]
    }

Instead of `request_body`, parameters may be an OpenAPI-style JSON Schema:
`"parameters": {"type": "object", "properties": {"number": {"type": "string",
"description": "..."}}, "required": ["number"]}`. Field types: string, integer, number,
boolean (the `is_required`/`parament_type` spellings of the original plugin demo are read
too). A free-text `comment` key is allowed; any other unknown key is an error.

A service that needs two calls (a name looked up first, then the real request) declares `steps`
instead of `url`/`method`: each step has `url`, `method`, `query` (or `body`) whose values may be
templates such as "{city}", and, on all but the last step, `extract`: names bound to dotted paths
in that step's JSON answer ("results.0.latitude"), usable by later steps. `not_found` is the
sentence given when an extract path is missing. The extracted values are returned under
`resolved` next to the last answer.

`answer` says the result as a sentence, per language: template parts with dotted paths into
the result ("{resolved.place}"), each left out when a value is missing (`tools.plugins.answer`).
`answer_asked` adds to it for a question that asks for more (`asked`, a regex: "tomorrow"):
its own parts per language (`say`), or, when the result has none of their values, `missing`,
the sentence that says so.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from tools.base import StrictArgs, ToolSettings

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ManifestError(ValueError):
    """A manifest that cannot become a tool; the message names the file and the problem."""


def _compile(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as error:
        raise ValueError(f"{pattern!r} is not a valid regular expression: {error}") from None


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class EnvSecret(_Spec):
    env: str
    prefix: str = ""


class FieldSpec(_Spec):
    name: str
    description: str = ""
    required: bool = Field(default=False, validation_alias=AliasChoices("required", "is_required"))
    type: str = Field(default="string", validation_alias=AliasChoices("type", "parament_type"))
    enum: list[str | int | float] = Field(default_factory=list)
    default: Any = None


class ExtractRule(_Spec):
    """A fixed value to use when `pattern` matches (e.g. language "zh" for Chinese text)."""

    pattern: str
    value: str | int | float | bool


# Manifests write "get" as often as "GET".
HttpMethod = Annotated[
    Literal["GET", "POST"], BeforeValidator(lambda v: v.upper() if isinstance(v, str) else v)
]


class StepSpec(_Spec):
    url: str
    method: HttpMethod = "GET"
    query: dict[str, Any] | None = None
    body: dict[str, Any] | None = None
    extract: dict[str, str] = Field(default_factory=dict)
    not_found: str = ""

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        if urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc:
            raise ValueError("url must be an absolute http(s) URL")
        return value


class AskedAnswer(_Spec):
    """More to say when the question asks for it; `missing` when the result has none of it."""

    asked: str
    say: dict[str, list[str]] = Field(default_factory=dict)
    missing: dict[str, str] = Field(default_factory=dict)

    @field_validator("asked")
    @classmethod
    def _pattern(cls, value: str) -> str:
        _compile(value)
        return value


class PluginManifest(_Spec):
    name_for_model: str = Field(
        validation_alias=AliasChoices("name_for_model", "unique_name_for_model")
    )
    name_for_human: str
    description_for_human: str
    description_for_model: str = ""
    url: str = ""
    method: HttpMethod = "GET"
    headers: dict[str, str | EnvSecret] = Field(default_factory=dict)
    request_body: list[FieldSpec] = Field(default_factory=list)
    parameters: dict[str, Any] | None = None
    steps: list[StepSpec] = Field(default_factory=list)
    triggers: list[str] = Field(default_factory=list)
    extract: dict[str, list[str | ExtractRule]] = Field(default_factory=dict)
    timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    max_response_bytes: int = Field(default=1_000_000, gt=0, le=50_000_000)
    enabled_by: str = ""
    base_url_env: str = ""
    comment: str = ""
    answer: dict[str, list[str]] = Field(default_factory=dict)
    answer_asked: list[AskedAnswer] = Field(default_factory=list)

    @field_validator("name_for_model")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError("name_for_model must be letters, digits and _, starting with a letter")
        return value

    @field_validator("triggers")
    @classmethod
    def _patterns(cls, value: list[str]) -> list[str]:
        for pattern in value:
            _compile(pattern)
        return value

    @field_validator("extract")
    @classmethod
    def _extract_patterns(cls, value: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for rules in value.values():
            for rule in rules:
                _compile(rule.pattern if isinstance(rule, ExtractRule) else rule)
        return value

    @model_validator(mode="after")
    def _one_request(self) -> PluginManifest:
        if bool(self.url) == bool(self.steps):
            raise ValueError("give either url (one call) or steps (a chain of calls), not both")
        if self.url:
            self.steps = [StepSpec(url=self.url, method=self.method)]
        if self.request_body and self.parameters is not None:
            raise ValueError("give parameters either as request_body or as parameters, not both")
        return self

    def fields(self) -> list[FieldSpec]:
        if self.parameters is None:
            return list(self.request_body)
        required = set(self.parameters.get("required", []))
        return [
            FieldSpec(
                name=name,
                description=prop.get("description", ""),
                required=name in required,
                type=prop.get("type", "string"),
                enum=prop.get("enum", []),
                default=prop.get("default"),
            )
            for name, prop in self.parameters.get("properties", {}).items()
        ]


_TYPES: dict[str, type] = {
    "string": str,
    "str": str,
    "integer": int,
    "int": int,
    "number": float,
    "float": float,
    "boolean": bool,
    "bool": bool,
}


def build_args_model(manifest: PluginManifest) -> type[BaseModel]:
    """The pydantic model of a plugin's arguments: required, optional, enum and typed fields."""
    definitions: dict[str, Any] = {}
    for spec in manifest.fields():
        if not NAME.match(spec.name) or spec.name.startswith("model_"):
            raise ValueError(f"parameter name {spec.name!r} must be letters, digits and _")
        if spec.type.lower() not in _TYPES:
            raise ValueError(f"parameter {spec.name!r} has unknown type {spec.type!r}")
        annotation: Any = _TYPES[spec.type.lower()]
        description = spec.description
        if spec.enum:
            annotation = Literal[tuple(spec.enum)]
            allowed = ", ".join(str(v) for v in spec.enum)
            description = f"{description} One of: {allowed}.".strip()
        if spec.required:
            definitions[spec.name] = (annotation, Field(description=description))
        else:
            definitions[spec.name] = (
                annotation | None,
                Field(spec.default, description=description),
            )
    camel = "".join(part.capitalize() for part in manifest.name_for_model.split("_"))
    return create_model(f"{camel}Args", __base__=StrictArgs, **definitions)


def rebase(url: str, base: str) -> str:
    """`url` with its scheme and host replaced by those of `base` (and base's path prefixed)."""
    target, root = urlsplit(url), urlsplit(base)
    return urlunsplit(
        (root.scheme, root.netloc, root.path.rstrip("/") + target.path, target.query, "")
    )


def render(template: Any, values: Mapping[str, Any]) -> Any:
    """Fill "{name}" templates; a lone "{name}" keeps the value's type, missing ones are None."""
    if isinstance(template, dict):
        return {key: render(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [render(value, values) for value in template]
    if not isinstance(template, str):
        return template
    whole = TEMPLATE.fullmatch(template)
    if whole:
        return values.get(whole.group(1))
    if any(values.get(name) is None for name in TEMPLATE.findall(template)):
        return None
    return TEMPLATE.sub(lambda m: str(values[m.group(1)]), template)


def dig(document: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(document, list) and part.isdigit() and int(part) < len(document):
            document = document[int(part)]
        elif isinstance(document, dict) and part in document:
            document = document[part]
        else:
            return None
    return document


def load_manifest(path: Path) -> PluginManifest:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        return PluginManifest.model_validate(document)
    except (OSError, ValueError) as error:
        detail = error.errors()[0] if isinstance(error, ValidationError) else None
        reason = (
            f"{'.'.join(str(p) for p in detail['loc'])}: {detail['msg']}" if detail else str(error)
        )
        raise ManifestError(f"{Path(path).name}: {reason}") from None


_TRUTHY = {"1", "true", "yes", "on"}


def manifest_variable(name: str, settings: ToolSettings | None = None) -> str | None:
    """The value of a variable a manifest names: its switch, its base URL, a secret header.

    A value the settings carry under that name wins. Otherwise the environment is read, here and
    nowhere else in the tools: the operator chose the name in the manifest, so the settings
    cannot declare it in advance, and secrets are never copied into the settings the tools see.
    """
    if settings is not None and name in settings.variables:
        return settings.variables[name]
    return os.environ.get(name)


def switched_on(name: str, settings: ToolSettings | None = None) -> bool:
    return str(manifest_variable(name, settings) or "").strip().lower() in _TRUTHY
