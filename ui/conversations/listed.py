"""How the list of past conversations names each one: its title, how many turns it has and
when it was last used ("Receipt total · 3 turns · 14:05"; a date for an earlier day), in the
page's language and the browser's time zone.

The page's script sends the browser's time zone as the page loads (its IANA name, and its
offset from UTC now for a zone this server does not know); without either, times are UTC
and say so.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from ..labels import joined, t

_ZONE = re.compile(r"[A-Za-z0-9_+-]{1,40}(/[A-Za-z0-9_+-]{1,40}){0,2}")
# The widest offsets in use are -12 and +14 hours.
_MAX_OFFSET = 16 * 60


@functools.cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def browser_zone(name: Any, offset: Any) -> tzinfo | None:
    """The browser's time zone: by its IANA `name` when this server knows it, else its
    `offset` from UTC in minutes east (as of now), else None. Both come from the browser, so
    anything else is no zone."""
    if isinstance(name, str) and len(name) <= 64 and _ZONE.fullmatch(name) and name in _zones():
        try:
            return ZoneInfo(name)
        except (ValueError, OSError):
            pass
    if isinstance(offset, int) and not isinstance(offset, bool) and abs(offset) <= _MAX_OFFSET:
        return timezone(timedelta(minutes=offset))
    return None


def entry_label(entry: dict[str, Any], language: str, zone: tzinfo | None, now: float) -> str:
    """One conversation of the list, as the list shows it."""
    turns = entry.get("turns") or 0
    counted = t("listed_turn" if turns == 1 else "listed_turns", language).format(n=turns)
    return joined(
        entry["title"].strip() or entry["id"],
        counted if turns else "",
        when(entry, language, zone, now),
    )


def when(entry: dict[str, Any], language: str, zone: tzinfo | None, now: float) -> str:
    """When the conversation was last saved: the time if that was today, else the date (with
    the year if not this year); "UTC" after it when the browser's zone is not known."""
    saved_at = entry.get("saved_at") or 0
    if not saved_at > 0:  # never saved, or no number
        return ""
    local = zone or UTC
    try:
        saved = datetime.fromtimestamp(saved_at, local)
        today = datetime.fromtimestamp(now, local)
    except (OverflowError, OSError, ValueError):  # a time no clock gives
        return ""
    if saved.date() == today.date():
        text = f"{saved:%H:%M}"
    else:
        month = t("listed_months", language).split()[saved.month - 1]
        key = "listed_date" if saved.year == today.year else "listed_date_year"
        text = t(key, language).format(month=month, day=saved.day, year=saved.year)
    return text if zone is not None else t("listed_utc", language).format(when=text)
