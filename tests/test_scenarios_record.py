"""A conversation written down as a scenario (`python -m agent.scenarios record`): each
finished turn with what it did as expectations; run again on the same model it passes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml

from agent import Agent
from agent.models import OfflineModel
from agent.scenarios.__main__ import main
from agent.scenarios.format import load_file
from agent.scenarios.record import HeardTurn, record, write_scenario
from agent.session import Session, save_session
from tests.conftest import collect
from tools import default_tools

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"


pytestmark = pytest.mark.usefixtures("no_model_env")


async def converse(path: Path) -> None:
    agent, session = Agent(OfflineModel(), default_tools()), Session()
    await collect(agent, "convert 5 miles", [], session)
    await collect(agent, "km", [], session)
    await collect(agent, "what size is this image?", [SIGN], session)
    save_session(session, path)


def test_a_command_line_session_recorded_passes_when_run(tmp_path, capsys):
    asyncio.run(converse(tmp_path / "s.json"))
    out = tmp_path / "cases" / "case.yaml"
    assert main(["record", str(tmp_path / "s.json"), "-o", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert [t["expect"]["outcome"] for t in data["turns"]] == ["ask", "answer", "answer"]
    assert "8.04672" in data["turns"][1]["expect"]["answer_contains"]
    (image,) = data["turns"][2]["images"]
    assert image.startswith("images/1.") and (out.parent / image).is_file()
    (scenario,) = load_file(out)
    assert scenario.language == "en"
    capsys.readouterr()
    assert main([str(out), "--offline"]) == 0
    assert "PASS" in capsys.readouterr().out


def test_tools_arguments_questions_and_values_become_expectations():
    turns = [
        HeardTurn("convert 5 miles", status="asked", events=[
            {"type": "ask_user", "question": "Which unit?", "tool": "convert_units",
             "missing": ["to_unit"]},
        ]),
        HeardTurn("km", events=[
            {"type": "tool_call", "tool": "convert_units", "call_id": "a", "step": 1,
             "arguments": {"value": 5, "from_unit": "mi", "to_unit": "km", "note": [1]}},
            {"type": "answer", "text": "5 mi = 8.04672 km (img_1)"},
        ]),
        HeardTurn("what is 2+2", status="stopped"),
    ]  # fmt: skip
    scenario, files = record(turns)
    assert files == [] and len(scenario["turns"]) == 2
    first, second = (t["expect"] for t in scenario["turns"])
    assert first == {"outcome": "ask", "asks_for": ["to_unit"]}
    assert second["tools"] == ["convert_units"]
    assert second["args"] == {"convert_units": {"value": 5, "from_unit": "mi", "to_unit": "km"}}
    assert second["answer_contains"] == ["5", "8.04672"]


@pytest.mark.parametrize(("decision", "approval", "tools"), [
    ("approve", None, ["weather"]), ("deny", "never", None),
])  # fmt: skip
def test_an_approval_and_its_decision_are_one_turn(decision, approval, tools):
    asked = HeardTurn(
        "weather in Paris?",
        status="asked",
        events=[
            {
                "type": "approval",
                "call_id": "c",
                "tool": "weather",
                "arguments": {"city": "Paris"},
                "question": "Run weather?",
            },
        ],
    )
    ran = (
        [
            {
                "type": "tool_call",
                "tool": "weather",
                "call_id": "c",
                "step": 1,
                "arguments": {"city": "Paris"},
            }
        ]
        if decision == "approve"
        else []
    )
    decided = HeardTurn("approve", events=[
        {"type": "approval_decision", "call_id": "c", "tool": "weather", "decision": decision},
        *ran,
        {"type": "answer", "text": "It is 18 °C in Paris."},
    ])  # fmt: skip
    scenario, _ = record([asked, decided])
    (turn,) = scenario["turns"]
    assert turn["user"] == "weather in Paris?" and turn["expect"].get("tools") == tools
    assert scenario.get("approval") == approval


def test_nothing_finished_is_nothing_to_record(tmp_path):
    with pytest.raises(ValueError):
        record([HeardTurn("hi", status="stopped")])
    assert main(["record", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x.yaml")]) == 2


def test_a_chinese_conversation_is_recorded_in_chinese(tmp_path):
    scenario, files = record([HeardTurn("这张图片多大？", images=[SIGN], events=[
        {"type": "answer", "text": "图片是 900x520 像素。"}])])  # fmt: skip
    out = write_scenario(scenario, files, tmp_path / "zh.yaml")
    assert scenario["language"] == "zh" and "这张图片多大" in out.read_text(encoding="utf-8")
    assert load_file(out)[0].turns[0].images == ["images/1.png"]
