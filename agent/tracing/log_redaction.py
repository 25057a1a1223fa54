"""Nothing secret in a log line, at any level.

The HTTP clients log every request at INFO (httpx's "HTTP Request: POST <url>") and much more at
DEBUG, and a base URL may carry a user name and password. `OpenAIChatModel` keeps credentials
out of the URLs it hands its client, and this filter is the second guard: on the loggers of the
HTTP stack and the openai client (and on the handlers of the app's own logging), every record
has its message rewritten with

- the user information of any URL (`scheme://user:password@host`) replaced,
- `Authorization`-style credentials (`Bearer ...`, `Basic ...`) and `api-key` values replaced,
- every secret registered with `register_secret` (the keys and passwords models are made with)
  replaced wherever it appears.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict

REDACTED = "[redacted]"
# The loggers that see requests: each library logs under exactly these names (a filter on a
# logger applies only to records made by that logger, not by its children).
LOGGERS = (
    "httpx",
    "httpx2",
    *(f"{core}.{part}" for core in ("httpcore", "httpcore2") for part in (
        "connection", "http11", "http2", "proxy", "socks"
    )),
    "openai",
    "openai._base_client",
    "openai._response",
    "openai._legacy_response",
    "agent.models.openai_compat",
)  # fmt: skip
# Keys typed on a public page are registered too: keep the most recent this many.
MAX_SECRETS = 256
# Shorter values would match ordinary words by chance.
MIN_SECRET_CHARS = 6

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,15}://)[^/\s@?#'\"<>]{1,512}@")
# "Basic" as the scheme is spelt, so that "basic usage" in a sentence stays.
_CREDENTIAL = re.compile(r"\b((?i:bearer)|Basic)(\s+|%20)[A-Za-z0-9._~+/=-]{4,}")
# A header's value after its name: `name: value`, `name=value`, `'name': 'value'` and the
# `(b'name', b'value')` pairs the HTTP core logs.
_KEY_VALUE = re.compile(
    r"(?i)((?:x-)?api[-_]?key|(?:proxy-)?authorization)"
    r"((?:['\"]\s*,|['\"]?\s*[:=])\s*(?:b?['\"])?)[^'\"\s,}\])]+"
)

_secrets: OrderedDict[str, None] = OrderedDict()
_longest_first: tuple[str, ...] = ()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Redact `value` from every log line the filter sees from now on."""
    if not value or len(value) < MIN_SECRET_CHARS:
        return
    global _longest_first
    with _lock:
        _secrets.pop(value, None)
        _secrets[value] = None
        while len(_secrets) > MAX_SECRETS:
            _secrets.popitem(last=False)
        # Longest first, so that a secret holding another is replaced whole.
        _longest_first = tuple(sorted(_secrets, key=len, reverse=True))


def redact(text: str) -> str:
    """`text` with credentials and registered secrets replaced."""
    for secret in _longest_first:
        if secret in text:  # a plain substring test per secret: cheap, and no pattern to build
            text = text.replace(secret, REDACTED)
    # Each pattern only where its mark is: most lines have none, and skip them all.
    low = text.lower()
    if "@" in text:
        text = _USERINFO.sub(rf"\1{REDACTED}@", text)
    if "bearer" in low or "Basic" in text:
        text = _CREDENTIAL.sub(rf"\1\2{REDACTED}", text)
    if "authorization" in low or ("api" in low and "key" in low):
        text = _KEY_VALUE.sub(rf"\1\2{REDACTED}", text)
    return text


class RedactingFilter(logging.Filter):
    """Rewrites each record's message, arguments merged in, with `redact`; drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is logging's to report, not ours
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            # Formatted here, as a handler's formatter would, so the traceback is redacted too.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


FILTER = RedactingFilter()


def install(handlers: bool = False) -> None:
    """Put the filter on the loggers that see requests (once); with `handlers`, also on the
    root logger's handlers, so that every record the app's logging writes is redacted."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if FILTER not in logger.filters:
            logger.addFilter(FILTER)
    if handlers:
        for handler in logging.getLogger().handlers:
            if FILTER not in handler.filters:
                handler.addFilter(FILTER)
