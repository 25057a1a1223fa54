from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

import tools.world_clock as world_clock
from tools.base import ToolInputError
from tools.world_clock import WorldClock, WorldClockArgs

NOON_UTC = datetime(2024, 7, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock():
    return WorldClock(clock=lambda: NOON_UTC)


def ask(tool, place):
    return tool.run(WorldClockArgs.model_validate({"place": place}), None)


@pytest.mark.parametrize(
    ("place", "zone", "local"),
    [
        ("Tokyo", "Asia/Tokyo", "21:00"),
        ("东京", "Asia/Tokyo", "21:00"),
        ("北京", "Asia/Shanghai", "20:00"),
        ("new york", "America/New_York", "08:00"),
        ("纽约", "America/New_York", "08:00"),
        ("伦敦", "Europe/London", "13:00"),
        ("Europe/Paris", "Europe/Paris", "14:00"),
        ("悉尼", "Australia/Sydney", "22:00"),
        ("Lisbon", "Europe/Lisbon", "13:00"),
        ("Asia/Kathmandu", "Asia/Kathmandu", "17:45"),
        ("UTC", "UTC", "12:00"),
    ],
)
def test_tells_the_local_time(clock, place, zone, local):
    result = ask(clock, place)
    assert result.data["zone"] == zone
    assert f"it is {local} on" in result.text


def test_the_module_clock_can_be_replaced(monkeypatch):
    monkeypatch.setattr(world_clock, "now", lambda: datetime(2024, 1, 1, 0, 0, tzinfo=UTC))
    result = ask(WorldClock(), "上海")
    assert (
        result.text == "In 上海 (Asia/Shanghai) it is 08:00 on Monday, 2024-01-01 (UTC+08:00, CST)."
    )
    assert result.data["local_time"] == "2024-01-01T08:00:00+08:00"


def test_summer_and_winter_offsets_differ():
    winter = WorldClock(clock=lambda: datetime(2024, 1, 15, 12, tzinfo=UTC))
    summer = WorldClock(clock=lambda: datetime(2024, 7, 15, 12, tzinfo=UTC))
    assert ask(winter, "London").data["utc_offset"] == "UTC+00:00"
    assert ask(summer, "London").data["utc_offset"] == "UTC+01:00"


@pytest.mark.parametrize("place", ["Atlantis", "../../etc/passwd", "Europe/../etc", "Mars/Olympus"])
def test_unknown_places_suggest_the_iana_form(clock, place):
    with pytest.raises(ToolInputError, match="IANA time zone such as Europe/Paris"):
        ask(clock, place)


def test_place_is_required():
    assert WorldClock.required_fields() == ["place"]
    with pytest.raises(ValidationError, match="place"):
        WorldClockArgs.model_validate({})
    with pytest.raises(ValidationError, match="at least 1"):
        WorldClockArgs.model_validate({"place": "  "})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What time is it?", {}),
        ("现在几点了？", {}),
        ("What time is it in Tokyo?", {"place": "Tokyo"}),
        ("what time is it in new york", {"place": "new york"}),
        ("current time in Europe/Lisbon", {"place": "Europe/Lisbon"}),
        ("what's the time in Reykjavik", {"place": "Reykjavik"}),
        ("local time in LA?", {"place": "LA"}),
        ("东京现在几点", {"place": "东京"}),
        ("旧金山现在是什么时间", {"place": "旧金山"}),
        ("Singapore", {"place": "Singapore"}),
        ("../etc/passwd", {}),
    ],
)
def test_extracts_the_place(clock, text, expected):
    assert clock.extract(text, [], {}) == expected
