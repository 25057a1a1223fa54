"""`conversation.md` in the download: the conversation readable without the app."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from tools.convert_units import ConvertUnits
from tools.zoom import Zoom
from ui.conversations.transcript import transcript
from ui.handlers import PageHandlers

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


pytestmark = pytest.mark.usefixtures("no_model_env")


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


async def test_the_download_has_a_transcript_with_words_images_steps_and_answers():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits(), Zoom()])
    label = str(EXAMPLES / "label.png")
    *_, (_, _, state, _) = await run(
        page.chat({"text": "Zoom into the top left", "files": [label]}, None)
    )
    await run(page.chat({"text": "convert 5 miles"}, state))
    with zipfile.ZipFile(state.trace_file) as archive:
        names = set(archive.namelist())
        text = archive.read("conversation.md").decode("utf-8")
    assert text.startswith("# Conversation\n")
    assert "## Turn 1" in text and "## Turn 2" in text
    assert "**You:**\n\n> Zoom into the top left" in text
    # Every image it shows is a file of the zip, the upload and the zoomed one.
    shown = re.findall(r"!\[(img_\d+)\]\(([^)]+)\)", text)
    assert [i for i, _ in shown] == ["img_1", "img_2"]
    assert all(name in names for _, name in shown)
    assert "**Tool: zoom**" in text and '"image_id": "img_1"' in text
    assert "**Thought 1:**" in text and "**Result:**" in text and "**Answer:**" in text
    assert "**Asked the user:**" in text  # turn 2 asks for the unit
    assert str(EXAMPLES) not in text and "/tmp" not in text  # no server paths
    state.close()


async def test_a_stopped_turn_and_hostile_words_read_as_they_were():
    page = PageHandlers(
        lambda prefs: ScriptedModel(["Thought: slow\nAnswer: late"], delay=30.0),
        Settings(),
        [],
    )
    state = page.new_state()
    state.prefs.language = "zh"
    words = "# 这不是标题\n~~~~\n![x](/etc/passwd)"
    _, taken = page.take_message({"text": words, "files": []}, state)
    stream = page.send(taken, state)
    async for _ in stream:
        if any(e.type == "run_started" for e in state.turns[-1].events):
            break
    await page.stop(state)
    await run(stream)
    with zipfile.ZipFile(state.trace_file) as archive:
        text = archive.read("conversation.md").decode("utf-8")
    # Chinese labels take the full-width colon, as the trace's do.
    assert text.startswith("# 对话记录\n") and "**你**：" in text and ":**" not in text
    assert "> # 这不是标题\n> ~~~~\n> ![x](/etc/passwd)" in text  # quoted, line by line
    assert text.rstrip().endswith("*在完成前被停止。*")
    state.close()


def test_an_empty_conversation_is_a_title_only():
    assert transcript({"turns": [], "images": []}) == "# Conversation\n"
