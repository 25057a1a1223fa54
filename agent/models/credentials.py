"""Credentials in a base URL, kept out of the URL the HTTP client and its logs see.

A user name and password in the base URL (`http://user:pass@host/v1`) are sent as
`Authorization: Basic ...`, as HTTP clients do with credentials in a URL; the API key then goes
as `KEY_HEADER`, which gateways (LiteLLM, llama.cpp's server) read, and which is never sent on
to another host a redirect names (`same_host_only`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx2
import openai

# The header that carries the key when `Authorization` carries the URL's credentials.
KEY_HEADER = "X-API-Key"


def split_credentials(url: str | None) -> tuple[str | None, str, str]:
    """`url` without its user information, and the user name and password it held (decoded)."""
    if not url:
        return url, "", ""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, "", ""
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), unquote(user), unquote(password)


def same_host_only(url: str | None, names: tuple[str, ...]) -> Callable[[Any], Awaitable[None]]:
    """A request hook that drops the `names` headers from a request a redirect sent to another
    host (httpx drops `Authorization` itself, not headers of ours)."""
    home = httpx2.URL(url or "https://api.openai.com/v1")

    async def hook(request: httpx2.Request) -> None:
        there = request.url
        same = there.host == home.host and (there.port == home.port or there.scheme == "https")
        if not same:
            for name in names:
                request.headers.pop(name, None)

    return hook


def connection(
    base_url: str | None,
    key: str,
    basic: str,
    extra_headers: dict[str, str],
    *,
    public_only: bool,
    timeout: float,
) -> tuple[dict[str, str] | None, Any]:
    """The default headers, and the HTTP client (None: the openai client's own), for calls
    to `base_url` with the API `key` and the URL's encoded credentials `basic`."""
    headers = dict(extra_headers)
    hooks: list[Callable[[Any], Awaitable[None]]] = []
    if basic:
        headers["Authorization"] = f"Basic {basic}"
        if key:
            headers[KEY_HEADER] = key
            hooks.append(same_host_only(base_url, (KEY_HEADER,)))
    if public_only:
        from .public_only import public_only_client

        client = public_only_client(timeout)
        client.event_hooks = {"request": hooks, "response": []}
        return headers or None, client
    if hooks:
        return headers or None, openai.DefaultAsyncHttpxClient(event_hooks={"request": hooks})
    return headers or None, None
