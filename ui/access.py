"""What a visitor may ask of the server's model account and network, and how often.

The Settings handlers are hidden from the API page, not from raw HTTP, so every guard here is
checked when a turn starts, whatever sent it:

- The server's own key (or its configured endpoint) serves only the models the operator allows
  (AGENT_ALLOWED_MODELS). A key the visitor typed lifts that: their key, their choice.
- On a public deployment (AGENT_PUBLIC, true on a Space) a base URL of the visitor's own is off
  unless AGENT_ALLOW_CUSTOM_BASE_URL. Even then one whose host resolves to a loopback, private,
  link-local or otherwise non-public address is refused before any connection, in the same
  sentence whatever the port; and every failure to use it reads the same, so the page cannot
  be used to map the server's network.
- Turns per conversation, per minute and in all (AGENT_TURNS_PER_MINUTE,
  AGENT_TURNS_PER_SESSION), and per client address per minute (AGENT_CLIENT_TURNS_PER_MINUTE),
  whoever's key it is; and per minute on the operator's key from everyone together
  (AGENT_SERVER_TURNS_PER_MINUTE). A turn is counted as it starts, before anything of it runs,
  wherever it comes from (the page, `/chat`, `/ask`, MCP's `ask_agent`, each turn of a
  scenario run on a hosted model): `admit` checks and counts in one step, so turns started at
  the same moment cannot all pass the same last free place.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agent.config import DEFAULT_OPENAI_MODEL, HF_ROUTER_URL, Settings, server_key
from agent.events import ErrorEvent, NoticeEvent
from agent.models.public_only import refused_address as refused_address  # the rule, here too
from agent.models.public_only import url_problem as public_url_problem

from .client_address import client_address, current_request
from .labels import t

if TYPE_CHECKING:
    from .page.state import PageState, Prefs

# Public endpoints a visitor may use with their own key without counting as a custom URL.
WELL_KNOWN_URLS = ("https://api.openai.com/v1", HF_ROUTER_URL)
# The longest a typed setting may be; a base URL or a model name is far shorter.
MAX_SETTING_CHARS = 2_000
# Error kinds that come from the model service; through a custom URL they all read the same.
SERVICE_KINDS = frozenset(
    {
        *("model", "timeout", "auth", "rate_limit", "server", "bad_request", "bad_response"),
        *("connection", "cut_off", "empty", "http", "not_found"),
    }
)
# The window of the per-minute limits, in seconds.
MINUTE = 60.0
# Addresses remembered before the ones with no turn in the last minute are forgotten.
_FORGET_AFTER = 1024


def normal_url(url: str) -> str:
    return url.strip().rstrip("/")


def shown_url(url: str) -> str:
    """The base URL as the page may show it: no user name, password, query or fragment."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.hostname:
        return url.split("@")[-1].split("?")[0]
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


