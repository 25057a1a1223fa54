"""The `mcp.json` that lists MCP servers, in the shape Claude Desktop, Cursor and VS Code use::

    {
      "mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                  "/data"], "env": {"LOG_LEVEL": "warn"}},
        "search": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer …"}}
      }
    }

A server with `command` is started as a child process and spoken to over stdio; its environment
is a minimal one (PATH, HOME, …) plus `env`, so the app's own secrets never reach it. A server
with `url` is spoken to over streamable HTTP. VS Code's top-level `servers` is read too, as are
its `type` ("stdio", "http"), `disabled` and `cwd`. `timeout` (seconds, not part of the common
shape) bounds each call to that server's tools; without it the agent's tool timeout applies.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")


class ConfigError(ValueError):
    """The file cannot be read as a list of MCP servers; the message says where and why."""


class ServerSpec(BaseModel):
    # Clients put their own keys here (autoApprove, alwaysAllow, …): they are ignored.
    model_config = ConfigDict(extra="ignore")

    type: Literal["stdio", "http", "streamable-http", "streamableHttp"] | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = Field(default=None, gt=0, le=600)
    disabled: bool = False

    @model_validator(mode="after")
    def _one_transport(self) -> ServerSpec:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either `command` (stdio) or `url` (streamable HTTP)")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError("`url` must start with http:// or https://")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command else "http"


def load_config(path: str | Path) -> dict[str, ServerSpec]:
    """The enabled servers of the file at `path`, by name; raises `ConfigError`."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error}).") from None
    except ValueError as error:
        raise ConfigError(f"{path}: not valid JSON ({error}).") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: expected an object with `mcpServers`.")
    servers = document.get("mcpServers", document.get("servers"))
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: expected an object with `mcpServers`.")
    specs: dict[str, ServerSpec] = {}
    for name, body in servers.items():
        if not _NAME.match(name):
            raise ConfigError(
                f"{path}: server name {name!r} must start with a letter and hold only letters, "
                "digits, _ and - (it prefixes the tool names)."
            )
        try:
            spec = ServerSpec.model_validate(body)
        except ValidationError as error:
            problem = "; ".join(e["msg"] for e in error.errors())
            raise ConfigError(f"{path}: server {name!r}: {problem}.") from None
        if not spec.disabled:
            specs[name] = spec
    return specs
