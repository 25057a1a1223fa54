"""The stored history the browser sends back is bounded before it is validated: a value too
large or nested too deep is set aside with the one notice, at a cost that does not grow with
it (`ui.history.read`, `ui.json_bounds`)."""

from __future__ import annotations

import pytest

from agent.config import Settings
from agent.models import OfflineModel
from ui import history
from ui.handlers import PageHandlers
from ui.history_panel import History


def stored(conversations: list) -> dict:
    return {"format": history.FORMAT, "version": 1, "conversations": conversations}


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


# 30 MB of nested empty lists as JSON (one list shared, so the test itself stays small), and
# nesting deeper than json.dumps can walk.
HUGE = stored([[[], []]] * 3_000_000)
DEEP = stored([{"id": "ab", "turns": [], "x": nested(100_000)}])


@pytest.mark.parametrize("value", [HUGE, DEEP], ids=["30 MB", "deep"])
def test_a_value_past_the_bounds_is_set_aside(value):
    assert history.read(value) == (history.empty(), True)


def test_the_page_says_the_one_notice_and_starts_afresh():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    panel = History(page, ["source"])
    for value in (HUGE, DEEP):
        fresh = page.new_state()
        with pytest.warns(UserWarning, match="could not be read and were set aside"):
            chat, _, _, _, _, saved, *_ = panel.load(fresh, value)
        assert chat == [] and saved["conversations"] == []
        fresh.close()


def test_a_value_within_the_bounds_still_reads():
    value = stored([{"id": "ab", "turns": [], "x": nested(40)}])
    saved, problem = history.read(value)
    assert not problem and saved["conversations"] == value["conversations"]
