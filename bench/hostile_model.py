"""A hostile OpenAI-compatible model for `bench/stall.py`: what any visitor can point a session's
Settings at on a page that is not public.

    .venv/bin/python bench/hostile_model.py   # prints its base URL, serves until stdin closes

It runs in a process of its own at the lowest priority, so that streaming its long replies
takes as little as it can from the page and the bench's probes on a shared machine.
`hostile_reply` decides each reply from the request alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.openai_server import OpenAIServer
from tests.support.openai_tool_calls import Calls

REPAIR_MARK, CALLS_MARK = "hostile-repair", "hostile-calls"
REPAIR_STEPS, CALL_COUNT, WEATHER_EVERY = 3, 12_000, 40


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def hostile_reply(body: dict[str, Any]) -> str | Calls:
    """What the hostile model answers, from the request alone. To a turn that asked with
    REPAIR_MARK: a ReAct step whose input is `{"` 8,000 times (16 KB, which json_repair once
    took 8-14 s to read), REPAIR_STEPS steps running; to one with CALLS_MARK: one native reply
    of CALL_COUNT calls, every WEATHER_EVERY-th to the weather plugin. After those, and to
    anything else, a plain answer ("4" to "2 + 2")."""
    messages = body.get("messages") or []
    asked = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    marked = [i for i in asked if _marks(_text(messages[i]))]
    start = (marked or asked or [0])[-1]
    said = _text(messages[start]) if messages else ""
    steps = sum(1 for m in messages[start + 1 :] if m.get("role") == "assistant")
    if REPAIR_MARK in said and steps < REPAIR_STEPS:
        return "Thought: x\nAction: calculator\nAction Input: " + '{"' * 8000
    if CALLS_MARK in said and steps == 0:
        calls: list[tuple[str, dict[str, Any] | str]] = []
        for i in range(CALL_COUNT):
            weather = i % WEATHER_EVERY == 0
            calls.append(
                ("weather", {"city": "Paris"})
                if weather
                else ("calculator", {"expression": f"{i}+1"})
            )
        return Calls(calls, style="llamacpp")
    return "Thought: easy.\nAnswer: 4" if "2 + 2" in said else "Thought: done.\nAnswer: done."


def _marks(text: str) -> bool:
    return REPAIR_MARK in text or CALLS_MARK in text


def serve() -> None:
    """Serve on a free port; print the base URL; stop when stdin closes."""
    # A hostile model runs on someone else's machine; here it shares two cores with the page,
    # and streaming 12,000 calls (all of them, even to a client that has stopped reading)
    # would be counted against the page. It gives way to everything else.
    os.nice(19)
    # Large pieces: the replies are long.
    with OpenAIServer(hostile_reply, chunk_size=512) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    serve()
