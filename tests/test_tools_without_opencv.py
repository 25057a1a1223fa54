"""A slim machine without libGL.so.1: OpenCV (pulled in by the OCR engine) cannot load there.
The app must still list and run every other tool, and text reading must say why it cannot run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import png_bytes as png
from tests.support.bounded import run_bounded

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
UNAVAILABLE = "Text reading is unavailable on this server: the OCR engine could not load"


def without_libgl() -> dict[str, object]:
    """Run in a fresh process: start the tools as app.py does, then ask the offline agent to
    calculate, zoom, and read text; what a person would see each time."""
    import asyncio

    from tests.support.fake_ocr import hide_libgl

    hide_libgl()
    import app
    from agent import Agent, Session
    from agent.models import OfflineModel
    from tools import default_tools, read_text
    from tools.ocr.pool import OcrPool

    # The OCR workers are processes of their own: they get the same machine.
    engine = read_text.ENGINE.model_copy(update={"factory": "tests.support.fake_ocr:without_libgl"})
    read_text.POOL = OcrPool(engine)

    tools = default_tools()
    app.warm_up(tools)

    async def ask(text: str, images: tuple[Path, ...] = ()) -> str:
        agent = Agent(OfflineModel(), tools)
        events = [event async for event in agent.run(text, images, Session())]
        failed = [e.text for e in events if e.type == "tool_result" and not e.ok]
        return " | ".join([*failed, f"{events[-1].type}: {events[-1].text}"])

    return {
        "tools": sorted(tool.name for tool in tools),
        "opencv_loaded": "cv2" in sys.modules,
        "calculate": asyncio.run(ask("what is 6*7")),
        "zoom": asyncio.run(ask("Zoom into the bottom right corner", (EXAMPLES / "label.png",))),
        "scan": asyncio.run(ask("scan the QR code", (EXAMPLES / "sign.png",))),
        "read": asyncio.run(ask("read the text in this picture", (EXAMPLES / "sign.png",))),
    }


@pytest.fixture(scope="module")
def slim():
    # Room for the agent's worker threads: each reserves its stack in the address space.
    (outcome,) = run_bounded(
        "tests.test_tools_without_opencv:without_libgl", [[]], seconds=120, memory_mb=4096
    )
    assert outcome.finished and outcome.result is not None, outcome
    return eval(outcome.result)  # the repr of a dict of plain values


def test_every_tool_is_still_listed(slim):
    from tools import default_tools

    assert slim["tools"] == sorted(tool.name for tool in default_tools())
    assert "read_text" in slim["tools"] and not slim["opencv_loaded"]


def test_other_tools_still_run(slim):
    assert slim["calculate"] == "answer: 6*7 = 42"
    assert slim["zoom"].startswith("answer: Zoomed into the bottom-right region"), slim["zoom"]
    assert slim["scan"].startswith("answer: I found no QR code or barcode in img_1"), slim["scan"]


def test_reading_text_says_why_it_cannot(slim):
    assert f"{UNAVAILABLE} (libGL.so.1 missing)" in slim["read"], slim["read"]
    assert "Traceback" not in slim["read"] and "failed (" not in slim["read"]


def test_read_text_reports_a_missing_engine_package(store, ocr_engine):
    from PIL import Image

    from tools import read_text
    from tools.base import ToolContext

    ocr_engine("without_package")
    image_id = store.load(png(Image.new("RGB", (80, 40), "white"))).id
    args = read_text.ReadText.Args.model_validate({"image_id": image_id})
    with pytest.raises(read_text.OcrUnavailable) as caught:
        read_text.ReadText().run(args, ToolContext(store))
    message = str(caught.value)
    assert message.startswith(UNAVAILABLE) and "the Python package rapidocr" in message
    assert message.count(". ") == 0 and message.endswith(".")
    with pytest.raises(read_text.OcrUnavailable):
        read_text.ReadText().warm_up()
