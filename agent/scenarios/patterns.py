"""Regular expressions from scenario files, matched in linear time.

A scenario file may come from anyone who can open the page, and Python's `re` backtracks: a
150-byte `(.|.)*QQQ` holds the GIL for minutes, so neither the event loop nor a thread is safe
from it. RE2 matches in time linear in the text, whatever the pattern, and refuses the few
constructs that need backtracking (look-around, back-references) when the file is read, with a
sentence saying so. Pattern and text are both bounded, so the cost of one check is too.
"""

from __future__ import annotations

import functools

import re2

MAX_PATTERN_CHARS = 1000
# Longer answers are checked on their first part: what a scenario looks for comes early, and a
# hostile model's megabyte of text must not be what a check costs.
MAX_SUBJECT_CHARS = 20_000
# RE2's own memory for one compiled pattern (its default is 8 MiB); `a{1000}{1000}` needs more
# and is refused as too large instead of taking the memory.
_MAX_MEM = 4 << 20


class PatternError(ValueError):
    """A pattern that cannot be used; the message is one sentence for the file's author."""


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # a bad pattern is the author's to hear of, not the server log's
    options.max_mem = _MAX_MEM
    return options


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> re2._Regexp:
    """The compiled pattern, or `PatternError` naming what is wrong with it."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(
            f"a regular expression of {len(pattern)} characters is over the limit of "
            f"{MAX_PATTERN_CHARS}"
        )
    try:
        return re2.compile(pattern, _options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else str(exc)
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        hint = ""
        if "perl operator" in reason or "escape sequence" in reason:
            hint = " (patterns use RE2 syntax: no look-around or back-references)"
        raise PatternError(f"not a valid regular expression: {reason}{hint}") from None


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` is found in `text` (its first `MAX_SUBJECT_CHARS` characters)."""
    return compile_pattern(pattern).search(text[:MAX_SUBJECT_CHARS]) is not None
