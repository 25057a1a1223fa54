"""The example requests the page offers under the input, with their images in assets/examples.

Each language has its own set, asked in that language: a Chinese page shows the Chinese set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "assets" / "examples"

Example = tuple[str, dict[str, Any]]

EXAMPLE_SETS: dict[str, list[Example]] = {
    "en": [
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
        ("The time in Beijing", {"text": "What time is it in Beijing?", "files": []}),
        ("What time is it? (asks for the city)", {"text": "What time is it?", "files": []}),
        (
            "A question no tool can answer",
            {"text": "Who will win the next World Cup?", "files": []},
        ),
    ],
    "zh": [
        ("识别标牌上的文字", {"text": "这个标牌上写了什么？", "files": ["sign.png"]}),
        ("放大小字再识别", {"text": "放大右下角，识别上面的文字", "files": ["label.png"]}),
        ("计算", {"text": "计算 2480 × 12.5% + 37", "files": []}),
        ("换算 5 英里（会追问单位）", {"text": "换算 5 英里", "files": []}),
        ("北京现在几点？", {"text": "北京现在几点？", "files": []}),
        ("现在几点了？（会追问城市）", {"text": "现在几点了？", "files": []}),
        ("没有工具能回答的问题", {"text": "下一届世界杯谁会赢？", "files": []}),
    ],
}
EXAMPLES = EXAMPLE_SETS["en"]


def example_labels(language: str = "en") -> list[str]:
    return [label for label, _ in EXAMPLE_SETS[language]]


def example_values(language: str = "en") -> list[list[dict[str, Any]]]:
    return [
        [{"text": value["text"], "files": [str(EXAMPLES_DIR / f) for f in value["files"]]}]
        for _, value in EXAMPLE_SETS[language]
    ]
