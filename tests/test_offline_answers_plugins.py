"""A plugin's result reaches the person as a sentence, not raw JSON: the manifest's template
when it gives one (parts with a missing value left out), else the fields that matter, named."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import Agent, Session
from agent.config import Settings
from agent.models import OfflineModel
from tests.conftest import collect
from tests.support.weather_server import WeatherServer
from tools import default_tools
from tools.plugins import PluginManifest, load_manifest
from tools.plugins.answer import fields, from_template, sentence

WEATHER = Path(__file__).resolve().parent.parent / "assets" / "plugins" / "weather.json"
FULL = {
    "resolved": {"place": "Berlin", "country": "Germany", "latitude": 52.5, "longitude": 13.4},
    "latitude": 52.52,
    "generationtime_ms": 0.03,
    "current_units": {"temperature_2m": "°C", "wind_speed_10m": "km/h"},
    "current": {
        "time": "2025-05-01T12:00", "temperature_2m": 21.5, "apparent_temperature": 20.0,
        "relative_humidity_2m": 40, "precipitation": 0.0, "weather_code": 3,
        "wind_speed_10m": 11.2,
    },
    "daily": {"temperature_2m_min": [9.1, 10.0], "temperature_2m_max": [22.4, 19.0],
              "precipitation_probability_max": [10, 60]},
}  # fmt: skip


def test_the_weather_template_says_the_result():
    manifest = load_manifest(WEATHER)
    assert sentence(manifest, FULL, "en") == (
        "Weather in Berlin, Germany: 21.5 °C now (feels like 20 °C), humidity 40 %, wind "
        "11.2 km/h, precipitation 0 mm; today 9.1 to 22.4 °C, 10 % chance of rain."
    )
    assert sentence(manifest, FULL, "zh").startswith("Berlin（Germany）天气：现在 21.5 °C")


def test_parts_with_a_missing_value_are_left_out():
    thin = {"resolved": {"place": "Paris", "country": "France"}, "current": {"temperature_2m": 4.5}}
    assert sentence(load_manifest(WEATHER), thin, "en") == "Weather in Paris, France: 4.5 °C now."
    assert from_template(["{a.b}", "."], {"a": {}}) == ""


def test_without_a_template_the_fields_that_matter_are_named():
    manifest = PluginManifest.model_validate(
        {"name_for_model": "weather2", "name_for_human": "Weather", "description_for_human": "x",
         "url": "https://example.org/w"}
    )  # fmt: skip
    said = sentence(manifest, FULL, "en")
    assert said.startswith("Weather: place Berlin, country Germany, temperature 2m 21.5 °C")
    assert "latitude" not in said and "generationtime" not in said and "{" not in said
    assert ("wind speed 10m", "11.2 km/h") in fields(FULL)
    assert sentence(manifest, {"latitude": 1.0}, "en") == ""


@pytest.fixture
def weather_tools():
    with WeatherServer() as server:
        settings = Settings(enable_weather=True, weather_base_url=server.url)
        yield default_tools(settings.tool_settings())


@pytest.mark.parametrize("style", ["react", "plugin-task"])
async def test_the_offline_model_answers_a_plugin_with_a_sentence(weather_tools, style):
    agent = Agent(OfflineModel(), weather_tools, style=style, approval="always")
    events = await collect(agent, "What's the weather in Paris?", [], Session())
    assert any(e.type == "tool_call" and e.tool == "weather" for e in events)
    assert events[-1].text == "Weather in Paris, France: 4.5 °C now."
