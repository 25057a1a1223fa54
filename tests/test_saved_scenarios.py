"""Save as scenario on the page (`ui.saved_scenarios`): the conversation as a draft to edit,
the edited YAML checked as untrusted input, the download's zip, and the run list the
Scenarios tab runs (each scenario once, any of them removable, the images named as saved)."""

from __future__ import annotations

import asyncio
import zipfile
from pathlib import Path

import gradio as gr
import pytest
import yaml

from agent.config import Settings
from agent.models import OfflineModel
from agent.scenarios.__main__ import main
from agent.scenarios.format import MAX_FILE_BYTES
from tools import default_tools
from ui.handlers import PageHandlers
from ui.saved_scenarios.panel import SavePanel, remove_unticked
from ui.saved_scenarios.store import MAX_SAVED, SavedScenarios, ScenarioProblem
from ui.scenarios_tab.handlers import ScenarioTab

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"


pytestmark = pytest.mark.usefixtures("no_model_env")


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


@pytest.fixture
async def talked():
    """A page conversation: an image, then a question asked and answered."""
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), default_tools())
    message = {"text": "what size is this image?", "files": [str(SIGN)]}
    *_, (_, _, state, _) = await run(page.chat(message, None))
    for text in ("convert 5 miles", "km"):
        await run(page.chat({"text": text}, state))
    saved = SavedScenarios()
    yield page, state, saved
    saved.close()
    state.close()


async def test_the_download_holds_the_scenario_and_its_images_and_passes(talked, tmp_path):
    _, state, saved = talked
    text = saved.draft(state.turns)
    data = yaml.safe_load(text)
    users = [turn["user"] for turn in data["turns"]]
    assert users == ["what size is this image?", "convert 5 miles", "km"]
    edited = text.replace(data["name"], "my sign and miles")
    with zipfile.ZipFile(saved.pack(edited)) as archive:
        assert sorted(archive.namelist()) == ["case.yaml", "images/1.jpg"]
        archive.extractall(tmp_path)
    assert "my sign and miles" in (tmp_path / "case.yaml").read_text(encoding="utf-8")
    assert await asyncio.to_thread(main, [str(tmp_path / "case.yaml"), "--offline"]) == 0


TWO = """
- {name: a, turns: [{user: x, expect: {outcome: answer}}]}
- {name: b, turns: [{user: y, expect: {outcome: answer}}]}
"""
FOREIGN = ("images/1.jpg", "../../../etc/hostname")


@pytest.mark.parametrize(
    ("change", "key", "said"),
    [
        (lambda text: text.replace("outcome: ask", "outcom: ask"), "save_invalid", "case.yaml:"),
        (lambda text: text + "  - [\n", "save_invalid", "not valid YAML"),
        (lambda text: text.replace(*FOREIGN), "save_foreign_image", "turn 1"),
        (lambda text: text + "#" * MAX_FILE_BYTES, "save_too_big", "256 KB"),
        (lambda text: TWO, "save_one_scenario", "one scenario"),
    ],
)
async def test_an_edit_that_cannot_be_used_is_one_sentence(talked, change, key, said):
    _, state, saved = talked
    text = change(saved.draft(state.turns))
    with pytest.raises(ScenarioProblem) as caught:
        saved.check(text)
    assert caught.value.key == key
    sentence = caught.value.sentence("en")
    assert said in sentence and str(saved.root) not in sentence and "\n" not in sentence
    assert caught.value.sentence("zh") != sentence
    with pytest.raises(ScenarioProblem):
        saved.add(text)
    assert saved.listed() == []


async def test_the_run_list_runs_in_the_scenarios_tab_with_its_images(talked):
    page, state, saved = talked
    entry, _ = saved.add(saved.draft(state.turns))
    saved.draft(state.turns[:1])  # a new draft leaves what was added as it was
    assert entry.path.is_file() and (entry.path.parent / "images" / "1.jpg").is_file()
    message, _, table, batch, *_ = await ScenarioTab(page).run(
        [], [], state, lambda *a, **k: None, [entry.key], saved
    )
    assert [row[1] for row in table.value["data"]] == ["pass"], message
    assert batch.image_dirs[str(entry.path)] == entry.path.parent
    # Not ticked, not run.
    message, *_ = await ScenarioTab(page).run([], [], state, lambda *a, **k: None, [], saved)
    assert message.startswith("Choose a shipped suite")


