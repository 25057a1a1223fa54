"""HTTP tools declared by JSON manifests in `assets/plugins/`.

A manifest (its layout is in `tools.plugins.manifest`) becomes a `Tool` subclass whose pydantic
`Args` model is built from the declared parameters, so a plugin is listed in the prompt and
validated exactly like a built-in tool. The URL and the method come only from the manifest; the
model supplies argument values and nothing else, and a value filled into the URL's path must
stay one path segment. Secrets named by the manifest are sent as headers and never repeated:
every text the plugin gives back (observation, data, error sentence) is redacted
(`tools.plugins.guard`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
from pydantic import BaseModel

from tools import words
from tools.base import Tool, ToolContext, ToolInputError, ToolResult, ToolSettings, language_of
from tools.plugins.answer import sentence
from tools.plugins.guard import Redactor, path_value_problem, readable, short
from tools.plugins.manifest import (
    TEMPLATE,
    EnvSecret,
    ExtractRule,
    FieldSpec,
    ManifestError,
    PluginManifest,
    StepSpec,
    build_args_model,
    dig,
    load_manifest,
    manifest_variable,
    rebase,
    render,
    switched_on,
)

__all__ = [
    "MAX_TEXT_CHARS",
    "EnvSecret",
    "ExtractRule",
    "FieldSpec",
    "ManifestError",
    "PluginError",
    "PluginManifest",
    "PluginTool",
    "StepSpec",
    "build_args_model",
    "load_manifest",
    "load_plugins",
    "manifest_variable",
    "plugin_from_manifest",
]

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 2000


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


class PluginTool(Tool[BaseModel]):
    """A tool whose work is one HTTP call (or a short declared chain) described by a manifest."""

    manifest: ClassVar[PluginManifest]
    settings: ClassVar[ToolSettings | None] = None
    uses_images = False
    acts_on_world = True

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
        asking_again = any(re.search(t, text, re.IGNORECASE) for t in self.manifest.triggers)
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

    def say(self, data: Any, language: str = "en", question: str = "") -> str:
        """The result `data` as a sentence in `language` ("" when it holds nothing to say),
        with what `question` asks for beyond it when the manifest says how."""
        return sentence(self.manifest, data, language, question)

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
            # Again here: a later step's path may hold a value an earlier answer gave.
            self._check_segment(name, values[name])
            return quote(str(values[name]), safe="")

        split = urlsplit(template)
        url = urlunsplit(split._replace(path=TEMPLATE.sub(fill, split.path)))
        base_env = self.manifest.base_url_env
        base = manifest_variable(base_env, self.settings) if base_env else None
        if base:
            url = rebase(url, base)
        return url

    def _check_segment(self, name: str, value: Any) -> None:
        problem = path_value_problem(str(value))
        if problem:
            raise PluginError(
                f"The {name} {short(str(value), 40)!r} cannot be part of the {self.name} "
                f"service's address because it {problem}; give the {name} itself.",
                tool_name=self.name,
            )

    async def _fetch(
        self, client: httpx.AsyncClient, step: StepSpec, values: dict[str, Any]
    ) -> Any:
        used: set[str] = set()
        url = self._url(step.url, values, used)
        params: dict[str, Any] | None = None
        body: Any = None
        if step.query is not None or step.body is not None:
            params = {k: v for k, v in (render(step.query or {}, values)).items() if v is not None}
            body = render(step.body, values) if step.body is not None else None
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
        raw = b"".join(chunks).decode(response.encoding or "utf-8", "replace")
        if response.status_code >= 400:
            raise PluginError(
                f"The {self.name} service answered HTTP {response.status_code}: {readable(raw)}",
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
        redactor = Redactor(secrets)
        values: dict[str, Any] = args.model_dump()
        try:
            # All steps before the first request: nothing is sent for a call that cannot be made.
            for step in self.manifest.steps:
                for name in TEMPLATE.findall(urlsplit(step.url).path):
                    if values.get(name) is not None:
                        self._check_segment(name, values[name])
            answer, resolved = await self._call(headers, values, language_of(ctx))
        except PluginError as error:
            # Shortened only once redacted, so that no part of a cut secret shows.
            raise PluginError(
                short(redactor.text(str(error)), 300),
                tool_name=self.name,
                status_code=error.status_code,
                timeout_seconds=error.timeout_seconds,
            ) from None
        data: dict[str, Any]
        if isinstance(answer, dict):
            data = {"resolved": resolved, **answer} if resolved else answer
        else:
            data = {"resolved": resolved, "response": answer} if resolved else {"response": answer}
        data = redactor.data(data)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        if len(text) > MAX_TEXT_CHARS:
            text = text[: MAX_TEXT_CHARS - 1] + "…"
        return ToolResult(text=text, data=data)

    async def _call(
        self, headers: dict[str, str], values: dict[str, Any], language: str = "en"
    ) -> tuple[Any, dict[str, Any]]:
        """The declared steps in order: the last answer, and the values the earlier ones gave.
        A service that cannot be reached is said in `language`: the offline model quotes it."""
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
                    answer = await self._fetch(client, step, {**values, **resolved})
                    for name, path in step.extract.items():
                        value = dig(answer, path)
                        if value is None:
                            sentence = step.not_found or (
                                f"The {self.name} service found nothing for these arguments."
                            )
                            filled = TEMPLATE.sub(
                                lambda m: str(values.get(m.group(1), m.group(0))), sentence
                            )
                            raise PluginError(filled, tool_name=self.name)
                        resolved[name] = value
        except (TimeoutError, httpx.TimeoutException):
            late = words.say(
                language, "tools.plugins.timed_out", name=self.name, seconds=f"{timeout:g}"
            )
            raise PluginError(late, tool_name=self.name, timeout_seconds=timeout) from None
        except httpx.HTTPError as error:
            gone = words.say(
                language, "tools.plugins.unreachable", name=self.name, error=type(error).__name__
            )
            raise PluginError(gone, tool_name=self.name) from None
        return answer, resolved


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
            # The runner's own limit must leave room for the plugin's clearer timeout message.
            "timeout": manifest.timeout_seconds + 5.0,
            "manifest": manifest,
            "settings": settings,
            "__module__": __name__,
        },
    )


def load_plugins(directory: Path, settings: ToolSettings | None = None) -> list[Tool]:
    """One tool per enabled manifest in `directory`; a broken manifest is logged and skipped."""
    tools: list[Tool] = []
    if not Path(directory).is_dir():
        return tools
    for path in sorted(Path(directory).glob("*.json")):
        try:
            manifest = load_manifest(path)
            if manifest.enabled_by and not switched_on(manifest.enabled_by, settings):
                continue
            tools.append(plugin_from_manifest(manifest, settings)())
        except ManifestError as error:
            log.warning("plugin manifest skipped: %s", error)
        except Exception as error:
            log.warning("plugin manifest %s skipped: %s", path.name, error)
    return tools
