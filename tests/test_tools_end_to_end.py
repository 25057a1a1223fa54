"""Each built-in tool through the whole agent: chosen by the offline model, and called by a
scripted model, on images the test makes."""

from __future__ import annotations

import json

import pytest
import segno
from PIL import Image

from agent import Agent
from agent.models import OfflineModel, ScriptedModel
from tests.conftest import collect
from tools import default_tools


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.fixture
def qr(tmp_path):
    path = tmp_path / "qr.png"
    segno.make("https://example.org/menu", error="m").save(path, scale=8)
    return path


@pytest.fixture
def photo(tmp_path):
    image = Image.new("RGB", (300, 200), (30, 90, 200))
    image.paste((240, 200, 20), (0, 0, 100, 200))
    exif = Image.Exif()
    exif[0x010F] = "Canon"
    exif[0x0110] = "EOS R5"
    path = tmp_path / "photo.jpg"
    image.save(path, exif=exif.tobytes())
    return path


CASES = [
    ("What camera took this photo?", "photo", "image_info", "EOS R5"),
    ("Rotate this image by 90 degrees", "photo", "image_edit", "img_2"),
    ("What are the main colours in this picture?", "photo", "colors", "blue"),
    ("Scan the QR code", "qr", "scan_code", "https://example.org/menu"),
    ("what is 15% of 80", None, "calculator", "12"),
    ("convert 100 °C to °F", None, "convert_units", "212"),
    ("What time is it in Tokyo?", None, "world_clock", "Tokyo"),
]


@pytest.mark.parametrize(("question", "image", "tool", "needle"), CASES, ids=[c[2] for c in CASES])
async def test_offline_model_picks_and_runs_each_tool(
    tools, request, question, image, tool, needle
):
    images = [request.getfixturevalue(image)] if image else []
    events = await collect(Agent(OfflineModel(), tools), question, images)
    calls = [e for e in events if e.type == "tool_call"]
    assert calls and calls[0].tool == tool
    result = next(e for e in events if e.type == "tool_result")
    assert result.ok, result.text
    assert events[-1].type == "answer" and needle.lower() in events[-1].text.lower()


SCRIPTED = [
    ("image_info", {"image_id": "img_1"}, "photo"),
    ("read_text", {"image_id": "img_1"}, "photo"),
    ("zoom", {"image_id": "img_1", "region": "top-left", "factor": 2}, "photo"),
    ("image_edit", {"image_id": "img_1", "operation": "grayscale"}, "photo"),
    ("colors", {"image_id": "img_1", "count": 3}, "photo"),
    ("scan_code", {"image_id": "img_1"}, "qr"),
    ("calculator", {"expression": "2**10"}, None),
    ("convert_units", {"value": 3, "from_unit": "kg", "to_unit": "lb"}, None),
    ("world_clock", {"place": "Europe/Paris"}, None),
]


@pytest.mark.parametrize(("tool", "args", "image"), SCRIPTED, ids=[c[0] for c in SCRIPTED])
async def test_scripted_model_calls_each_tool(tools, request, tool, args, image):
    images = [request.getfixturevalue(image)] if image else []
    model = ScriptedModel(
        [
            f"Thought: use {tool}\nAction: {tool}\nAction Input: {json.dumps(args)}",
            "Thought: done\nAnswer: ok",
        ]
    )
    events = await collect(Agent(model, tools), "please", images)
    result = next(e for e in events if e.type == "tool_result")
    assert result.ok, result.text
    observation = model.requests[1].messages[-1]["content"]
    text = observation if isinstance(observation, str) else observation[0]["text"]
    assert text.startswith("Observation: ") and result.text in text
    assert events[-1].type == "answer"


async def test_a_tool_cannot_open_another_sessions_image(tools, photo):
    model = ScriptedModel(
        [
            'Thought: x\nAction: zoom\nAction Input: {"image_id": "img_7"}',
            "Thought: x\nAnswer: no",
        ]
    )
    events = await collect(Agent(model, tools), "zoom", [photo])
    result = next(e for e in events if e.type == "tool_result")
    assert not result.ok and "img_1" in result.text


def test_every_tool_is_listed_in_the_header(tools):
    header = Agent(OfflineModel(), tools).header("en")
    for tool in tools:
        assert f"> Tool Name: {tool.name}" in header
