"""A plugin call the person approved is answered as the same sentence as one that needed no
approval (the offline model reads the result after the approval turn too); a question about
tomorrow that the result has no forecast for says so; a question about rain reaches the weather
plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import Agent, Session
from agent.approval import ApprovalDecision
from agent.config import Settings
from agent.models import OfflineModel
from tests.conftest import collect
from tests.support.weather_server import WeatherServer
from tools import default_tools
from tools.plugins import load_manifest
from tools.plugins.answer import sentence

WEATHER = Path(__file__).resolve().parent.parent / "assets" / "plugins" / "weather.json"


@pytest.fixture
def weather_tools():
    with WeatherServer() as server:
        settings = Settings(enable_weather=True, weather_base_url=server.url)
        yield default_tools(settings.tool_settings())


@pytest.mark.parametrize("style", ["react", "plugin-task"])
@pytest.mark.parametrize(
    ("question", "reply", "said"),
    [
        ("what's the weather in Paris?", "yes", "Weather in Paris, France: 4.5 °C now."),
        ("巴黎天气怎么样？", "好", "巴黎（France）天气：现在 4.5 °C。"),
        ("what's the weather in Paris?", None, "Weather in Paris, France: 4.5 °C now."),
    ],
)
async def test_an_approved_call_is_answered_as_a_sentence(
    weather_tools, style, question, reply, said
):
    agent = Agent(OfflineModel(), weather_tools, style=style, approval="ask")
    session = Session()
    asked = await collect(agent, question, [], session)
    assert asked[-1].type == "approval"
    if reply is None:  # the page's Approve button
        events = [
            e
            async for e in agent.run(
                "Approve", session=session, decision=ApprovalDecision(action="approve")
            )
        ]
    else:
        events = await collect(agent, reply, [], session)
    assert any(e.type == "tool_result" for e in events)
    assert events[-1].type == "answer"
    assert events[-1].text == said


@pytest.mark.parametrize("style", ["react", "plugin-task"])
async def test_tomorrow_without_a_forecast_says_what_there_is(weather_tools, style):
    agent = Agent(OfflineModel(), weather_tools, style=style, approval="ask")
    session = Session()
    await collect(agent, "weather in tokyo tomorrow?", [], session)
    answer = (await collect(agent, "yes", [], session))[-1].text
    assert "4.5 °C now" in answer
    assert "no forecast for tomorrow" in answer


def test_tomorrow_is_said_when_the_result_has_it():
    manifest = load_manifest(WEATHER)
    data = {
        "resolved": {"place": "Tokyo", "country": "Japan"},
        "current": {"temperature_2m": 20.0},
        "daily": {"temperature_2m_min": [15.0, 12.5], "temperature_2m_max": [22.0, 18.0]},
    }
    said = sentence(manifest, data, "en", "weather in tokyo tomorrow?")
    assert "Tomorrow: 12.5 to 18 °C" in said and "no forecast" not in said
    zh = sentence(manifest, data, "zh", "东京明天天气怎么样")
    assert "明天 12.5 至 18 °C" in zh
    assert "no forecast" not in sentence(manifest, data, "en", "weather in tokyo?")
    assert "明天" in sentence(manifest, {**data, "daily": {}}, "zh", "东京明天天气")


@pytest.mark.parametrize(
    "question", ["is it going to rain in London", "will it snow in London?", "伦敦明天会下雨吗"]
)
async def test_rain_reaches_the_weather_plugin(weather_tools, question):
    agent = Agent(OfflineModel(), weather_tools, approval="always")
    events = await collect(agent, question, [], Session())
    assert any(e.type == "tool_call" and e.tool == "weather" for e in events)
    assert "4.5 °C" in events[-1].text
