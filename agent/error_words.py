"""How a turn went wrong, in one sentence, in English and in Chinese.

A `ModelError` and the runner's own `error` events carry a key and the facts the sentence
needs; the sentence is said in the conversation's language when the turn ends, so a Chinese
question that meets a rate limit reads Chinese. `str(ModelError)` stays English, for the log.
Durations are numbers of seconds and are said the language's way. The sentences are the
`errors` group of the word catalogs (assets/words/).
"""

from __future__ import annotations

from typing import Any

from tools import words

# Facts that are seconds; said as "1 second", "2.5 seconds", "3 秒".
_SECONDS = ("timeout", "wait", "limit_s")

SENTENCES = words.both("errors")


def seconds(value: float, language: str = "en") -> str:
    """ "1 second", "0.5 seconds", "60 seconds"; "60 秒"."""
    return words.say(language, "seconds.one" if value == 1 else "seconds.many", value=value)


def say(key: str, language: str = "en", **facts: Any) -> str:
    """The sentence `key` in `language` (en or zh, any spelling), with its facts."""
    for name in _SECONDS:
        if isinstance(facts.get(name), int | float):
            facts[name] = seconds(facts[name], language)
    return words.say(language, f"errors.{key}", **facts)