async def test_nothing_finished_is_nothing_to_save_and_the_list_is_bounded(talked):
    page, state, saved = talked
    panel = SavePanel(page)
    group, _, _, message, made = await panel.open(None, None)
    assert message.startswith("Nothing to save yet") and group == gr.skip()
    made.close()
    text = saved.draft(state.turns)
    name = yaml.safe_load(text)["name"]
    for number in range(MAX_SAVED):
        saved.add(text.replace(name, f"case {number}"))
    with pytest.raises(ScenarioProblem, match="save_list_full"):
        saved.add(text)


async def test_the_panels_handlers_keep_the_conversation_and_say_what_is_wrong(talked):
    page, state, _ = talked
    panel = SavePanel(page)
    turns = list(state.turns)
    group, code, download, message, saved = await panel.open(state, None)
    try:
        assert group["visible"] is True and "convert 5 miles" in code and message == ""
        assert download.interactive is True
        download, message = await panel.edited("name: [", state, saved)
        assert download.interactive is False and message.startswith("This scenario cannot be")
        download, message = await panel.edited(code, state, saved)
        assert download.interactive is True and message == ""
        message, listed = await panel.add(code, state, saved, [])
        assert message.startswith("Added “recorded: what size is this image?”")
        assert listed.value == [saved.entries[0].key] and listed.visible is True
        assert state.turns == turns
    finally:
        saved.close()


async def test_the_same_scenario_saved_twice_is_in_the_run_list_once(talked):
    page, state, saved = talked
    panel = SavePanel(page)
    text = saved.draft(state.turns)
    message, listed = await panel.add(text, state, saved, [])
    assert message.startswith("Added “") and len(listed.choices) == 1
    message, listed = await panel.add(text, state, saved, listed.value)
    assert "is in the run list of the Scenarios tab already" in message
    assert len(listed.choices) == 1 and len(listed.value) == 1
    # The same name, edited: the new version takes the old one's place.
    old = saved.entries[0]
    name = yaml.safe_load(text)["name"]
    edited = text.replace(name, "NAME").replace("what size", "how big").replace("NAME", name)
    message, listed = await panel.add(edited, state, saved, listed.value)
    assert "is now this version" in message
    assert len(listed.choices) == 1 and listed.value == [saved.entries[0].key]
    assert not old.path.exists() and "how big" in saved.entries[0].path.read_text("utf-8")


async def test_any_scenario_of_the_run_list_can_be_removed(talked):
    _, state, saved = talked
    text = saved.draft(state.turns)
    name = yaml.safe_load(text)["name"]
    first, _ = saved.add(text)
    second, _ = saved.add(text.replace(name, "another"))
    listed, button = await remove_unticked(saved, [second.key])
    assert [key for _, key in listed.choices] == [second.key] and button.visible is True
    assert not first.path.exists()
    listed, button = await remove_unticked(saved, [])
    assert listed.choices == [] and listed.visible is False and button.visible is False


async def test_the_image_names_hint_is_the_names_the_images_are_saved_under(talked):
    _, state, saved = talked
    text = saved.draft(state.turns)
    images = [image for turn in yaml.safe_load(text)["turns"] for image in turn.get("images", [])]
    assert images == ["images/1.jpg"]
    with pytest.raises(ScenarioProblem) as caught:
        saved.check(text.replace("images/1.jpg", "images/1.png"))
    sentence = caught.value.sentence("en")
    assert sentence.endswith("keep the image names as they were (images/1.jpg).")
    assert "images/1.jpg" in caught.value.sentence("zh")


async def test_a_name_written_as_markup_is_said_as_written(talked):
    page, state, saved = talked
    text = saved.draft(state.turns)
    name = yaml.safe_load(text)["name"]
    markup = "[click](http://127.0.0.1:9/x) <b>bold</b> **big**"
    message, _ = await SavePanel(page).add(text.replace(name, markup), state, saved, [])
    # Drawn as Markdown: no link, tag or emphasis of its own.
    assert "\\[click\\](" in message and "&lt;b&gt;" in message and "\\*\\*big" in message
