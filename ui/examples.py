"""The example requests the page offers under the input, with their images in assets/examples.

Each language has its own set, asked in that language: a Chinese page shows the Chinese set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.words import LANGUAGES, Language, words

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "assets" / "examples"

Example = tuple[str, dict[str, Any]]

# Each example by its key in the `examples` group of the word catalogs, which hold its title and
# question in each language, with the images it sends, the same in both.
EXAMPLE_FILES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sign", ("sign.png",)),
    ("small_print", ("label.png",)),
    ("calculation", ()),
    ("convert", ()),
    ("time_in_city", ()),
    ("time_asks_city", ()),
    ("no_tool", ()),
)


def _example_set(language: Language) -> list[Example]:
    found: list[Example] = []
    for name, files in EXAMPLE_FILES:
        example = words(language, f"examples.{name}")
        found.append((example["title"], {"text": example["question"], "files": list(files)}))
    return found


EXAMPLE_SETS: dict[str, list[Example]] = {
    language: _example_set(language) for language in LANGUAGES
}
EXAMPLES = EXAMPLE_SETS["en"]


def example_labels(language: str = "en") -> list[str]:
    return [label for label, _ in EXAMPLE_SETS[language]]


def example_values(language: str = "en") -> list[list[dict[str, Any]]]:
    return [
        [{"text": value["text"], "files": [str(EXAMPLES_DIR / f) for f in value["files"]]}]
        for _, value in EXAMPLE_SETS[language]
    ]
