"""Asked about a receipt's total, the hours on a given day or a gate and its closing time, the
offline agent answers with the value and its line, not the whole text: real images drawn here,
read by the real OCR, through the whole agent."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from agent import Agent, Session
from agent.models import OfflineModel
from tests.conftest import collect
from tools import default_tools


def cjk_font() -> str:
    found = subprocess.run(
        ["fc-list", ":lang=zh", "file"], capture_output=True, text=True, check=False
    ).stdout
    paths = [line.split(":")[0] for line in found.splitlines() if line.strip()]
    if not paths:
        pytest.skip("no CJK font installed")
    return sorted(paths, key=lambda p: "wqy" not in p)[0]


def drawn(folder: Path, name: str, rows: list[tuple[int, int, str]]) -> Path:
    image = Image.new("RGB", (900, 560), "white")
    draw = ImageDraw.Draw(image)
    face = ImageFont.truetype(cjk_font(), 40)
    for x, y, text in rows:
        draw.text((x, y), text, font=face, fill="black")
    path = folder / name
    image.save(path)
    return path


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("answers")


async def ask(tools, text, image, language="en"):
    agent = Agent(OfflineModel(), tools, language=language)
    events = await collect(agent, text, [image], Session())
    return events[-1].text


async def test_a_receipts_total(tools, folder):
    receipt = drawn(
        folder,
        "receipt.png",
        [(60, 30, "FRESH MARKET"), (60, 120, "Bread"), (560, 120, "2.40"),
         (60, 190, "SUBTOTAL"), (560, 190, "15.40"), (60, 260, "TOTAL"), (560, 260, "16.65"),
         (60, 350, "CARD PAYMENT")],
    )  # fmt: skip
    answer = await ask(tools, "what's the total on this receipt?", receipt)
    assert answer == "The total is 16.65 (img_1: “TOTAL 16.65”)."


async def test_a_gate_and_when_it_closes(tools, folder):
    boarding = drawn(
        folder,
        "pass.png",
        [(40, 30, "BOARDING PASS"), (40, 110, "FLIGHT CA1234"), (40, 180, "GATE B17"),
         (420, 180, "SEAT 23A"), (40, 250, "BOARDING 09:10"), (40, 320, "GATE CLOSES 09:40")],
    )  # fmt: skip
    answer = await ask(tools, "Which gate, and when does it close?", boarding)
    assert answer.startswith("Gate B17, closes 09:40 (img_1: ")
    assert "“GATE CLOSES 09:40”" in answer and "CA1234" not in answer


async def test_chinese_hours_on_a_day(tools, folder):
    notice = drawn(
        folder,
        "hours.png",
        [(60, 40, "营业时间"), (60, 140, "周一至周五 9:00-21:00"), (60, 220, "周六 10:00-16:00"),
         (60, 300, "周日休息")],
    )  # fmt: skip
    answer = await ask(tools, "周六几点开门？", notice, language="zh")
    assert answer == "周六 10:00-16:00（img_1：“周六 10:00-16:00”）。"
    answer = await ask(tools, "When does it open on Saturday?", notice)
    assert answer == "Saturday 10:00-16:00 (img_1: “周六 10:00-16:00”)."
