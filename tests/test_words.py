"""The word catalogs (assets/words/): the same keys and the same places to fill in both
languages, no empty entry, and no entry that no code asks for."""

from __future__ import annotations

import ast
import string
from collections import Counter
from pathlib import Path

import pytest

from tools import words

ROOT = Path(__file__).resolve().parent.parent

# Keys the code builds from a prefix and a value, so no literal names them whole; each prefix
# stands for every key under it.
DYNAMIC = (
    # agent/models/openai_errors.py: `http_{code}` for a 500, 502 or 504.
    "errors.http_5",
    # agent/models/offline/answers.py: what a picked line says (`say_{kind}`, `say_day_{how}`,
    # `say_hours_{how}`) and what it lacks (`miss_{kind}`), by the kind of fact asked for.
    "offline.text.say_",
    "offline.text.miss_",
    # ui/layout.py: the Settings radios' choices (`detail_{level}`, `protocol_{name}`,
    # `vision_{mode}`).
    "page.detail_",
    "page.protocol_",
    "page.vision_",
    # ui/scenarios_tab/handlers.py: why a conversation file cannot be shown (`viewer_{reason}`).
    "page.viewer_",
)


def entries(language: str) -> dict[str, object]:
    return words.flat(words.catalogs()[language])


def test_both_languages_have_the_same_keys():
    assert entries("en").keys() == entries("zh").keys()


def fields(text: str) -> Counter[str]:
    """The places a sentence leaves to fill: `{name}` by name, `{}` counted."""
    found: Counter[str] = Counter()
    for _, name, _, _ in string.Formatter().parse(text):
        if name is not None:
            found[name.split(".")[0].split("[")[0]] += 1
    return found


def test_the_same_places_to_fill_in_both_languages():
    chinese = entries("zh")
    for key, english in entries("en").items():
        if isinstance(english, str):
            assert set(fields(english)) == set(fields(str(chinese[key]))), key
            assert fields(english)[""] == fields(str(chinese[key]))[""], key


@pytest.mark.parametrize("language", words.LANGUAGES)
def test_every_entry_is_a_sentence_or_a_list_of_words(language):
    for key, value in entries(language).items():
        if isinstance(value, list):
            assert value and all(isinstance(item, str) and item.strip() for item in value), key
        else:
            assert isinstance(value, str) and value, key


def literals() -> set[str]:
    """Every string constant in the app's code, f-strings' fixed parts included."""
    found: set[str] = set()
    files = [ROOT / "app.py"]
    for folder in ("agent", "tools", "ui"):
        files += (ROOT / folder).rglob("*.py")
    for path in files:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return found


def test_every_key_is_used_by_some_code():
    known = literals()
    unused = []
    for key in entries("en"):
        parts = key.split(".")
        tails = {".".join(parts[i:]) for i in range(len(parts))}
        if not (tails & known or key.startswith(DYNAMIC)):
            unused.append(key)
    assert not unused


def catalog_folder(tmp_path: Path, english: str, chinese: str, monkeypatch) -> None:
    (tmp_path / "en.yaml").write_text(english, "utf-8")
    (tmp_path / "zh.yaml").write_text(chinese, "utf-8")
    monkeypatch.setattr(words, "FOLDER", tmp_path)
    words.catalogs.cache_clear()


@pytest.fixture
def fresh_catalogs():
    yield
    words.catalogs.cache_clear()


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("a:\n  hello: Hello\n  bye: Bye\n", "a:\n  hello: 你好\n"),  # missing in Chinese
        ("a:\n  hello: Hello\n", "a:\n  hello: 你好\n  bye: 再见\n"),  # missing in English
        ("a:\n  hello: Hello\n", "a:\n  hello: [你好]\n"),  # a sentence against a list
        ("a:\n  hello: Hello\n  hello: Hi\n", "a:\n  hello: 你好\n"),  # given twice
        ("a:\n  yes: Yes\n", "a:\n  yes: 是\n"),  # YAML reads `yes` as true
        ("a:\n  hello: 3\n", "a:\n  hello: 3\n"),  # a number, not words
    ],
)
def test_a_malformed_catalog_is_refused_when_read(
    tmp_path, monkeypatch, fresh_catalogs, english, chinese
):
    catalog_folder(tmp_path, english, chinese, monkeypatch)
    with pytest.raises(words.CatalogError):
        words.catalogs()


def test_a_language_is_named_any_way(tmp_path, monkeypatch, fresh_catalogs):
    catalog_folder(tmp_path, "a:\n  hi: Hi {name}\n", "a:\n  hi: 你好，{name}\n", monkeypatch)
    assert words.say("zh-CN", "a.hi", name="Li") == "你好，Li"
    assert words.say("zh_TW", "a.hi", name="Li") == "你好，Li"
    assert words.say("English", "a.hi", name="Li") == "Hi Li"
    assert words.say(None, "a.hi", name="Li") == "Hi Li"
    assert words.both("a.hi") == {"en": "Hi {name}", "zh": "你好，{name}"}
    with pytest.raises(KeyError):
        words.say("en", "a.nothing")
