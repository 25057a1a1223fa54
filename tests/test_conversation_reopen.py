"""A downloaded conversation opened again to go on with it (`agent.conversation_file.reopen`):
the download holds the agent's memory, and opening it gives back the same memory and the same
images under the same ids; a download from before it held the memory gets the memory its turns
say. Hostile zips (a bomb, 10,000 entries, JSON nested 100,000 deep, an image of too many
pixels, names that climb out of a folder, another format, texts longer than the page writes) are
each one sentence, within a time and memory budget, with nothing left behind."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import pytest

from agent.config import Settings
from agent.conversation_file import UnreadableFile, reader
from agent.conversation_file.reopen import RefusedImage, reopen_conversation
from agent.images.store import ImageRejected, ImageStore
from agent.models import OfflineModel
from tests.support.bounded import run_bounded
from tests.support.hostile import png_bomb
from tests.test_images import png_with_header
from tools import default_tools
from ui.conversations.reopen import sentence
from ui.handlers import PageHandlers

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
LABEL, SIGN = EXAMPLES / "label.png", EXAMPLES / "sign.png"
HEAD = {"format": "multimodal-react-agent/conversation", "version": 1}
TURN = {"number": 1, "text": "hi", "images": ["img_1"], "status": "answered", "events": []}
IMAGE = {"id": "img_1", "width": 4, "height": 4, "label": "", "file": "images/img_1.png"}
# 20,000 x 20,000: more pixels than Pillow opens at all (the header alone says so).
HUGE_PNG = png_with_header(20_000, 20_000)


@pytest.fixture(scope="module")
def page():
    return PageHandlers(lambda prefs: OfflineModel(), Settings(), default_tools())


async def said(page, text, state=None, files=()):
    async for update in page.chat({"text": text, "files": [str(f) for f in files]}, state):
        state = update[2]
    page.turn_ended(state)  # the download, with what the turn left in the agent's memory
    return state


@pytest.fixture
async def downloaded(page):
    """A conversation of two turns, the second waiting for the unit it asked for."""
    state = await said(page, "what size is this image?", files=[LABEL, SIGN])
    state = await said(page, "convert 5 miles", state)
    assert state.session.task is not None
    yield state
    state.close()


def read(path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("conversation.json"))


def rewritten(source, target: Path, change) -> Path:
    """The zip at `source` with its conversation.json changed by `change(data)`."""
    data = read(source)
    change(data)
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            if info.filename != "conversation.json":
                new.writestr(info, old.read(info))
        new.writestr("conversation.json", json.dumps(data))
    return target


def test_the_download_holds_the_memory_without_server_paths(downloaded):
    data = read(downloaded.trace_file)
    memory = data["memory"]
    assert memory["history"] == [t.model_dump(mode="json") for t in downloaded.session.history]
    assert memory["task"] == downloaded.session.task.model_dump(mode="json")
    assert [i["id"] for i in memory["images"]] == ["img_1", "img_2"]
    assert memory["images"][0]["source_name"] == "label.png"
    text = json.dumps(data)
    assert "/tmp" not in text and '"path"' not in text


def test_opening_it_gives_the_same_memory_and_images_under_their_ids(downloaded, tmp_path):
    opened = reopen_conversation(downloaded.trace_file, tmp_path, Settings())
    session = downloaded.session
    assert opened.history == session.history and opened.task == session.task
    assert [t["text"] for t in opened.turns] == ["what size is this image?", "convert 5 miles"]
    assert opened.turns[0]["images"] == ["img_1", "img_2"]
    before = {ref.id: ref for ref in session.images.refs()}
    for ref in opened.images:
        assert ref.model_dump(exclude={"path", "digest"}) == before[ref.id].model_dump(
            exclude={"path", "digest"}
        )
        assert Path(ref.path).parent == tmp_path and Path(ref.path).name.startswith(ref.id + "-")
    # What was unpacked and checked on the way is gone; the prepared copies stay.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        Path(r.path).name for r in opened.images
    )


def test_an_older_download_gets_the_memory_its_turns_say(downloaded, tmp_path):
    older = rewritten(downloaded.trace_file, tmp_path / "older.zip", lambda d: d.pop("memory"))
    opened = reopen_conversation(older, tmp_path / "opened", Settings())
    assert opened.history == downloaded.session.history
    assert opened.task is None  # the question stands in the history for it
    assert [ref.source_name for ref in opened.images] == ["label.png", "sign.png"]


async def test_it_goes_on_where_it_stopped_and_a_new_image_gets_the_next_id(page, downloaded):
    from ui.conversations.handlers import History
    from ui.conversations.reopen import Reopener

    fresh = page.new_state()
    values = await Reopener(History(page, [])).open(downloaded.trace_file, fresh)
    state = values[2]
    assert state is fresh and state.conversation_id != downloaded.conversation_id
    assert state.session.history == downloaded.session.history
    assert [ref.id for ref in state.session.images.refs()] == ["img_1", "img_2"]
    state = await said(page, "km", state)  # the unit the second turn asked for
    assert "8.0" in state.turns[-1].view.final.text
    state = await said(page, "what size is this image?", state, files=[EXAMPLES / "receipt.png"])
    assert [ref.id for ref in state.turns[-1].refs] == ["img_3"]
    state.close()


# -- hostile files -------------------------------------------------------------------------


def zipped(path: Path, data: dict | str | bytes, **entries: bytes) -> Path:
    text = data if isinstance(data, str | bytes) else json.dumps({**HEAD, **data})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversation.json", text)
        for name, body in entries.items():
            archive.writestr(name, body)
    return path


def tiny_png() -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    one = {"turns": [TURN], "images": [IMAGE]}
    bomb = folder / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversation.json", json.dumps({**HEAD, **one}))
        with archive.open("images/img_1.png", "w") as image:
            for _ in range(64):
                image.write(bytes(2**20))  # 64 MB of zeros, 64 kB in the zip
    many = folder / "many.zip"
    with zipfile.ZipFile(many, "w") as archive:
        archive.writestr("conversation.json", json.dumps({**HEAD, **one}))
        for n in range(10_000):
            archive.writestr(f"images/x{n}.png", b"")
    deep = json.dumps(HEAD)[:-1] + ', "turns": ' + "[" * 100_000 + "]" * 100_000 + "}"
    trace = folder / "trace.json"
    trace.write_text('[{"type": "notice", "message": "hi"}]', encoding="utf-8")
    whole = zipped(folder / "whole.zip", one, **{"images/img_1.png": tiny_png()}).read_bytes()
    cut = folder / "cut.zip"
    cut.write_bytes(whole[: len(whole) // 2])
    return {
        "bomb": bomb,
        "many": many,
        "deep": zipped(folder / "deep.zip", deep),
        "pixels": zipped(folder / "pixels.zip", one, **{"images/img_1.png": png_bomb()}),
        "more_pixels": zipped(folder / "more.zip", one, **{"images/img_1.png": HUGE_PNG}),
        "climbs": zipped(folder / "climbs.zip", one, **{"../../img_1.png": tiny_png()}),
        "climbing_id": zipped(
            folder / "id.zip",
            {"turns": [{**TURN, "images": ["../img_1"]}], "images": [{**IMAGE, "id": "../img_1"}]},
            **{"images/img_1.png": tiny_png()},
        ),
        "other_format": zipped(folder / "other.zip", {**one, "format": "something/else"}),
        "newer": zipped(folder / "newer.zip", {**one, "version": 99}),
        "trace_json": trace,
        "cut_short": cut,
        "memory": zipped(
            folder / "memory.zip",
            {**one, "memory": {"history": [{"user_text": 1}]}},
            **{"images/img_1.png": tiny_png()},
        ),
    }


def reopened(path: str, folder: str) -> str:
    """How opening the file ends (for the child process of `run_bounded`): the refusal's
    reason, or "opened"."""
    try:
        reopen_conversation(path, folder, Settings())
    except RefusedImage as exc:
        return f"bad_image:{exc.image_id}:{exc.rejected.kind if exc.rejected else 'missing'}"
    except UnreadableFile as exc:
        return exc.reason
    return "opened"


def test_hostile_files_are_each_one_sentence_within_a_budget(files, tmp_path):
    expected = {
        "bomb": "bad_image:img_1:missing",
        "many": "too_big",
        "deep": "too_big",
        "pixels": "bad_image:img_1:too_many_pixels",
        "more_pixels": "bad_image:img_1:bomb",
        "climbs": "not_conversation",
        "climbing_id": "not_conversation",
        "other_format": "not_conversation",
        "newer": "newer",
        "trace_json": "not_conversation",
        "cut_short": "broken_zip",
        "memory": "not_conversation",
    }
    calls = [[str(files[name]), str(tmp_path / f"opened-{name}")] for name in expected]
    outcomes = run_bounded(
        "tests.test_conversation_reopen:reopened", calls, seconds=60, memory_mb=400
    )
    for name, outcome in zip(expected, outcomes, strict=True):
        assert outcome.finished and outcome.result == repr(expected[name]), (name, outcome)
        # Nothing of it stays on the disk.
        left = tmp_path / f"opened-{name}"
        assert not left.exists() or not any(left.iterdir()), name


def test_each_refusal_is_one_sentence_in_both_languages(files, tmp_path):
    for name in ("many", "deep", "pixels", "bomb", "newer"):
        with pytest.raises(UnreadableFile) as caught:
            reopen_conversation(files[name], tmp_path / "opened", Settings())
        for language in ("en", "zh"):
            said_ = sentence(caught.value, language)
            assert said_ and "{" not in said_, (name, language)
    with pytest.raises(RefusedImage) as caught:
        reopen_conversation(files["pixels"], tmp_path / "opened", Settings())
    assert sentence(caught.value, "en").startswith("The image img_1 in this file is not one")
    assert "10900x10900" in sentence(caught.value, "en")
    # Too many pixels for Pillow to open at all: what an upload of it says, not "no image".
    with pytest.raises(RefusedImage) as caught:
        reopen_conversation(files["more_pixels"], tmp_path / "opened", Settings())
    with pytest.raises(ImageRejected) as uploaded:
        ImageStore.for_settings(Settings(), root=tmp_path / "upload").load(HUGE_PNG)
    for language in ("en", "zh"):
        reason = uploaded.value.said(language)
        assert sentence(caught.value, language).endswith(reason)
    # Nested 100,000 deep: past a bound, as a file too large is.
    with pytest.raises(UnreadableFile) as caught:
        reopen_conversation(files["deep"], tmp_path / "opened", Settings())
    assert sentence(caught.value, "en").startswith(
        "This file is too large to be a conversation download: it holds more, longer or more"
    )


# -- texts past what the page writes -------------------------------------------------------

ANSWERED = [
    {"type": "run_started", "run_id": "r1", "model": "m"},
    {"type": "answer", "text": "fine"},
    {
        "type": "run_finished",
        "status": "answered",
        "model": "m",
        "model_calls": 1,
        "steps": 0,
        "duration": 0.1,
    },
]


def text_turn(text: str = "hi", answer: str = "fine", number: int = 1) -> dict:
    events = [{**e, "text": answer} if e["type"] == "answer" else e for e in ANSWERED]
    return {"number": number, "text": text, "images": [], "status": "answered", "events": events}


def test_each_text_is_held_to_what_the_page_writes(tmp_path):
    words = Settings().max_message_chars
    step = reader.MAX_STEP_CHARS
    long_memory = {"history": [{"user_text": "w" * (words + 1)}]}
    cases = {
        # 7 million characters: under the JSON's 8 MB, and once held a tab for 18 minutes.
        "seven_million": {"turns": [text_turn("x" * 7_000_000)]},
        "one_past_the_input": {"turns": [text_turn("x" * (words + 1))]},
        "a_long_answer": {"turns": [text_turn(answer="a" * (step + 1))]},
        "a_long_remembered_question": {"turns": [text_turn()], "memory": long_memory},
        "a_long_label": {"turns": [text_turn()], "images": [{**IMAGE, "label": "l" * (step + 1)}]},
        "words_that_are_no_text": {"turns": [{**text_turn(), "text": ["w" * 9_000] * 2}]},
    }
    for name, data in cases.items():
        with pytest.raises(UnreadableFile) as caught:
            image = {"images/img_1.png": tiny_png()}
            path = zipped(tmp_path / f"{name}.zip", data, **image)
            reopen_conversation(path, tmp_path / name, Settings())
        assert caught.value.reason == "too_big", name
        assert sentence(caught.value, "en").startswith(
            "This file is too large to be a conversation download: it holds more, longer or more"
        )
        left = tmp_path / name
        assert not left.exists() or not any(left.iterdir()), name
    # At the bounds, it opens.
    at_bounds = {"turns": [text_turn("x" * words, "a" * step)]}
    opened = reopen_conversation(
        zipped(tmp_path / "at.zip", at_bounds), tmp_path / "at", Settings()
    )
    assert len(opened.turns[0]["text"]) == words


def test_turns_are_numbered_by_their_place_whatever_the_file_says(tmp_path):
    data = {"turns": [text_turn(number=3), text_turn(number=3), text_turn(number=10**9)]}
    opened = reopen_conversation(zipped(tmp_path / "n.zip", data), tmp_path / "n", Settings())
    assert [turn["number"] for turn in opened.turns] == [1, 2, 3]
    assert [turn["status"] for turn in opened.turns] == ["answered"] * 3


def said_larger(path: Path, name: str, more: int) -> Path:
    """The zip at `path` with its list of entries saying `name` holds `more` bytes more than
    it does (the bytes themselves, and their CRC, as written)."""
    raw = bytearray(path.read_bytes())
    entry = raw.rfind(b"PK\x01\x02", 0, raw.rfind(name.encode()))
    size = struct.unpack_from("<I", raw, entry + 24)[0]
    struct.pack_into("<I", raw, entry + 24, size + more)
    path.write_bytes(bytes(raw))
    return path


def test_an_image_of_another_size_than_the_zip_says_is_a_damaged_zip(tmp_path):
    one = {"turns": [TURN], "images": [IMAGE]}
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        path = tmp_path / f"sizes-{method}.zip"
        with zipfile.ZipFile(path, "w", method) as archive:
            archive.writestr("conversation.json", json.dumps({**HEAD, **one}))
            archive.writestr("images/img_1.png", tiny_png())
        reopen_conversation(path, tmp_path / "fine", Settings())
        said_larger(path, "images/img_1.png", 10)
        with pytest.raises(UnreadableFile) as caught:
            reopen_conversation(path, tmp_path / "opened", Settings())
        assert caught.value.reason == "broken_zip"
        assert sentence(caught.value, "en").startswith("This zip file is damaged")
