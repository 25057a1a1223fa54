"""The page on a narrow screen (a phone): the chat and the trace are one tap apart, and the
chat, with its input under it, is what is in view when the page opens and after each message.

The layout is CSS (assets/style.css, `max-width: 640px`); what is here only scrolls. On a wider
screen the jump buttons are hidden and nothing here moves the page.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

# The breakpoint of style.css's phone layout.
NARROW = "(max-width: 640px)"


def _scroll_to(element_id: str, then: str = "") -> str:
    """Browser code that, on a narrow screen, puts the top of `element_id` at the top."""
    return f"""() => {{
  if (!window.matchMedia({json.dumps(NARROW)}).matches) return;
  const el = document.getElementById({json.dumps(element_id)});
  if (el) el.scrollIntoView({{ block: "start", behavior: "instant" }});
  {then}
}}"""


def opening_settings() -> dict:
    """The settings of `assets/page/opening.js`: on a phone the page opens at the top of the
    chat, not scrolled past it by the input's autofocus."""
    return {"narrow": NARROW}


def wire_phone(parts: SimpleNamespace, sends: list[Any]) -> None:
    """The jump buttons, and the chat brought into view when a message is sent (`sends`:
    the events that send one, such as the input's submit and the examples' clicks)."""
    quiet = {"queue": False, "show_progress": "hidden", "api_visibility": "private"}
    parts.to_trace.click(None, js=_scroll_to("trace-column"), **quiet)
    parts.to_chat.click(None, js=_scroll_to("chat"), **quiet)
    for send in sends:
        send(None, js=_scroll_to("chat"), **quiet)
