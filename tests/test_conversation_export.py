"""The page's download: the whole conversation as a zip of JSON and image files."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from tools.convert_units import ConvertUnits
from tools.zoom import Zoom
from ui.handlers import PageHandlers

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


pytestmark = pytest.mark.usefixtures("no_model_env")


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


def opened(path: str) -> tuple[dict, zipfile.ZipFile]:
    archive = zipfile.ZipFile(path)
    return json.loads(archive.read("conversation.json")), archive


async def test_the_download_holds_every_turn_with_its_words_images_and_events():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits(), Zoom()])
    label = str(EXAMPLES / "label.png")
    *_, (_, _, state, _) = await run(
        page.chat({"text": "Zoom into the top left", "files": [label]}, None)
    )
    await run(page.chat({"text": "convert 5 miles"}, state))
    await run(page.chat({"text": "km"}, state))
    data, archive = opened(state.trace_file)
    with archive:
        assert data["format"] == "multimodal-react-agent/conversation" and data["version"] == 1
        turns = data["turns"]
        assert [t["text"] for t in turns] == ["Zoom into the top left", "convert 5 miles", "km"]
        assert [t["status"] for t in turns] == ["answered", "asked", "answered"]
        assert [t["images"] for t in turns] == [["img_1"], [], []]
        assert turns[2]["events"][-1]["type"] == "answer"
        # The upload and the zoomed image, each a file in the zip, named by id.
        assert [i["id"] for i in data["images"]] == ["img_1", "img_2"]
        names = set(archive.namelist())
        for image in data["images"]:
            assert image["file"] in names and image["file"].startswith(f"images/{image['id']}.")
            assert archive.read(image["file"])[:3] in (b"\x89PN", b"\xff\xd8\xff")
        assert "/tmp/" not in json.dumps(data)
    # One download at a time on disk: the zip of the turn before went.
    assert len(list(Path(state.trace_file).parent.glob("conversation-*.zip"))) == 1
    state.close()


async def test_a_stopped_turn_is_marked_stopped():
    slow = "Thought: I will take my time with this one.\nAnswer: late"
    page = PageHandlers(
        lambda prefs: ScriptedModel([slow], delay=0.05, name="fake"), Settings(), []
    )
    stream = page.chat({"text": "anything"}, None)
    _, _, state, _ = await anext(stream)
    await stream.aclose()
    await page.stop(state)
    data, archive = opened(state.trace_file)
    archive.close()
    (turn,) = data["turns"]
    assert turn["text"] == "anything" and turn["status"] == "stopped"
    state.close()