class Access:
    """The guards for one page; `settings` are the operator's."""

    def __init__(self, settings: Settings) -> None:
        self.env = settings
        self.configured = normal_url(settings.default_choice().base_url)
        self.known = {"", self.configured, *(normal_url(u) for u in WELL_KNOWN_URLS)}
        self.allowed = settings.model_allow_list()
        # Turn starts in the last minute (at most as many as the limit), per client address,
        # and on the operator's key from everyone. Threads check too (`take_message`).
        self._lock = threading.RLock()
        self._clients: dict[str, deque[float]] = {}
        self._forget_at = _FORGET_AFTER
        self._server: deque[float] = deque(maxlen=max(1, settings.server_turns_per_minute))

    # -- settings -------------------------------------------------------------------------------

    @staticmethod
    def refused_setting(value: Any) -> tuple[str, dict[str, Any]] | None:
        """Why a value is not taken at all (the setting keeps what it had): a text field far
        longer than any real setting. The sentence's key and its facts, or None."""
        if isinstance(value, str) and len(value) > MAX_SETTING_CHARS:
            return "setting_too_long", {"length": len(value), "limit": MAX_SETTING_CHARS}
        return None

    @staticmethod
    def base_url_invalid(url: str) -> bool:
        """A base URL that is not an http(s) URL naming a host (empty means the default)."""
        if not url.strip():
            return False
        parts = urlsplit(url.strip())
        return parts.scheme.lower() not in ("http", "https") or not parts.hostname

    def base_url_from_page(self, value: str) -> str:
        """The page shows the configured URL without its credentials; that text means it."""
        if self.configured and normal_url(value) == normal_url(shown_url(self.configured)):
            return self.env.default_choice().base_url
        return value

    # -- the model a turn goes to ----------------------------------------------------------------

    def custom_url(self, prefs: Prefs) -> bool:
        return prefs.source == "openai" and normal_url(prefs.base_url) not in self.known

    def on_server_account(self, prefs: Prefs) -> bool:
        """Whether the turn would run on the operator's key or configured endpoint."""
        if prefs.source != "openai" or prefs.api_key.strip():
            return False
        base = normal_url(prefs.base_url)
        return bool(server_key(self.env, base or None)) or bool(base and base == self.configured)

    def hides_failures(self, prefs: Prefs) -> bool:
        return self.env.public and self.custom_url(prefs)

    def model_problem(self, prefs: Prefs) -> str | None:
        """Why the turn may not go to the model the settings name, or None. Resolves a custom
        URL's host on a public deployment, so call it off the event loop."""
        language = prefs.language
        if prefs.source != "openai":
            return None
        if self.base_url_invalid(prefs.base_url):
            return t("base_url_invalid", language)
        if self.hides_failures(prefs):
            if not self.env.allow_custom_base_url:
                return t("url_off", language)
            problem = self.url_problem(prefs.base_url)
            if problem:
                return t(problem, language)
        if self.on_server_account(prefs):
            model = prefs.model.strip() or DEFAULT_OPENAI_MODEL
            if model not in self.allowed:
                allowed = ", ".join(f"“{m}”" for m in self.allowed)
                return t("model_not_allowed", language).format(model=model, allowed=allowed)
        return None

    @staticmethod
    def url_problem(url: str) -> str | None:
        """`url_private` when the URL's host leads into a non-public network, `url_failed`
        when it cannot be used at all, else None. Decided by addresses alone: no connection."""
        return public_url_problem(url)

    def screen(self, event: Any, prefs: Prefs) -> Any:
        """The event as the page shows it: through a visitor's own URL on a public page, every
        failure of the service is one sentence, and so is every retry a notice announces, so
        no port's state shows through."""
        if not self.hides_failures(prefs):
            return event
        if isinstance(event, ErrorEvent) and event.kind in SERVICE_KINDS:
            return ErrorEvent(message=t("url_failed", prefs.language), kind="model", at=event.at)
        if isinstance(event, NoticeEvent):  # the page's own notices are made before the run
            return NoticeEvent(message=t("url_retry", prefs.language), at=event.at)
        return event

    # -- how often ------------------------------------------------------------------------------

    def client(self) -> str | None:
        """The address of the client whose event is running, as the limits count it."""
        return client_address(current_request(), self.env.trust_proxy)

    def turn_problem(
        self,
        state: PageState | None,
        now: float | None = None,
        *,
        prefs: Prefs | None = None,
        client: str | None = None,
    ) -> str | None:
        """Why a turn may not start now, or None: the conversation's limits (`state`, None for
        MCP's one-turn conversations), the client's (`client`, by default the running event's)
        and, on the operator's key, everyone's. `prefs` are the turn's settings (by default the
        conversation's)."""
        if prefs is None and state is not None:
            prefs = state.prefs
        language = prefs.language if prefs is not None else self.env.language
        now = time.monotonic() if now is None else now
        env = self.env
        if state is not None:
            if env.turns_per_session and state.turns_started >= env.turns_per_session:
                return t("limit_session", language).format(limit=env.turns_per_session)
            wait = _wait(state.turn_starts, env.turns_per_minute, now)
            if wait:
                return t("limit_minute", language).format(limit=env.turns_per_minute, seconds=wait)
        client = client or self.client()
        with self._lock:
            wait = _wait(self._clients.get(client or "", ()), env.client_turns_per_minute, now)
            if client and wait:
                limit = env.client_turns_per_minute
                return t("limit_client", language).format(limit=limit, seconds=wait)
            wait = _wait(self._server, env.server_turns_per_minute, now)
            if wait and prefs is not None and self.on_server_account(prefs):
                limit = env.server_turns_per_minute
                return t("limit_server", language).format(limit=limit, seconds=wait)
        return None

    def admit(
        self,
        state: PageState | None,
        now: float | None = None,
        *,
        prefs: Prefs | None = None,
        client: str | None = None,
    ) -> str | None:
        """`turn_problem`, and when there is none the turn is counted at once, in the same
        step: the sentence that refuses it, or None for a turn that may start."""
        now = time.monotonic() if now is None else now
        client = client or self.client()
        with self._lock:
            problem = self.turn_problem(state, now, prefs=prefs, client=client)
            if problem is None:
                self._count(state, prefs, client, now)
            return problem

    def count_turn(self, state: PageState, now: float | None = None) -> None:
        """Count a turn of `state` that started without `admit`."""
        with self._lock:
            self._count(state, None, None, time.monotonic() if now is None else now)

    def _count(
        self, state: PageState | None, prefs: Prefs | None, client: str | None, now: float
    ) -> None:
        if state is not None:
            state.turns_started += 1
            state.turn_starts.append(now)
            # Only the latest `turns_per_minute` starts ever matter.
            del state.turn_starts[: -max(1, self.env.turns_per_minute)]
            prefs = prefs if prefs is not None else state.prefs
        if client and self.env.client_turns_per_minute:
            if client not in self._clients and len(self._clients) >= self._forget_at:
                self._forget(now)
            starts = self._clients.setdefault(
                client, deque(maxlen=self.env.client_turns_per_minute)
            )
            starts.append(now)
        if prefs is not None and self.on_server_account(prefs):
            self._server.append(now)

    def _forget(self, now: float) -> None:
        """Drop the addresses with no turn in the last minute; the next sweep waits until the
        map has doubled, so a crowd of addresses costs no more than a sweep per doubling."""
        for address in [a for a, starts in self._clients.items() if now - starts[-1] >= MINUTE]:
            del self._clients[address]
        self._forget_at = max(_FORGET_AFTER, 2 * len(self._clients))


def _wait(starts: Any, limit: int, now: float) -> int:
    """Seconds until one more start fits `limit` starts a minute, given the latest `starts`
    (oldest first); 0 when it fits now or there is no limit."""
    if not limit or len(starts) < limit:
        return 0
    oldest = starts[-limit]
    if now - oldest >= MINUTE:
        return 0
    return max(1, math.ceil(MINUTE - (now - oldest)))
