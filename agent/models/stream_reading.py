"""Reading an OpenAI-compatible stream: where a stop line begins, how much text is safe to send
before a line may still turn into one, a reasoning model's thinking, and what the last chunk
reports about the call."""

from __future__ import annotations

import re
from typing import Any

from .base import ModelRequest


def reasoning_text(delta: Any) -> str:
    # vLLM and DeepSeek call it `reasoning_content`, OpenRouter and newer servers `reasoning`.
    for name in ("reasoning_content", "reasoning"):
        value = getattr(delta, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


def stop_pattern(stops: list[str]) -> re.Pattern[str] | None:
    """Matches a stop string that begins a line, after optional spaces."""
    if not stops:
        return None
    return re.compile(r"^[ \t]*(?:" + "|".join(map(re.escape, stops)) + ")", re.MULTILINE)


def stop_at(text: str, pattern: re.Pattern[str] | None, sent: int) -> int | None:
    """Where the first stop line starts; lines before the one holding `sent` were checked."""
    if pattern is None:
        return None
    match = pattern.search(text, text.rfind("\n", 0, sent) + 1)
    return match.start() if match else None


def safe_end(text: str, stops: list[str]) -> int:
    """How much of `text` can be sent without risking text that turns out to be a stop string."""
    line_start = text.rfind("\n") + 1
    tail = text[line_start:].lstrip(" \t")
    if any(s.startswith(tail) for s in stops):
        return line_start
    return len(text)


def note_report(request: ModelRequest, chunk: Any) -> None:
    """Keep what a chunk says about the call: the finish reason, and the usage that a final
    chunk carries when asked for (`stream_options`)."""
    report = request.report
    for choice in chunk.choices or ():
        if choice.finish_reason:
            report.finish_reason = choice.finish_reason
    usage = getattr(chunk, "usage", None)
    if usage is not None:
        report.input_tokens = getattr(usage, "prompt_tokens", None)
        report.output_tokens = getattr(usage, "completion_tokens", None)
        details = getattr(usage, "prompt_tokens_details", None)
        report.cached_tokens = getattr(details, "cached_tokens", None)
