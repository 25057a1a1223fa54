"""The example requests the page offers under the input, with their images in assets/examples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "assets" / "examples"

EXAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("Read the text on a sign", {"text": "What does this sign say?", "files": ["sign.png"]}),
    (
        "Zoom into small print, then read it",
        {
            "text": "Zoom into the bottom right corner and read the text there",
            "files": ["label.png"],
        },
    ),
    ("A calculation", {"text": "What is 12.5% of 2480 plus 37?", "files": []}),
    ("Convert 5 miles (asks for the unit)", {"text": "convert 5 miles", "files": []}),
    ("中文：北京现在几点？", {"text": "北京现在几点？", "files": []}),
    ("中文：现在几点了？（会追问城市）", {"text": "现在几点了？", "files": []}),
    ("A question no tool can answer", {"text": "Who will win the next World Cup?", "files": []}),
]


def example_values() -> list[list[dict[str, Any]]]:
    return [
        [{"text": value["text"], "files": [str(EXAMPLES_DIR / f) for f in value["files"]]}]
        for _, value in EXAMPLES
    ]
