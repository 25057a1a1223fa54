"""What a plugin refuses to send, and what it refuses to repeat.

Path values: a value filled into a URL path must stay one segment. Quoting alone is not enough:
`.` and `..` survive quoting and reach another endpoint, and many servers decode `%2F` (or
`%252F`, decoding twice) back into `/` before they route.

Secrets: a service may echo a key back in another form (a debugging endpoint, an error page, a
token exchange). Every text that leaves a plugin goes through a `Redactor`, which knows the
forms a secret takes in transit: as is, base64 (standard or URL-safe, padded or not, alone or
inside a longer encoded text such as a `Basic` credential), percent-encoded and hex.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus, unquote

REDACTED = "[redacted]"
# Encoded forms shorter than this would match ordinary text by chance.
_MIN_FORM = 6
# How many times a server might percent-decode a value before routing.
_DECODE_ROUNDS = 3


def path_value_problem(value: str) -> str | None:
    """Why `value` cannot be one path segment, or None when it can."""
    decoded = value
    for _ in range(_DECODE_ROUNDS):
        once = unquote(decoded)
        if once == decoded:
            break
        decoded = once
    for form in (value, decoded, unicodedata.normalize("NFKC", decoded)):
        bare = form.strip()
        if not bare:
            return "is empty"
        if bare in (".", ".."):
            return "is '.' or '..'"
        if "/" in form or "\\" in form:
            return "holds a slash"
        if any(unicodedata.category(c) == "Cc" for c in form):
            return "holds a control character"
    return None


class Redactor:
    """Replaces each secret, in any of the forms above, with "[redacted]"."""

    def __init__(self, secrets: Iterable[str]) -> None:
        exact: set[str] = set()
        folded: set[str] = set()  # forms whose letters may come in either case
        for secret in secrets:
            if not secret:
                continue
            for part in (secret, *_credentials_inside(secret)):
                _add_forms(part, exact, folded)
        alternatives = [re.escape(f) for f in sorted(exact, key=len, reverse=True)]
        alternatives += [f"(?i:{re.escape(f)})" for f in sorted(folded, key=len, reverse=True)]
        self._pattern = re.compile("|".join(alternatives)) if alternatives else None

    def text(self, text: str) -> str:
        return self._pattern.sub(REDACTED, text) if self._pattern else text

    def data(self, value: Any) -> Any:
        """`value` with every string in it redacted, dictionary keys included."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value


def _add_forms(secret: str, exact: set[str], folded: set[str]) -> None:
    raw = secret.encode()
    exact.add(secret)
    for encoded in _base64_forms(raw):
        if len(encoded) >= _MIN_FORM:
            exact.add(encoded)
    for encoded in (
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        "".join(f"%{b:02x}" for b in raw),
        raw.hex(),
    ):
        if len(encoded) >= _MIN_FORM and encoded != secret:
            folded.add(encoded)


def _base64_forms(raw: bytes) -> set[str]:
    """The secret's own encoding, and the part of it that any longer base64 text containing
    the secret holds: three of them, one for each position the secret may start at modulo 3.
    The groups that share bytes with the text around it differ, so up to two bytes at each end
    stay visible."""
    forms = set()
    whole = base64.b64encode(raw).decode()
    forms.update({whole, whole.rstrip("=")})
    for lead in range(3):
        data = b"\0" * lead + raw
        encoded = base64.b64encode(data).decode()
        first = 1 if lead else 0
        full = len(data) // 3
        if full > first:
            forms.add(encoded[4 * first : 4 * full])
    return forms | {f.translate(str.maketrans("+/", "-_")) for f in forms}


def _credentials_inside(secret: str) -> list[str]:
    """For a `Basic` credential ("user:password" in base64), the pair and the password."""
    token = secret.split()[-1] if secret.lower().startswith("basic ") else secret
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode()
    except (binascii.Error, ValueError):
        return []
    _user, colon, password = decoded.partition(":")
    if not colon or not decoded.isprintable():
        return []
    return [p for p in (decoded, password) if len(p) >= _MIN_FORM]


def readable(raw: str) -> str:
    """A JSON body with its escapes undone, so that an escaped secret is seen and redacted."""
    try:
        return json.dumps(json.loads(raw), ensure_ascii=False)
    except ValueError:
        return raw


def short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
