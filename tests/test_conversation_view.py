"""Opening a downloaded conversation read-only: the page's own zip, older trace files, and
files that are not (or no longer) conversations."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from agent.config import Settings
from agent.conversation_file import UnreadableFile, load_conversation
from agent.events import export_trace
from agent.models import OfflineModel
from tools.convert_units import ConvertUnits
from tools.zoom import Zoom
from ui.conversations.view import viewer_values
from ui.handlers import PageHandlers
from ui.labels import UI_TEXT

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


pytestmark = pytest.mark.usefixtures("no_model_env")


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


@pytest.fixture
async def downloaded():
    """A conversation the page ran and wrote for its download: an image, a tool image, a
    question asked and answered."""
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits(), Zoom()])
    label = str(EXAMPLES / "label.png")
    *_, (_, _, state, _) = await run(
        page.chat({"text": "Zoom into the top left", "files": [label]}, None)
    )
    await run(page.chat({"text": "convert 5 miles"}, state))
    await run(page.chat({"text": "km"}, state))
    yield Path(state.trace_file), state
    state.close()


def rewritten(source: Path, target: Path, change) -> Path:
    """A copy of the zip at `source` whose members `change(name, data)` may alter or drop."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            data = change(name, old.read(name))
            if data is not None:
                new.writestr(name, data)
    return target


async def test_the_pages_download_opens_with_every_turn_image_and_step(downloaded, tmp_path):
    zip_path, state = downloaded
    conversation = load_conversation(zip_path, tmp_path / "shown")
    texts = [t.text for t in conversation.turns]
    assert texts == ["Zoom into the top left", "convert 5 miles", "km"]
    assert [t.status for t in conversation.turns] == ["answered", "asked", "answered"]
    assert conversation.missing_images == []
    (upload,) = conversation.turns[0].images
    assert Path(upload).is_file() and Path(upload).parent == tmp_path / "shown"
    chat, trace = viewer_values(conversation.turns, "en")
    # The same chat and trace the page showed, but for where the images are kept.
    assert [m["role"] for m in chat] == ["user", "assistant"] * 3
    assert chat[0]["content"][0] == "Zoom into the top left"
    assert chat[0]["content"][1]["path"] == upload
    assert chat[-1]["content"] == state.turns[-1].view.answer
    titles = [m["metadata"]["title"] for m in trace]
    assert titles[0].startswith("Turn 1") and "Tool: zoom" in titles
    zoomed = next(m for m in trace if m["metadata"]["title"] == "Tool: zoom")
    assert "![img_2](/gradio_api/file=" in zoomed["content"]
    assert str(tmp_path / "shown") in zoomed["content"]


async def test_chinese_labels_follow_the_language(downloaded, tmp_path):
    zip_path, _ = downloaded
    conversation = load_conversation(zip_path, tmp_path)
    _, trace = viewer_values(conversation.turns, "zh")
    assert trace[0]["metadata"]["title"].startswith("第 1 轮")


async def test_a_missing_image_is_named_and_the_rest_is_shown(downloaded, tmp_path):
    zip_path, _ = downloaded
    broken = rewritten(
        zip_path, tmp_path / "missing.zip", lambda n, d: None if n.startswith("images/img_2") else d
    )
    conversation = load_conversation(broken, tmp_path / "shown")
    assert conversation.missing_images == ["img_2"]
    assert len(conversation.turns) == 3 and len(conversation.turns[0].images) == 1
    chat, trace = viewer_values(conversation.turns, "en")
    zoomed = next(m for m in trace if m["metadata"]["title"] == "Tool: zoom")
    assert "/gradio_api/file=" not in str(zoomed["content"])
    assert len(chat) == 6


async def test_an_image_entry_that_is_not_an_image_counts_as_missing(downloaded, tmp_path):
    zip_path, _ = downloaded
    broken = rewritten(
        zip_path,
        tmp_path / "junk.zip",
        lambda n, d: b"not an image" if n.startswith("images/img_1") else d,
    )
    assert load_conversation(broken, tmp_path / "shown").missing_images == ["img_1"]


