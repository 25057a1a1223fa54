"""HTTP tools declared by JSON manifests in `assets/plugins/`.

A manifest becomes a `Tool` subclass whose pydantic `Args` model is built from the declared
parameters, so a plugin is listed in the prompt and validated exactly like a built-in tool. The
URL and the method come only from the manifest; the model supplies argument values and nothing
else.

Manifest layout (the plugin format of the task-dialogue prompts, made explicit)::

    {
      "name_for_model": "query_express",          # the tool name: letters, digits, _
      "name_for_human": "Parcel tracking",
      "description_for_human": "Track a parcel by its number.",
      "description_for_model": "Optional; used as the tool description when given.",
      "url": "https://api.example.com/track/{carrier}",   # {name} is filled, URL-quoted
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
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
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

from tools.base import StrictArgs, Tool, ToolContext, ToolInputError, ToolResult, ToolSettings

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 2000
_TRUTHY = {"1", "true", "yes", "on"}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ManifestError(ValueError):
    """A manifest that cannot become a tool; the message names the file and the problem."""


class PluginError(ToolInputError):
    """The plugin's service could not answer usefully; one sentence saying what happened."""

    def __init__(
        self,
        message: str,
        *,
        tool_name: str = "",
        status_code: int | None = None,
        timeout_seconds: float | None = None,
    ) -> None:
        super().__init__(message, tool_name=tool_name)
        self.status_code = status_code
        self.timeout_seconds = timeout_seconds


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

    @field_validator("name_for_model")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _NAME.match(value):
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
        if not _NAME.match(spec.name) or spec.name.startswith("model_"):
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


def manifest_variable(name: str, settings: ToolSettings | None = None) -> str | None:
    """The value of a variable a manifest names: its switch, its base URL, a secret header.

    A value the settings carry under that name wins. Otherwise the environment is read, here and
    nowhere else in the tools: the operator chose the name in the manifest, so the settings
    cannot declare it in advance, and secrets are never copied into the settings the tools see.
    """
    if settings is not None and name in settings.variables:
        return settings.variables[name]
    return os.environ.get(name)


def _switched_on(name: str, settings: ToolSettings | None = None) -> bool:
    return str(manifest_variable(name, settings) or "").strip().lower() in _TRUTHY


def _rebase(url: str, base: str) -> str:
    """`url` with its scheme and host replaced by those of `base` (and base's path prefixed)."""
    target, root = urlsplit(url), urlsplit(base)
    return urlunsplit(
        (root.scheme, root.netloc, root.path.rstrip("/") + target.path, target.query, "")
    )


