"""A model service a visitor named on a public page: reached on the public internet only.

The rule is `refused_address`: loopback, private, link-local, shared, reserved, multicast and
the IPv6 forms that carry such an IPv4 address are not public. `url_problem` applies it to
every address a URL's host resolves to, before a turn starts, for the sentence the page shows.

That check alone is not enough: the HTTP client would resolve the name again when it connects
(a DNS answer may change in between: "rebinding"), and would follow a redirect to any address.
So the client made by `public_only_client` checks at the moment it connects, for every
connection it opens, and connects to an address it has just checked: the name is resolved once,
by the check. TLS still names and verifies the host (the connection pool is keyed by the host;
only the socket goes to the checked address), and the request keeps its Host header. A redirect
is a new request to a new host and passes the same check; redirects are bounded. The client
ignores proxy settings of the environment, since a proxy would resolve the name itself.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from contextlib import nullcontext
from typing import Any

import anyio
import httpcore2
import httpx2

# From where it is defined: `httpcore2.AnyIOBackend` is, to a type checker, the stand-in
# httpcore2 defines for when anyio is missing.
from httpcore2._backends.anyio import AnyIOBackend

# NAT64's well-known prefix carries an IPv4 address in its last 32 bits.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Redirects followed for one request; each one's host is checked like the first.
MAX_REDIRECTS = 5
# What a refused connection says in the log (the page shows its own sentence for any failure
# through a visitor's URL, so that nothing of the server's network shows through).
REFUSED = "the address is not on the public internet"


def refused_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether connecting to `address` would reach somewhere other than the public internet."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if address.teredo:
            embedded = address.teredo[1]
        if address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and refused_address(embedded):
            return True
    return not address.is_global or address.is_multicast


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, as the HTTP client would look it up."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]).split("%")[0] for info in infos]


def url_problem(url: str) -> str | None:
    """`url_private` when the URL's host leads into a non-public network, `url_failed` when it
    cannot be used at all, else None. Decided by addresses alone: no connection. Resolves the
    host, so call it off the event loop."""
    try:
        parsed = httpx2.URL(url.strip())
        host = parsed.host
        if parsed.scheme not in ("http", "https") or not host:
            return "url_failed"
        addresses = resolve(host, parsed.port or (443 if parsed.scheme == "https" else 80))
        ips = [ipaddress.ip_address(a) for a in addresses]
    except (httpx2.InvalidURL, OSError, UnicodeError, ValueError):
        return "url_failed"
    if not ips:
        return "url_failed"
    return "url_private" if any(refused_address(ip) for ip in ips) else None


class _PublicOnlyBackend(httpcore2.AsyncNetworkBackend):
    """Opens a connection only to a public address its host resolves to, checked just now."""

    def __init__(self) -> None:
        self._inner = AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout) if timeout else nullcontext():
                # In a thread: the system's resolver blocks. Abandoned, not awaited, on timeout.
                addresses = await anyio.to_thread.run_sync(
                    resolve, host, port, abandon_on_cancel=True
                )
        except TimeoutError as exc:
            raise httpcore2.ConnectTimeout(f"resolving {host} timed out") from exc
        except (OSError, UnicodeError) as exc:
            raise httpcore2.ConnectError(f"could not resolve {host}") from exc
        try:
            ips = [ipaddress.ip_address(a) for a in addresses]
        except ValueError as exc:
            raise httpcore2.ConnectError(f"could not resolve {host}") from exc
        # Any refused address refuses the host, as `url_problem` does: a name that answers
        # with one public and one private address is not trusted with either.
        if not ips or any(refused_address(ip) for ip in ips):
            raise httpcore2.ConnectError(f"{host}: {REFUSED}")
        last: Exception | None = None
        for ip in dict.fromkeys(ips):  # in the resolver's order, each once
            try:
                return await self._inner.connect_tcp(
                    str(ip), port, timeout, local_address, socket_options
                )
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.AsyncNetworkStream:
        raise httpcore2.ConnectError(f"unix socket: {REFUSED}")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PublicOnlyTransport(httpx2.AsyncHTTPTransport):
    """httpx's own transport, whose connection pool opens connections through the check."""

    def __init__(self, limits: httpx2.Limits | None = None) -> None:
        limits = limits or httpx2.Limits(max_connections=100, max_keepalive_connections=20)
        super().__init__(trust_env=False, limits=limits)
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=httpx2.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_PublicOnlyBackend(),
        )


def public_only_client(timeout: float) -> httpx2.AsyncClient:
    """An HTTP client (for `openai.AsyncOpenAI(http_client=...)`) that connects to public
    addresses only, checked as it connects, and follows at most `MAX_REDIRECTS` redirects."""
    return httpx2.AsyncClient(
        transport=PublicOnlyTransport(),
        timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        trust_env=False,
    )
