"""A very long message must not stall the offline model's reading of it: every tool's trigger
phrases and argument extractor stay linear in the length of the text."""

from __future__ import annotations

import re

import pytest

from agent.models.offline.tool_hints import hints_for
from tests.support.bounded import run_bounded

LONG_TEXTS = {
    "digits": "5" * 40_000,
    "decimals": "1.5" * 14_000,
    "spaced numbers": "convert " + "5 " * 20_000,
    "words": "how many " + "a " * 20_000,
    "percentages": "20%" * 14_000,
    "chinese": "计算" + "3的" * 14_000,
    "number words": "convert " + "twenty five " * 6_000 + "miles" + " " * 20_000 + "-",
    "chinese numbers": "五" * 20_000 + "十" * 20_000 + "英里",
}


def read_like_the_offline_model(text: str) -> list[str]:
    """Match every tool's triggers against `text` and run its extractor, as the offline model
    does; the names of the tools that fit."""
    from tools import default_tools

    fitting = []
    for tool in default_tools():
        if any(re.search(pattern, text, re.IGNORECASE) for pattern in hints_for(tool).triggers):
            fitting.append(tool.name)
        tool.extract(text, ["img_1"], {})
    return fitting


@pytest.fixture(scope="module")
def outcomes():
    calls = [[text] for text in LONG_TEXTS.values()]
    return dict(zip(LONG_TEXTS, run_bounded(
        "tests.test_tools_long_text:read_like_the_offline_model",
        calls,
        setup=["tools:default_tools"],
        seconds=3,
    ), strict=True))  # fmt: skip


@pytest.mark.parametrize("kind", LONG_TEXTS)
def test_long_messages_are_read_quickly(outcomes, kind):
    outcome = outcomes[kind]
    assert outcome.finished and outcome.seconds < 3, f"{kind}: {outcome.seconds:.1f}s"
    assert not outcome.error, outcome.message