async def test_image_names_in_the_zip_never_choose_where_files_go(downloaded, tmp_path):
    zip_path, _ = downloaded

    def escape(name, data):
        if name == "conversation.json":
            info = json.loads(data)
            info["images"][0]["id"] = "../../escaped"
            return json.dumps(info)
        return data

    shown = tmp_path / "a" / "b" / "shown"
    load_conversation(rewritten(zip_path, tmp_path / "escape.zip", escape), shown)
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "escape.zip"]
    assert written and all(p.parent == shown for p in written)
    assert any("escaped" in p.name for p in written)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"PK\x03\x04 this is no zip at all", "not_conversation"),
        (b"", "not_conversation"),
        (b"\x00\xff" * 50, "not_conversation"),
        (b'{"hello": "world"}', "not_conversation"),
    ],
)
def test_a_file_that_is_no_conversation_is_refused_with_its_reason(tmp_path, content, reason):
    path = tmp_path / "upload.zip"
    path.write_bytes(content)
    with pytest.raises(UnreadableFile) as caught:
        load_conversation(path, tmp_path / "shown")
    assert caught.value.reason == reason
    assert f"viewer_{reason}" in UI_TEXT["en"] and f"viewer_{reason}" in UI_TEXT["zh"]


async def test_a_corrupt_zip_is_refused(downloaded, tmp_path):
    zip_path, _ = downloaded
    data = bytearray(zip_path.read_bytes())
    # Damage the compressed conversation.json but keep the zip's directory readable.
    start = data.index(b"conversation.json") + 40
    data[start : start + 200] = b"\x00" * 200
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(bytes(data))
    with pytest.raises(UnreadableFile) as caught:
        load_conversation(corrupt, tmp_path / "shown")
    assert caught.value.reason in ("broken_zip", "not_conversation")
    # A zip cut short has no directory left to read.
    cut = tmp_path / "cut.zip"
    cut.write_bytes(zip_path.read_bytes()[:-30])
    with pytest.raises(UnreadableFile):
        load_conversation(cut, tmp_path / "shown")


def test_another_zip_and_a_newer_version_are_refused(tmp_path):
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(UnreadableFile) as caught:
        load_conversation(other, tmp_path)
    assert caught.value.reason == "not_conversation"
    newer = tmp_path / "newer.zip"
    with zipfile.ZipFile(newer, "w") as archive:
        data = {"format": "multimodal-react-agent/conversation", "version": 99, "turns": []}
        archive.writestr("conversation.json", json.dumps(data))
    with pytest.raises(UnreadableFile) as caught:
        load_conversation(newer, tmp_path)
    assert caught.value.reason == "newer"


async def test_an_older_single_turn_trace_opens_as_one_turn(downloaded, tmp_path):
    _, state = downloaded
    trace = tmp_path / "trace.json"
    trace.write_bytes(export_trace(state.turns[0].events))
    conversation = load_conversation(trace, tmp_path / "shown")
    (turn,) = conversation.turns
    assert turn.events[0].type == "run_started" and turn.events[-1].type == "answer"
    chat, trace_messages = viewer_values(conversation.turns, "en")
    assert [m["role"] for m in chat] == ["assistant"]  # the trace holds no words of the person
    assert chat[-1]["content"] == state.turns[0].view.answer
    assert any(m["metadata"]["title"] == "Tool: zoom" for m in trace_messages)


async def test_images_past_the_size_limit_are_left_out(downloaded, tmp_path, monkeypatch):
    import agent.conversation_file.reader as reader

    zip_path, _ = downloaded
    with zipfile.ZipFile(zip_path) as archive:
        first = archive.getinfo(json.loads(archive.read("conversation.json"))["images"][0]["file"])
    # Room for the first image and not for the second.
    monkeypatch.setattr(reader, "MAX_IMAGES_BYTES", first.file_size + 1)
    conversation = load_conversation(zip_path, tmp_path / "shown")
    assert conversation.missing_images == ["img_2"] and len(conversation.turns) == 3
