"""A conversation downloaded from the page (its zip) written down as a scenario
(`python -m agent.scenarios record conversation.zip -o case.yaml`): read within the viewer's
bounds, and run again it passes; a damaged or oversized zip is one sentence and exit code 2."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import yaml

import agent.conversation_file.reader as reader
from agent.config import Settings
from agent.models import OfflineModel
from agent.scenarios.__main__ import main
from agent.scenarios.record import heard_from_zip
from tests.support.weather_server import WeatherServer
from tools import default_tools
from ui.handlers import PageHandlers

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"


pytestmark = pytest.mark.usefixtures("no_model_env")


@pytest.fixture
def weather(monkeypatch):
    """The weather plugin on, answered by a local server, for the page and the runner."""
    with WeatherServer() as server:
        monkeypatch.setenv("AGENT_ENABLE_WEATHER", "1")
        monkeypatch.setenv("WEATHER_BASE_URL", server.url)
        yield server


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


@pytest.fixture
async def downloaded(weather):
    """The page's download of a conversation: an image, a question asked and answered, and a
    call the person was asked to approve and denied."""
    env = Settings(approval="ask")
    page = PageHandlers(lambda prefs: OfflineModel(), env, default_tools(env.tool_settings()))
    message = {"text": "what size is this image?", "files": [str(SIGN)]}
    *_, (_, _, state, _) = await run(page.chat(message, None))
    for text in ("convert 5 miles", "km", "what's the weather in Paris?", "no"):
        await run(page.chat({"text": text}, state))
    yield Path(state.trace_file)
    state.close()


def test_a_page_download_recorded_passes_when_run(downloaded, tmp_path, capsys):
    out = tmp_path / "case" / "case.yaml"
    assert main(["record", str(downloaded), "-o", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    users = [turn["user"] for turn in data["turns"]]
    assert users == [
        "what size is this image?",
        "convert 5 miles",
        "km",
        "what's the weather in Paris?",
    ]
    expects = [turn["expect"] for turn in data["turns"]]
    assert [e["outcome"] for e in expects] == ["answer", "ask", "answer", "answer"]
    assert expects[0]["tools"] == ["image_info"] and "900" in expects[0]["answer_contains"]
    assert expects[1]["asks_for"] == ["to_unit"]
    assert expects[2]["tools"] == ["convert_units"] and "8.04672" in expects[2]["answer_contains"]
    # The call was denied: the scenario runs with calls that need approval refused.
    assert data["approval"] == "never" and "tools" not in expects[3]
    (image,) = data["turns"][0]["images"]
    assert (out.parent / image).is_file()
    capsys.readouterr()
    assert main([str(out), "--offline"]) == 0
    assert "PASS" in capsys.readouterr().out


def test_the_zip_is_read_with_the_viewers_bounds(downloaded, tmp_path, monkeypatch):
    heard = heard_from_zip(downloaded, tmp_path / "unpacked")
    assert [turn.status for turn in heard] == ["answered", "asked", "answered", "asked", "answered"]
    assert heard[0].images[0].parent == tmp_path / "unpacked"
    assert any(e["type"] == "tool_call" for e in heard[0].events)
    monkeypatch.setattr(reader, "MAX_TURNS", 2)
    with pytest.raises(reader.UnreadableFile, match="too_big"):
        heard_from_zip(downloaded, tmp_path / "again")


def refused(capsys, path: Path, out: Path) -> str:
    """What `record` says of `path`: exit code 2, one line on stderr, no scenario written."""
    capsys.readouterr()
    assert main(["record", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()
    return err


def test_a_damaged_zip_is_one_sentence_and_exit_code_2(downloaded, tmp_path, capsys):
    data = downloaded.read_bytes()
    cut = tmp_path / "cut.zip"
    cut.write_bytes(data[: len(data) // 2])
    refused(capsys, cut, tmp_path / "a.yaml")
    # Intact but for the bytes of the conversation itself (its check sum no longer holds).
    with zipfile.ZipFile(downloaded) as archive:
        info = archive.getinfo("conversation.json")
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    broken = bytearray(data)
    for at in range(start + 10, start + 40):
        broken[at] ^= 0xFF
    spoiled = tmp_path / "spoiled.zip"
    spoiled.write_bytes(bytes(broken))
    assert "damaged" in refused(capsys, spoiled, tmp_path / "b.yaml")


def test_an_oversized_zip_is_one_sentence_and_exit_code_2(tmp_path, capsys):
    # A few kilobytes that would unpack to more than any conversation the page writes.
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversation.json", " " * (reader.MAX_JSON_BYTES + 1))
    assert bomb.stat().st_size < 100_000
    assert "too large" in refused(capsys, bomb, tmp_path / "a.yaml")
    crowded = tmp_path / "crowded.zip"
    with zipfile.ZipFile(crowded, "w") as archive:
        for index in range(reader.MAX_ENTRIES + 1):
            archive.writestr(f"images/img_{index}.png", b"")
    assert "too large" in refused(capsys, crowded, tmp_path / "b.yaml")