def _render(template: Any, values: Mapping[str, Any]) -> Any:
    """Fill "{name}" templates; a lone "{name}" keeps the value's type, missing ones are None."""
    if isinstance(template, dict):
        return {key: _render(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [_render(value, values) for value in template]
    if not isinstance(template, str):
        return template
    whole = _TEMPLATE.fullmatch(template)
    if whole:
        return values.get(whole.group(1))
    if any(values.get(name) is None for name in _TEMPLATE.findall(template)):
        return None
    return _TEMPLATE.sub(lambda m: str(values[m.group(1)]), template)


def _dig(document: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(document, list) and part.isdigit() and int(part) < len(document):
            document = document[int(part)]
        elif isinstance(document, dict) and part in document:
            document = document[part]
        else:
            return None
    return document


def _redact(text: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    return text


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class PluginTool(Tool):
    """A tool whose work is one HTTP call (or a short declared chain) described by a manifest."""

    manifest: ClassVar[PluginManifest]
    settings: ClassVar[ToolSettings | None] = None
    uses_images = False

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for spec in self.manifest.fields():
            for rule in self.manifest.extract.get(spec.name, []):
                if isinstance(rule, ExtractRule):
                    if re.search(rule.pattern, text, re.IGNORECASE):
                        found[spec.name] = rule.value
                        break
                    continue
                match = re.search(rule, text, re.IGNORECASE)
                if match and match.groups() and match.group(1):
                    found[spec.name] = match.group(1).strip()
                    break
            else:
                # An enum value named in the request is a value the person chose.
                for option in spec.enum:
                    if re.search(rf"(?<!\w){re.escape(str(option))}(?!\w)", text, re.IGNORECASE):
                        found[spec.name] = option
                        break
        required = self.required_fields()
        missing = [name for name in required if name not in found and name not in known]
        asking_again = any(re.search(t, text, re.IGNORECASE) for t in self.triggers)
        bare = text.strip().strip("?.!。？！").strip()
        # A short reply that is not itself a request answers the one question still open.
        if (
            len(missing) == 1
            and not any(name in found for name in required)
            and not asking_again
            and 0 < len(bare) <= 40
        ):
            found[missing[0]] = bare
        return found

    def _headers(self) -> tuple[dict[str, str], list[str]]:
        headers: dict[str, str] = {}
        secrets: list[str] = []
        for key, value in self.manifest.headers.items():
            if isinstance(value, EnvSecret):
                secret = manifest_variable(value.env, self.settings) or ""
                if not secret:
                    raise PluginError(
                        f"The {self.name} plugin needs the environment variable {value.env} to be "
                        "set; it is not, so the service cannot be called.",
                        tool_name=self.name,
                    )
                secrets.append(secret)
                headers[key] = value.prefix + secret
            else:
                headers[key] = value
        return headers, secrets

    def _url(self, template: str, values: Mapping[str, Any], used: set[str]) -> str:
        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            used.add(name)
            if values.get(name) is None:
                raise PluginError(f"{name} is needed to call {self.name}.", tool_name=self.name)
            return quote(str(values[name]), safe="")

        split = urlsplit(template)
        url = urlunsplit(split._replace(path=_TEMPLATE.sub(fill, split.path)))
        base_env = self.manifest.base_url_env
        base = manifest_variable(base_env, self.settings) if base_env else None
        if base:
            url = _rebase(url, base)
        return url

    async def _fetch(
        self, client: httpx.AsyncClient, step: StepSpec, values: dict[str, Any], secrets: list[str]
    ) -> Any:
        used: set[str] = set()
        url = self._url(step.url, values, used)
        params: dict[str, Any] | None = None
        body: Any = None
        if step.query is not None or step.body is not None:
            params = {k: v for k, v in (_render(step.query or {}, values)).items() if v is not None}
            body = _render(step.body, values) if step.body is not None else None
        else:
            payload = {k: v for k, v in values.items() if k not in used and v is not None}
            if step.method == "GET":
                params = payload
            else:
                body = payload
        if params:
            params = {k: str(v).lower() if isinstance(v, bool) else v for k, v in params.items()}
        cap = self.manifest.max_response_bytes
        too_large = PluginError(
            f"The {self.name} service sent more than {cap:,} bytes; the answer was refused. "
            "Ask for less (fewer days, fewer results).",
            tool_name=self.name,
        )
        async with client.stream(step.method, url, params=params, json=body) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise too_large
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > cap:
                    raise too_large
                chunks.append(chunk)
        raw = _redact(b"".join(chunks).decode(response.encoding or "utf-8", "replace"), secrets)
        if response.status_code >= 400:
            raise PluginError(
                f"The {self.name} service answered HTTP {response.status_code}: {_short(raw)}",
                tool_name=self.name,
                status_code=response.status_code,
            )
        if response.status_code >= 300:
            raise PluginError(
                f"The {self.name} service answered with a redirect (HTTP "
                f"{response.status_code}), which plugins do not follow.",
                tool_name=self.name,
                status_code=response.status_code,
            )
        try:
            return json.loads(raw)
        except ValueError:
            return raw

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        headers, secrets = self._headers()
        values: dict[str, Any] = args.model_dump()
        resolved: dict[str, Any] = {}
        timeout = self.manifest.timeout_seconds
        try:
            async with (
                asyncio.timeout(timeout),
                httpx.AsyncClient(
                    headers=headers, timeout=httpx.Timeout(timeout), follow_redirects=False
                ) as client,
            ):
                answer: Any = None
                for step in self.manifest.steps:
                    answer = await self._fetch(client, step, {**values, **resolved}, secrets)
                    for name, path in step.extract.items():
                        value = _dig(answer, path)
                        if value is None:
                            sentence = step.not_found or (
                                f"The {self.name} service found nothing for these arguments."
                            )
                            filled = _TEMPLATE.sub(
                                lambda m: str(values.get(m.group(1), m.group(0))), sentence
                            )
                            raise PluginError(filled, tool_name=self.name)
                        resolved[name] = value
        except TimeoutError:
            raise PluginError(
                f"The {self.name} service did not answer within {timeout:g} seconds; try again "
                "later.",
                tool_name=self.name,
                timeout_seconds=timeout,
            ) from None
        except httpx.TimeoutException:
            raise PluginError(
                f"The {self.name} service did not answer within {timeout:g} seconds; try again "
                "later.",
                tool_name=self.name,
                timeout_seconds=timeout,
            ) from None
        except httpx.HTTPError as error:
            raise PluginError(
                f"Could not reach the {self.name} service ({type(error).__name__}); try again "
                "later.",
                tool_name=self.name,
            ) from None
        data: dict[str, Any]
        if isinstance(answer, dict):
            data = {"resolved": resolved, **answer} if resolved else answer
        else:
            data = {"resolved": resolved, "response": answer} if resolved else {"response": answer}
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        if len(text) > MAX_TEXT_CHARS:
            text = text[: MAX_TEXT_CHARS - 1] + "…"
        return ToolResult(text=text, data=data)


def plugin_from_manifest(
    manifest: PluginManifest, settings: ToolSettings | None = None
) -> type[PluginTool]:
    """A `Tool` subclass for one manifest, reading its variables from `settings` first."""
    try:
        args_model = build_args_model(manifest)
    except (ValueError, TypeError) as error:
        raise ManifestError(str(error)) from None
    return type(
        f"Plugin_{manifest.name_for_model}",
        (PluginTool,),
        {
            "name": manifest.name_for_model,
            "description": manifest.description_for_model or manifest.description_for_human,
            "Args": args_model,
            "triggers": tuple(manifest.triggers),
            # The runner's own limit must leave room for the plugin's clearer timeout message.
            "timeout": manifest.timeout_seconds + 5.0,
            "manifest": manifest,
            "settings": settings,
            "__module__": __name__,
        },
    )


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


def load_plugins(directory: Path, settings: ToolSettings | None = None) -> list[Tool]:
    """One tool per enabled manifest in `directory`; a broken manifest is logged and skipped."""
    tools: list[Tool] = []
    if not Path(directory).is_dir():
        return tools
    for path in sorted(Path(directory).glob("*.json")):
        try:
            manifest = load_manifest(path)
            if manifest.enabled_by and not _switched_on(manifest.enabled_by, settings):
                continue
            tools.append(plugin_from_manifest(manifest, settings)())
        except ManifestError as error:
            log.warning("plugin manifest skipped: %s", error)
        except Exception as error:
            log.warning("plugin manifest %s skipped: %s", path.name, error)
    return tools
