"""Questions about what an image shows, asked of the offline agent with real images drawn here
(the CJK font the page's machines have) and read by the OCR: the answer is the line asked for,
whatever the OCR split, whichever tool the words could also mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tests.test_offline_answers_images import drawn
from tools import default_tools

RECEIPT = [
    (60, 30, "CORNER SHOP"), (60, 120, "Milk"), (560, 120, "1.29"), (60, 190, "Coffee beans"),
    (560, 190, "10.05"), (60, 260, "TOTAL"), (560, 260, "11.34"), (60, 350, "THANK YOU"),
]  # fmt: skip


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("questions")
    return {"receipt": drawn(folder, "receipt.png", RECEIPT)}


async def ask(tools, text, image, language="en", session=None):
    agent = Agent(OfflineModel(), tools, language=language)
    events = await collect(agent, text, [image] if image else [], session or Session())
    return events[-1].text


async def test_a_total_the_ocr_split_is_the_total(tools, images):
    # The OCR reads this TOTAL as "TOTAL 1 1.34".
    answer = await ask(tools, "what's the total?", images["receipt"])
    assert answer == "The total is 11.34 (img_1: “TOTAL 11.34”)."
