"""What the browser sends up of its saved conversations is bounded before it is parsed and
validated: a value too large or nested too deep is set aside with the one notice, at a cost
that does not grow with it (`ui.conversations.stored.read_loaded`, `agent.json_bounds`)."""

from __future__ import annotations

import json

import pytest

from agent.config import Settings
from agent.models import OfflineModel
from ui.conversations.handlers import History
from ui.conversations.stored import FORMAT, VERSION, Loaded, read_loaded
from ui.handlers import PageHandlers


def sent(inner: str) -> str:
    """What the page sends as it loads, with `inner` (JSON text) as its list."""
    head = json.dumps({"format": FORMAT, "version": VERSION})
    return head[:-1] + ', "index": ' + inner + "}"


# 30 MB of nested empty lists as JSON, and nesting deeper than json.loads can parse.
HUGE = sent("[" + "[[],[]]," * 3_750_000 + "[]]")
DEEP = sent("[" * 100_000 + "]" * 100_000)
# Within the size, but more lists and objects than any conversation the page keeps.
MANY = sent("[" + "[]," * 400_000 + "[]]")


@pytest.mark.parametrize("text", [HUGE, DEEP, MANY], ids=["30 MB", "deep", "many"])
def test_a_value_past_the_bounds_is_set_aside(text):
    assert read_loaded(text) == Loaded(problem=True)


def test_the_page_says_the_one_notice_and_starts_afresh():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    panel = History(page, ["source"])
    for text in (HUGE, DEEP):
        fresh = page.new_state()
        with pytest.warns(UserWarning, match="could not be read and was set aside"):
            chat, _, _, _, _, _, listed, *_ = panel.load(fresh, text)
        assert chat == [] and listed.choices == []
        fresh.close()


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_value_within_the_bounds_still_reads():
    conversation = {"id": "ab", "turns": [], "x": nested(40)}
    index = {"format": FORMAT, "version": 2, "conversations": []}
    text = sent(json.dumps(index))
    text = text[:-1] + ', "current_id": "ab", "current": ' + json.dumps(conversation) + "}"
    loaded = read_loaded(text)
    assert not loaded.problem and loaded.current == conversation
