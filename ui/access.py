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
  AGENT_TURNS_PER_SESSION), whoever's key it is.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agent.config import DEFAULT_OPENAI_MODEL, HF_ROUTER_URL, Settings, server_key
from agent.events import ErrorEvent, NoticeEvent
from agent.models.public_only import refused_address as refused_address  # the rule, here too
from agent.models.public_only import url_problem as public_url_problem

from .labels import t

if TYPE_CHECKING:
    from .page_state import PageState, Prefs

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

    def turn_problem(self, state: PageState | None, now: float | None = None) -> str | None:
        """Why this conversation may not start a turn now, or None."""
        if state is None:
            return None
        env, language = self.env, state.prefs.language
        now = time.monotonic() if now is None else now
        if env.turns_per_session and state.turns_started >= env.turns_per_session:
            return t("limit_session", language).format(limit=env.turns_per_session)
        starts = state.turn_starts
        if env.turns_per_minute and len(starts) >= env.turns_per_minute:
            oldest = starts[-env.turns_per_minute]
            if now - oldest < 60:
                seconds = max(1, math.ceil(60 - (now - oldest)))
                return t("limit_minute", language).format(
                    limit=env.turns_per_minute, seconds=seconds
                )
        return None

    def count_turn(self, state: PageState, now: float | None = None) -> None:
        state.turns_started += 1
        state.turn_starts.append(time.monotonic() if now is None else now)
        # Only the latest `turns_per_minute` starts ever matter.
        del state.turn_starts[: -max(1, self.env.turns_per_minute)]
