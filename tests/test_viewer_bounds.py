"""The conversation viewer checks a file's sizes before it unpacks or parses anything: a zip of
200,000 events, a small zip of 50 MB of `[],[],...`, a zip whose header lies about its size,
too many entries, lists or events, and nesting too deep each end with one sentence, having
unpacked no more than the bounds allow (`agent.conversation_file`, `agent.json_bounds`)."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import gradio as gr
import pytest

import agent.conversation_file.reader as reader
from agent.config import Settings
from agent.conversation_file import UnreadableFile, load_conversation
from agent.json_bounds import OutOfBounds, check_text, check_value
from agent.models import OfflineModel
from tests.support.bounded import run_bounded
from ui.handlers import PageHandlers
from ui.labels import UI_TEXT
from ui.scenarios_tab.handlers import ScenarioTab

HEAD = '{"format": "multimodal-react-agent/conversation", "version": 1, "turns": '
CALL = '{"type": "tool_call", "step": 1, "call_id": "c1", "tool": "zoom", "arguments": {}}'


def zipped(path: Path, text: str | bytes, **extra: bytes) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversation.json", text)
        for name, data in extra.items():
            archive.writestr(name, data)
    return path


def conversation(events: str, turns: int = 1) -> str:
    turn = '{"number": 1, "text": "hi", "status": "answered", "events": [' + events + "]}"
    return HEAD + "[" + ",".join([turn] * turns) + '], "images": []}'


def refusal(path: Path, folder: Path) -> UnreadableFile:
    with pytest.raises(UnreadableFile) as caught:
        load_conversation(path, folder)
    refused = caught.value
    # One sentence the page says, in both languages.
    for language in ("en", "zh"):
        assert UI_TEXT[language][f"viewer_{refused.reason}"]
    assert not folder.exists()  # nothing was unpacked to show
    return refused


@pytest.fixture
def events_200k(tmp_path) -> Path:
    return zipped(tmp_path / "events.zip", conversation(",".join([CALL] * 200_000)))


@pytest.fixture
def lists_50mb(tmp_path) -> Path:
    return zipped(tmp_path / "lists.zip", conversation("[]," * (50_000_000 // 3) + "[]"))


def test_200_000_events_are_refused_before_they_are_unpacked(events_200k, tmp_path):
    assert events_200k.stat().st_size < 2 * 2**20
    refused = refusal(events_200k, tmp_path / "shown")
    assert refused.reason == "too_big" and refused.unpacked == 0


def test_50_mb_of_empty_lists_in_a_small_zip_are_refused_unread(lists_50mb, tmp_path):
    assert lists_50mb.stat().st_size < 100_000
    refused = refusal(lists_50mb, tmp_path / "shown")
    assert refused.reason == "too_big" and refused.unpacked == 0


def test_both_end_within_a_small_memory_budget(events_200k, lists_50mb, tmp_path):
    # Before the bounds the 50 MB one took 1.4 GB.
    calls = [[str(p), str(tmp_path / "shown")] for p in (events_200k, lists_50mb)]
    for outcome in run_bounded(
        "agent.conversation_file.reader:load_conversation", calls, seconds=60, memory_mb=200
    ):
        assert outcome.finished and outcome.raised("UnreadableFile"), outcome
        assert outcome.message.startswith("too_big")


def test_a_header_that_understates_the_size_unpacks_no_more_than_it_says(lists_50mb, tmp_path):
    data = bytearray(lists_50mb.read_bytes())
    with zipfile.ZipFile(lists_50mb) as archive:
        info = archive.getinfo("conversation.json")
    said = 1000
    # The size in the entry's local header and in the zip's directory.
    struct.pack_into("<L", data, info.header_offset + 22, said)
    directory = data.rindex(b"PK\x01\x02")
    struct.pack_into("<L", data, directory + 24, said)
    liar = tmp_path / "liar.zip"
    liar.write_bytes(bytes(data))
    with zipfile.ZipFile(liar) as archive:
        assert archive.getinfo("conversation.json").file_size == said
    refused = refusal(liar, tmp_path / "shown")
    assert refused.reason in ("broken_zip", "too_big") and refused.unpacked <= said


def test_too_many_entries_are_refused_before_the_zip_is_listed(tmp_path):
    extra = {f"images/img_{i}.png": b"" for i in range(reader.MAX_ENTRIES + 1)}
    path = zipped(tmp_path / "entries.zip", conversation(CALL), **extra)
    refused = refusal(path, tmp_path / "shown")
    assert refused.reason == "too_big" and refused.unpacked == 0


def test_a_zip64_directory_is_refused(tmp_path):
    data = zipped(tmp_path / "plain.zip", conversation(CALL)).read_bytes()
    end = data.rindex(b"PK\x05\x06")
    path = tmp_path / "zip64.zip"
    path.write_bytes(data[:end] + b"PK\x06\x07" + bytes(16) + data[end:])
    assert refusal(path, tmp_path / "shown").reason == "too_big"


def test_lists_within_the_byte_cap_are_counted_before_parsing(tmp_path):
    text = conversation("[]," * (reader.MAX_CONTAINERS + 1) + "[]")
    assert len(text) < reader.MAX_JSON_BYTES
    refused = refusal(zipped(tmp_path / "lists.zip", text), tmp_path / "shown")
    assert refused.reason == "too_big" and "lists and objects" in refused.detail
    assert refused.unpacked == len(text)


def test_events_past_a_turns_bound_are_refused_after_parsing(tmp_path):
    text = conversation(",".join([CALL] * (reader.MAX_TURN_EVENTS + 1)))
    refused = refusal(zipped(tmp_path / "calls.zip", text), tmp_path / "shown")
    assert refused.reason == "too_big" and "events" in refused.detail
    text = conversation(",".join([CALL] * reader.MAX_TURN_EVENTS))
    opened = load_conversation(zipped(tmp_path / "fits.zip", text), tmp_path / "shown")
    assert len(opened.turns[0].events) == reader.MAX_TURN_EVENTS
    assert opened.unpacked == len(text)


def test_events_past_the_conversations_bound_are_refused(tmp_path):
    per_turn = reader.MAX_TURN_EVENTS
    turns = reader.MAX_EVENTS // per_turn + 1
    text = conversation(",".join([CALL] * per_turn), turns=turns)
    refused = refusal(zipped(tmp_path / "calls.zip", text), tmp_path / "shown")
    assert refused.reason == "too_big" and "events" in refused.detail


def test_streamed_pieces_count_once_joined(tmp_path):
    delta = '{"type": "model_delta", "step": 1, "text": "a"}'
    text = conversation(",".join([delta] * (reader.MAX_TURN_EVENTS * 3)))
    (turn,) = load_conversation(zipped(tmp_path / "deltas.zip", text), tmp_path / "shown").turns
    (event,) = turn.events
    assert event.text == "a" * reader.MAX_TURN_EVENTS * 3


def test_a_text_longer_than_the_page_writes_is_refused_before_it_is_shown(tmp_path):
    # A turn's words, a step's text, a key, and pieces each short enough that join into one.
    long = "x" * (reader.MAX_STEP_CHARS + 1)
    piece = '{"type": "model_delta", "step": 1, "text": "' + "a" * 40_000 + '"}'
    texts = [
        HEAD + '[{"number": 1, "text": "' + "y" * 7_000_000 + '", "events": []}], "images": []}',
        conversation('{"type": "answer", "text": "' + long + '"}'),
        conversation('{"type": "answer", "text": "hi", "' + long + '": 1}'),
        conversation(",".join([piece] * 2)),
    ]
    for number, text in enumerate(texts):
        refused = refusal(zipped(tmp_path / f"long{number}.zip", text), tmp_path / "shown")
        assert refused.reason == "too_big"
    older = tmp_path / "older.json"
    older.write_text('[{"type": "answer", "text": "' + long + '"}]')
    assert refusal(older, tmp_path / "shown").reason == "too_big"
    fits = conversation('{"type": "answer", "text": "' + "x" * reader.MAX_STEP_CHARS + '"}')
    (turn,) = load_conversation(zipped(tmp_path / "fits.zip", fits), tmp_path / "shown").turns
    assert len(turn.events[0].text) == reader.MAX_STEP_CHARS


def test_nesting_is_bounded_even_with_a_bracket_hidden_in_a_string(tmp_path):
    deep = "[" * 500 + '"{"' + "]" * 500
    result = '{"type": "tool_result", "step": 1, "call_id": "c1", "tool": "zoom", "ok": true, '
    for inner in ("[" * 500 + "]" * 500, deep):
        text = conversation(result + '"text": "", "duration": 0.1, "data": {"x": ' + inner + "}}")
        refused = refusal(zipped(tmp_path / "deep.zip", text), tmp_path / "shown")
        assert refused.reason == "too_big" and "deep" in refused.detail
    text = conversation(result + '"text": "", "duration": 0.1, "data": {"x": [[[["{"]]]]}}')
    (turn,) = load_conversation(zipped(tmp_path / "fits.zip", text), tmp_path / "shown").turns
    assert turn.events[0].data == {"x": [[[["{"]]]]}


def test_an_older_trace_file_has_the_same_bounds(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b"[]," * (reader.MAX_JSON_BYTES // 3) + b"[]]")
    assert refusal(big, tmp_path / "shown").reason == "too_big"
    many = tmp_path / "many.json"
    many.write_text("[" + ",".join([CALL] * (reader.MAX_TURN_EVENTS + 1)) + "]")
    assert refusal(many, tmp_path / "shown").reason == "too_big"


def test_the_tab_says_one_sentence_and_keeps_what_it_showed(events_200k):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    message, *shown, files, emptied = ScenarioTab(page).open_file(str(events_200k), None, None)
    assert message == f"**{events_200k.name}**: " + UI_TEXT["en"]["viewer_too_big"]
    assert emptied is None and shown == [gr.skip()] * 3
    files.close()


def test_json_bounds_on_text_and_on_values():
    with pytest.raises(OutOfBounds) as caught:
        check_text(b"[" * 65 + b"]" * 65, 10**6)
    assert caught.value.kind == "depth"
    check_text(b"[" * 64 + b"]" * 64, 10**6)
    deep: list = []
    for _ in range(10_000):  # deeper than json.dumps or pydantic could walk
        deep = [deep]
    with pytest.raises(OutOfBounds) as caught:
        check_value(deep, 10**6)
    assert caught.value.kind == "depth"
    wide = [[]] * 5_000_000  # 15 MB as JSON; the walk stops at the bound
    with pytest.raises(OutOfBounds) as caught:
        check_value(wide, 1_000_000)
    assert caught.value.kind == "size"
    value = {"a": [1, "xyz", {"b": None}], "c": True}
    check_value(value, len(json.dumps(value, separators=(",", ":"))))
