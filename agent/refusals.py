"""Why an upload is not a usable image, in one sentence, in English and in Chinese.

`agent.images.store` raises `ImageRejected` with a kind and the facts the sentence needs; the page
shows the sentence in its language. `{label}` is the file's name, or "The image" without one.
The sentences are the `refusals` group of the word catalogs (assets/words/).
"""

from __future__ import annotations

from typing import Any

from tools import words

# Each kind's sentence, per language.
SENTENCES = words.both("refusals.kinds")


def refusal(kind: str, language: str = "en", *, name: str = "", **facts: Any) -> str:
    """The sentence for a refused upload named `name` (may be empty) in `language`."""
    label = words.say(language, "refusals.named", name=name) if name else None
    label = label or words.say(language, "refusals.nameless")
    readable = words.say(language, "refusals.readable")
    return words.say(language, f"refusals.kinds.{kind}", label=label, readable=readable, **facts)
