"""The app's words, one catalog per language: assets/words/en.yaml and assets/words/zh.yaml.

Every sentence the agent, the tools and the page say, and the words they recognise in what
people type, live there under dotted keys grouped by where they are used (`errors.http_401`,
`approval.replies.yes`, `tools.zoom.done`). This module sits at the bottom layer so that tools,
the agent and the page all read the same catalogs; it also decides, in one place, which
catalog a language name means.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Literal

import yaml

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")
FOLDER = Path(__file__).resolve().parent.parent / "assets" / "words"


class CatalogError(ValueError):
    """A catalog is malformed, or the two languages do not have the same keys."""


def language_key(language: str | None) -> Language:
    """ "zh" for any way of naming Chinese (zh, zh-CN, zh_TW, ZH), else "en"."""
    return "zh" if str(language or "").lower().startswith("zh") else "en"


def words(language: str | None, key: str) -> Any:
    """What `key` holds in `language`'s catalog: a sentence, a list of words, or a table."""
    value: Any = catalogs()[language_key(language)]
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"no words under {key!r}")
        value = value[part]
    return value


def say(language: str | None, key: str, **values: Any) -> str:
    """The sentence `key` in `language`, its `{name}` places filled from `values`."""
    text = words(language, key)
    if not isinstance(text, str):
        raise KeyError(f"{key!r} is a {type(text).__name__}, not a sentence")
    return text.format(**values)


def both(key: str) -> dict[str, Any]:
    """What `key` holds in each language, by language key."""
    return {language: words(language, key) for language in LANGUAGES}


def flat(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every sentence and list of a catalog under its dotted key."""
    found: dict[str, Any] = {}
    for name, value in table.items():
        if isinstance(value, dict):
            found.update(flat(value, f"{prefix}{name}."))
        else:
            found[f"{prefix}{name}"] = value
    return found


@functools.cache
def catalogs() -> dict[Language, dict[str, Any]]:
    """Both catalogs, read once and checked against each other."""
    loaded: dict[Language, dict[str, Any]] = {
        language: _read(FOLDER / f"{language}.yaml") for language in LANGUAGES
    }
    shapes = {language: _shape(flat(table)) for language, table in loaded.items()}
    english, chinese = shapes["en"], shapes["zh"]
    if english != chinese:
        only_en = sorted(english.keys() - chinese.keys())
        only_zh = sorted(chinese.keys() - english.keys())
        kinds = sorted(k for k in english.keys() & chinese.keys() if english[k] != chinese[k])
        raise CatalogError(
            f"the word catalogs differ: only in en {only_en}, only in zh {only_zh}, "
            f"a sentence in one and a list in the other {kinds}"
        )
    return loaded


def _shape(entries: dict[str, Any]) -> dict[str, str]:
    return {key: "list" if isinstance(value, list) else "text" for key, value in entries.items()}


class _Loader(yaml.CSafeLoader):
    """YAML that refuses a key given twice (plain YAML keeps the last one silently); parsed by
    libyaml, which every process that starts reads its words through."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str):
                # `yes:`, `no:`, `on:` are booleans to YAML; word keys are always text.
                raise CatalogError(f"{node.start_mark}: the key {key!r} must be quoted")
            if key in seen:
                raise CatalogError(f"{node.start_mark}: the key {key!r} is given twice")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _read(path: Path) -> dict[str, Any]:
    table = yaml.load(path.read_text("utf-8"), Loader=_Loader)
    if not isinstance(table, dict):
        raise CatalogError(f"{path} does not hold a table of words")
    for key, value in flat(table).items():
        if not isinstance(value, str | list) or (
            isinstance(value, list) and not all(isinstance(item, str) for item in value)
        ):
            raise CatalogError(f"{path}: {key} is neither a sentence nor a list of words")
    return table
