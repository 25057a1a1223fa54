"""Which client a request comes from, for the turn limits per address (`ui.access`).

Uvicorn already takes the address from X-Forwarded-For when the connection comes from this
machine (its FORWARDED_ALLOW_IPS default), so a proxy on the same host is believed. A proxy
elsewhere, such as a Hugging Face Space's, is believed only when the operator says there is one
(AGENT_TRUST_PROXY, true on a Space): the client is then the last public address in the
header, the one the proxy nearest the client wrote. What the client wrote itself comes before
it, and the private addresses of proxies behind it come after. Without a proxy the header is
anyone's to write, and the connection's own address is the client's.

An IPv6 client is counted by its /64 network: one connection usually holds all of it.
"""

from __future__ import annotations

import ipaddress
from typing import Any

# More entries than any real chain of proxies; the header's beginning is the client's own.
_MAX_HOPS = 16


def current_request() -> Any:
    """The request of the Gradio event running now (queued or not, MCP's too), or None
    outside one (tests calling handlers directly, the command line)."""
    from gradio.context import LocalContext

    return LocalContext.request.get(None)


def client_address(request: Any, trust_proxy: bool) -> str | None:
    """The address `request` came from, as the limits count it; None when unknown."""
    if request is None:
        return None
    if trust_proxy:
        headers = getattr(request, "headers", None) or {}
        forwarded = forwarded_client(headers.get("x-forwarded-for"))
        if forwarded:
            return forwarded
    host = getattr(getattr(request, "client", None), "host", None)
    return counted(str(host)) if host else None


def forwarded_client(header: str | None) -> str | None:
    """The client a trusted proxy named in X-Forwarded-For: its last public address, else its
    last address; None when it names none."""
    if not header:
        return None
    found = [a for a in (_address(e) for e in header.split(",")[-_MAX_HOPS:]) if a is not None]
    if not found:
        return None
    public = [a for a in found if a.is_global]
    return counted(str((public or found)[-1]))


def counted(host: str) -> str:
    """The key an address is counted under: an IPv4 address itself, an IPv6 one's /64."""
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host  # a name (a test client's "testclient"): counted as it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _address(entry: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """One entry of the header: an address, with a port or in brackets or not."""
    entry = entry.strip()
    if entry.startswith("["):
        entry = entry[1:].split("]", 1)[0]
    elif entry.count(":") == 1:
        entry = entry.split(":", 1)[0]  # IPv4 with a port
    try:
        return ipaddress.ip_address(entry)
    except ValueError:
        return None
