"""Shared fixtures: small tools declared the way real ones are, and a helper to run a turn."""

from __future__ import annotations

import io
import time
from typing import Literal

import pytest
from PIL import Image
from pydantic import Field

from agent.images.store import ImageStore
from agent.models.offline import tool_hints
from agent.models.offline.tool_hints import ToolHints
from tools.base import StrictArgs, Tool, ToolContext, ToolInputError, ToolResult


class EchoArgs(StrictArgs):
    text: str = Field(description="What to echo back.")


class Echo(Tool):
    name = "echo"
    description = "Repeat the text it is given."
    Args = EchoArgs

    def extract(self, text, image_ids, known):
        rest = text.split("echo", 1)[-1].strip()
        return {"text": rest} if rest else {}

    def run(self, args, ctx):
        return ToolResult(text=f"echo: {args.text}")


class TripArgs(StrictArgs):
    city: str = Field(description="The city to travel to.")
    date: str = Field(description="The travel date, e.g. 2026-12-24.")
    seat: Literal["window", "aisle"] = Field(default="window", description="Seat preference.")


class BookTrip(Tool):
    name = "book_trip"
    description = "Book a train trip to a city on a date."
    Args = TripArgs

    def extract(self, text, image_ids, known):
        found = {}
        for city in ("Paris", "Berlin", "Rome", "北京", "上海"):
            if city.lower() in text.lower():
                found["city"] = city
        for word in text.replace(",", " ").split():
            if word[:4].isdigit() and "-" in word:
                found["date"] = word.strip(".")
        return found

    def run(self, args, ctx):
        return ToolResult(text=f"Booked {args.city} on {args.date}, {args.seat} seat.")


class SlowArgs(StrictArgs):
    seconds: float = Field(default=5.0, description="How long to sleep.")


class Slow(Tool):
    name = "slow"
    description = "Sleep for a while."
    Args = SlowArgs
    timeout = 0.3

    def run(self, args, ctx):
        ctx.progress("sleeping")
        deadline = time.monotonic() + args.seconds
        # Checks the context so a timed-out or cancelled call frees its thread promptly.
        while time.monotonic() < deadline and not ctx.cancelled:
            time.sleep(0.01)
        return ToolResult(text="woke up")


class CropArgs(StrictArgs):
    image_id: str = Field(description="The image to crop.")


class Crop(Tool):
    name = "crop"
    description = "Return the left half of an image as a new image."
    Args = CropArgs
    uses_images = True

    def extract(self, text, image_ids, known):
        return {"image_id": image_ids[-1]} if image_ids else {}

    def run(self, args, ctx: ToolContext):
        image = ctx.open_image(args.image_id)
        out = ctx.add_image(image.crop((0, 0, image.width // 2, image.height)), "left half")
        return ToolResult(text=f"Cropped {args.image_id} into {out.id}.", images=[out])


# What the offline model knows of these tools: each one entry in its package, as a real tool's.
tool_hints.register("echo", ToolHints(en=(r"\becho\b",), zh=(r"重复",)))
tool_hints.register("book_trip", ToolHints(en=(r"\bbook\b", r"\btrip\b"), zh=(r"订票",)))
tool_hints.register("crop", ToolHints(en=(r"\bcrop\b",)))


class Boom(Tool):
    name = "boom"
    description = "Always fails, as a bug would."
    Args = EchoArgs

    def run(self, args, ctx):
        raise RuntimeError("kaput")


class Refuse(Tool):
    name = "refuse"
    description = "Always refuses its input, as a tool does with arguments it cannot use."
    Args = EchoArgs

    def run(self, args, ctx):
        raise ToolInputError(f"cannot use {args.text!r}; give a word instead")


@pytest.fixture
def test_tools():
    return [Echo(), BookTrip(), Slow(), Crop(), Boom(), Refuse()]


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture
def store(tmp_path):
    """A session's image store, as the agent gives it to tools."""
    return ImageStore(root=tmp_path / "images")


@pytest.fixture
def png(tmp_path):
    path = tmp_path / "photo.png"
    Image.new("RGB", (64, 32), "red").save(path)
    return path


@pytest.fixture
def ocr_engine(monkeypatch):
    """`ocr_engine("Hi", size=1)` makes text reading use a stand-in engine from
    `tests.support.fake_ocr`, in worker processes of its own that always stop after the test."""
    from tools import read_text
    from tools.ocr.pool import OcrPool

    pools = []

    def use(name: str, size: int = 1) -> OcrPool:
        spec = read_text.ENGINE.model_copy(update={"factory": f"tests.support.fake_ocr:{name}"})
        pools.append(OcrPool(spec, size))
        monkeypatch.setattr(read_text, "POOL", pools[-1])
        return pools[-1]

    yield use
    for pool in pools:
        pool.shutdown()


@pytest.fixture(scope="session", autouse=True)
def _ocr_workers_stop():
    """No OCR worker process outlives the test run."""
    yield
    from tools.ocr.pool import shutdown_all

    shutdown_all()


@pytest.fixture(scope="session")
def _recorded_ocr_pool(_ocr_workers_stop):
    from tools import read_text
    from tools.ocr.pool import OcrPool

    spec = read_text.ENGINE.model_copy(update={"factory": "tests.support.recorded_ocr:Recorded"})
    return read_text.POOL, OcrPool(spec)


@pytest.fixture(autouse=True)
def _ocr_replies(request, _recorded_ocr_pool, monkeypatch):
    """Text reading in the process answers with the real engine's recorded replies
    (`tests.support.recorded_ocr`), except in tests marked `real_ocr`: those that test reading."""
    from tools import read_text

    real, recorded = _recorded_ocr_pool
    use = real if request.node.get_closest_marker("real_ocr") else recorded
    monkeypatch.setattr(read_text, "POOL", use)


async def collect(agent, text, images=(), session=None):
    return [event async for event in agent.run(text, images, session)]


def types(events):
    return [event.type for event in events]


@pytest.fixture
def no_model_env(monkeypatch):
    """No model named by the environment: the page and the CLI fall back to the offline model,
    whatever the machine running the tests has set."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
