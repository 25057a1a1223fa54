"""Browser pages a test hands back for the next test to load again, instead of a new context
each time: loading the page in a tab that already ran it takes about half the time, most of a
browser test's setup.

A page comes back as a fresh context's would be: its other tabs closed, and every origin it
opened emptied of its storage (localStorage, this tab's sessionStorage, cookies) after the page
has left it, since the page writes to its storage as it goes. A test closes its page's context
as before; that hands the page back. One that cannot be emptied (crashed, closed, a dialog left
open) is closed for good instead.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any
from urllib.parse import urlsplit

# Pages handed back, per browser, by the locale and the size they were opened at.
_IDLE: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], list[Any]]] = (
    weakref.WeakKeyDictionary()
)
# A path no page is served at: a document of the page's origin in which none of its script runs.
_NOWHERE = "/__kept_page_emptied__"


def take(browser: Any, locale: str, viewport: dict[str, int], reuse: bool = True) -> Any:
    """A page at `locale` and `viewport`: one handed back (unless not `reuse`), or a new one in
    a context of its own whose `close()` hands it back."""
    key = (locale, f"{viewport['width']}x{viewport['height']}")
    idle = _IDLE.setdefault(browser, {}).setdefault(key, [])
    while idle and reuse:
        page = idle.pop()
        if not page.is_closed():
            page.set_viewport_size(viewport)
            return page
    context = browser.new_context(locale=locale, viewport=viewport)
    page = context.new_page()
    real_close = context.close
    origins: set[str] = set()

    def hand_back(*args: Any, **kwargs: Any) -> None:
        if page in idle:
            return
        if not _emptied(page, origins):
            real_close(*args, **kwargs)
            return
        idle.append(page)

    def track(frame: Any) -> None:
        if frame == page.main_frame and frame.url.startswith("http"):
            parts = urlsplit(frame.url)
            origins.add(f"{parts.scheme}://{parts.netloc}")

    page.on("framenavigated", track)
    context.close = hand_back  # type: ignore[method-assign]
    _CLOSERS[page] = real_close
    return page


# Each page's context's own close, for a page that is not to be handed back (`discard`).
_CLOSERS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def discard(page: Any) -> None:
    """Close `page`'s context for good: the page is not handed back to be loaded again."""
    close = _CLOSERS.pop(page, None)
    with contextlib.suppress(Exception):
        (close or page.context.close)()


def _emptied(page: Any, origins: set[str]) -> bool:
    try:
        for other in page.context.pages:
            if other is not page:
                other.close()
        if page.is_closed():
            return False
        for origin in sorted(origins):
            page.goto(origin + _NOWHERE)
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.context.clear_cookies()
        page.goto("about:blank")
        origins.clear()
        return True
    except Exception:
        return False
