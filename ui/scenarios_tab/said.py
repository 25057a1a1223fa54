"""What the Scenarios tab says, kept as data: a sentence of the word catalogs with the facts it
names (`Said`), so that a run's message is said again in the other language when the Language
setting changes; and the text a person or a model server gave, made safe to show.

A sentence made elsewhere in the session's language (a turn limit's, a model error's) is
recognised by the catalog sentence it was made from (`heard`), and said again as that one.
No gradio here.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools import words as catalog
from tools.words import LANGUAGES, language_key

from ..typed_text import as_text

# The groups a sentence heard from elsewhere may come from: the page's (the turn limits, the
# model allow-list) and the model's errors.
HEARD_GROUPS = ("page", "errors")
# Below this many fixed characters a sentence would match too much to be recognised by.
_LEAST_FIXED = 12
# How long a name the person typed may be where the page shows it.
NAME_CHARS = 48


def shorter(name: str, limit: int = NAME_CHARS) -> str:
    """`name` on one line, its middle left out past `limit` characters: two long names that
    differ only at the end still look different."""
    flat = " ".join(name.split())
    if len(flat) <= limit:
        return flat
    tail = limit // 3
    return f"{flat[: limit - tail - 1]}…{flat[-tail:]}"


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Said:
    """A sentence of the catalogs (`key`, dotted) with its facts; or, with no key, `text` as it
    was given; or, with `parts`, those sentences one after another on one line. A fact is a
    number, a text (escaped when shown as Markdown) or another `Said`."""

    key: str = ""
    facts: tuple[tuple[str, Any], ...] = ()
    text: str = ""
    parts: tuple[Said, ...] = ()
    # Heard from elsewhere: its facts are the words it had, so formats are not applied again.
    heard: bool = False

    def say(self, language: str, mark: Callable[[str], str] = _same) -> str:
        """The sentence in `language`; `mark` makes each text fact safe where it is shown
        (`as_text` for Markdown)."""
        if self.parts:
            gap = "" if language_key(language) == "zh" else " "
            return gap.join(part.say(language, mark) for part in self.parts)
        if not self.key:
            return mark(self.text)
        values = {name: _shown(value, language, mark) for name, value in self.facts}
        template = catalog.words(language, self.key)
        return (_bare(template) if self.heard else template).format(**values)

    def markdown(self, language: str) -> str:
        return self.say(language, as_text)

    def fact(self, name: str) -> Any:
        return dict(self.facts).get(name)

    def replaced(self, old: str, new: str) -> Said:
        """The sentence with every text fact that is `old` said as `new` (a long name shown
        shorter), in the sentences it holds too."""
        if self.parts:
            return Said(parts=tuple(part.replaced(old, new) for part in self.parts))
        if not self.key:
            return self if self.text != old else Said(text=new)
        facts = tuple((name, _replaced(value, old, new)) for name, value in self.facts)
        return Said(self.key, facts, heard=self.heard)


def sentence(key: str, **facts: Any) -> Said:
    """The page's sentence `key` (of the catalogs' `page` group) with `facts`."""
    return Said(f"page.{key}", tuple(facts.items()))


def plain(text: str) -> Said:
    return Said(text=text)


def line(*parts: Said | None) -> Said:
    """Sentences one after another on one line (none left out but `None`)."""
    kept = tuple(part for part in parts if part is not None)
    return kept[0] if len(kept) == 1 else Said(parts=kept)


def heard(text: str, language: str) -> Said:
    """`text`, made in `language` from a sentence of the catalogs, as that sentence with the
    facts it was given; as it is when it was made from none."""
    best: tuple[int, str, dict[str, str]] | None = None
    for key, pattern, fixed in _patterns(language_key(language)):
        found = pattern.fullmatch(text)
        if found and (best is None or fixed > best[0]):
            best = (fixed, key, found.groupdict())
    if best is None:
        return plain(text)
    _, key, facts = best
    return Said(key, tuple(facts.items()), heard=True)


def _shown(value: Any, language: str, mark: Callable[[str], str]) -> Any:
    if isinstance(value, Said):
        return value.say(language, mark)
    return mark(value) if isinstance(value, str) else value


def _replaced(value: Any, old: str, new: str) -> Any:
    if isinstance(value, Said):
        return value.replaced(old, new)
    return new if value == old else value


def _bare(template: str) -> str:
    """`template` with its places' formats and conversions left out: `{limit:,}` is
    `{limit}`, to be filled with words that are formatted already."""
    out = []
    for fixed, name, _, _ in string.Formatter().parse(template):
        out.append(fixed.replace("{", "{{").replace("}", "}}"))
        if name is not None:
            out.append("{" + name + "}")
    return "".join(out)


@functools.cache
def _patterns(language: str) -> list[tuple[str, re.Pattern[str], int]]:
    """Each sentence of `HEARD_GROUPS` in `language` as a pattern its filled-in text matches,
    with how many fixed characters it has (the most specific match wins)."""
    assert language in LANGUAGES
    found = []
    for group in HEARD_GROUPS:
        for name, template in catalog.flat(catalog.words(language, group)).items():
            if not isinstance(template, str):
                continue
            parsed = _pattern(template)
            if parsed is not None and parsed[1] >= _LEAST_FIXED:
                found.append((f"{group}.{name}", *parsed))
    return found


def _pattern(template: str) -> tuple[re.Pattern[str], int] | None:
    parts, fixed, names = [], 0, set()
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for literal, name, _, _ in parsed:
        parts.append(re.escape(literal))
        fixed += len(literal)
        if name is None:
            continue
        if not name.isidentifier():
            return None
        parts.append(f"(?P={name})" if name in names else f"(?P<{name}>.+?)")
        names.add(name)
    return re.compile("".join(parts), re.DOTALL), fixed
