"""Scenario runs from the page with several rows of settings: which runs the rows ask for, each
row run in turn (the second model over real HTTP from the local test server), the side-by-side
tables and downloads, and the rows that go wrong (too many, empty, repeated, a server that
fails or hangs, Stop, a turn limit)."""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent.config import Settings
from agent.models import OfflineModel
from tests.support.openai_server import Hang, OpenAIServer, server_error
from ui.handlers import PageHandlers
from ui.scenarios_tab.comparison import Comparison
from ui.scenarios_tab.contenders import MAX_ROWS, SAME, RowChoice, contenders, row_prefs
from ui.scenarios_tab.handlers import ScenarioTab
from ui.scenarios_tab.rows import added, read_rows, removed

# The scripted second model: it answers every question at once, without a tool.
SCRIPTED = "Thought: I know this.\nAnswer: = 7"
CONTROL = 10  # scenarios in scenarios/control.yaml


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)


def cells(*rows: tuple[str, str, str]) -> list[Any]:
    """The run's row inputs as the page sends them: which rows show, then their cells."""
    shown = [True] * len(rows) + [False] * (MAX_ROWS - len(rows))
    flat = [cell for row in rows for cell in row]
    flat += [SAME] * (3 * MAX_ROWS - len(flat))
    return [shown, *flat]


def row(model: str = SAME, protocol: str = SAME, style: str = SAME) -> tuple[str, str, str]:
    return (model, protocol, style)


async def run(tab: ScenarioTab, state: Any, *rows: tuple[str, str, str], progress=None) -> tuple:
    progress = progress or (lambda *a, **k: None)
    return await tab.run(["control.yaml"], [], state, progress, None, None, *cells(*rows))


def served(body: dict[str, Any]) -> Any:
    """The test server's models, by the name a row gives."""
    return {"broken": server_error(), "slow": Hang(seconds=30)}.get(body["model"], SCRIPTED)


def hosted_env(server: OpenAIServer, **more: Any) -> Settings:
    return Settings(
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="sk-server",
        AGENT_MODEL="scripted",
        AGENT_ALLOWED_MODELS="scripted,broken,slow",
        AGENT_MODEL_TIMEOUT=1.5,
        **more,
    )


# -- which runs the rows ask for ------------------------------------------------------------


def test_no_row_or_a_row_as_in_settings_is_the_settings_run():
    prefs = PageHandlers(lambda prefs: OfflineModel(), Settings()).prefs0
    for rows in ([], [RowChoice()], [RowChoice(model="", protocol="", style="")]):
        (only,), said = contenders(rows, prefs, "en")
        assert only.prefs == prefs and only.name == "offline" and said == []


def test_a_row_changes_only_what_it_names():
    prefs = PageHandlers(lambda prefs: OfflineModel(), Settings()).prefs0
    hosted = row_prefs(prefs, RowChoice(model=" gpt-x ", protocol="native"))
    assert (hosted.source, hosted.model, hosted.tool_protocol) == ("openai", "gpt-x", "native")
    assert hosted.style == prefs.style and hosted.base_url == prefs.base_url
    assert row_prefs(hosted, RowChoice(model="Offline")).source == "offline"
    # A value no row offers (sent by hand) keeps the Settings' own.
    assert row_prefs(prefs, RowChoice(protocol="telnet")).tool_protocol == prefs.tool_protocol


def test_the_same_settings_twice_run_once_and_names_tell_rows_apart():
    prefs = PageHandlers(lambda prefs: OfflineModel(), Settings()).prefs0
    rows = [RowChoice(), RowChoice(model="offline"), RowChoice(model="m", protocol="native")]
    runs, said = contenders(rows, prefs, "en")
    assert [run.name for run in runs] == ["offline · auto", "m · native"]
    assert said == ["Rows 1, 2 ask for the same settings; they run once."]
    runs, said = contenders([RowChoice(model="m", style="plugin-task"), RowChoice()], prefs, "zh")
    assert [run.name for run in runs] == ["m · plugin-task", "offline · react"] and not said


def test_too_many_rows_or_a_huge_name_is_one_sentence():
    prefs = PageHandlers(lambda prefs: OfflineModel(), Settings()).prefs0
    runs, said = contenders([RowChoice(model=f"m{i}") for i in range(20)], prefs, "en")
    assert runs == [] and said == [
        "20 rows of settings are more than one run compares (6); remove some and run again."
    ]
    runs, said = contenders([RowChoice(model="x" * 5000), RowChoice()], prefs, "en")
    assert len(runs) == 1 and said[0].startswith("Row 1 was left out")


def test_only_the_rows_on_the_page_count():
    flat = ["a", "native", SAME, "b", SAME, SAME, "c", SAME, SAME]
    assert [r.model for r in read_rows([True, False, True], flat)] == ["a", "c"]
    assert read_rows(None, []) == []
    shown, rest = [True] + [False] * (MAX_ROWS - 1), []
    for _ in range(MAX_ROWS + 2):  # Add past the last row: every row shows, Add turns off
        shown, *rest = added(shown)
    assert shown == [True] * MAX_ROWS and rest[-2].interactive is False and rest[-1].visible
    shown, _, *values, add, full = removed(2)(shown)
    assert shown[2] is False and values == [SAME] * 3 and add.interactive and not full.visible
    assert removed(0)([True, True])[0][0] is True  # the first row stays


async def test_twenty_rows_run_nothing_and_say_why():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    shown = [True] * 20
    message, *rest = await ScenarioTab(page).run(
        ["control.yaml"], [], None, lambda *a, **k: None, None, None, shown, *["m"] * 60
    )
    assert message.startswith("20 rows of settings are more than one run compares")
    assert len(rest) == 7


# -- runs with several rows ------------------------------------------------------------------


async def test_the_offline_model_and_a_scripted_one_over_http_side_by_side(tmp_path):
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=0))
        state = page.new_state()
        seen = []
        try:
            out = await run(
                ScenarioTab(page),
                state,
                row("offline"),
                row(),
                progress=lambda *a, **k: seen.append(a),
            )
            message, scores, table, comparison, json_btn, junit_btn, compared, junit_files = out
            assert isinstance(comparison, Comparison) and scores == ""
            assert "Click a model's cell" in message
            rows = {r[0]: r for r in compared.value["data"]}
            assert list(rows) == ["offline", "scripted"] and compared.visible
            assert rows["offline"][1:3] == ["10/10", "100%"]
            assert rows["scripted"][1] != "10/10"
            assert compared.value["headers"][:3] == ["Model", "Pass rate", "Pass^1"]
            # A row per scenario: which model passed it, and the file it came from.
            assert table.value["headers"] == ["Scenario", "offline", "scripted", "File"]
            verdicts = table.value["data"]
            assert len(verdicts) == CONTROL and {r[1] for r in verdicts} == {"pass"}
            assert "FAIL" in {r[2] for r in verdicts}
            assert {r[-1] for r in verdicts} == {"scenarios/control.yaml"}
            assert len(seen) == 1 + 2 * CONTROL and seen[-1][0] == (2 * CONTROL - 1, 2 * CONTROL)
            # Every hosted turn went to the Settings' endpoint, with the row's model.
            assert server.requests and {r["model"] for r in server.requests} == {"scripted"}
            data = json.loads(Path(json_btn.value["path"]).read_text("utf-8"))
            assert [m["model"] for m in data["models"]] == ["offline", "scripted"]
            assert data["models"][0]["passed"] is True and data["passed"] is False
            assert junit_btn.visible is False and junit_files.visible
            names = [Path(f["path"]).name for f in junit_files.value]
            assert names == ["scenario-results.offline.xml", "scenario-results.scripted.xml"]
            failures = [ET.parse(f["path"]).getroot().get("failures") for f in junit_files.value]
            assert failures[0] == "0" and failures[1] != "0"
            # A cell opens that model's run of that scenario.
            tab = ScenarioTab(page)
            failed = next(r for r in verdicts if r[2] == "FAIL")
            clicked = SimpleNamespace(index=[verdicts.index(failed), 2], row_value=failed)
            title, chat, trace, files = tab.show_row(comparison, None, state, clicked)
            assert title == f"**Scenario: {failed[0]} (scripted)**"
            assert chat[-1]["content"] and trace
            files.close()
        finally:
            state.close()


async def test_a_failing_or_hanging_model_scores_zero_and_the_others_still_run():
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=0))
        state = page.new_state()
        try:
            out = await run(
                ScenarioTab(page), state, row("broken"), row("offline"), row("slow"), row()
            )
            message, _, table, comparison, *_, compared, _ = out
            rows = {r[0]: r for r in compared.value["data"]}
            assert list(rows) == ["broken", "offline", "slow", "scripted"]
            assert rows["broken"][1] == rows["slow"][1] == "0/10"
            assert rows["offline"][1] == "10/10"
            lines = message.splitlines()
            broken = next(line for line in lines if line.startswith("broken stopped at"))
            assert "(500)" in broken and "Its 9 other scenario(s) were not sent" in broken
            slow = next(line for line in lines if line.startswith("slow stopped at"))
            assert "Its 9 other scenario(s)" in slow
            # Only the first scenario was sent to each (the failing one with one retry).
            asked = [r["model"] for r in server.requests]
            assert asked.count("broken") <= 2 and asked.count("slow") <= 2
            assert asked.count("scripted") >= CONTROL
            assert {r[1] for r in table.value["data"]} == {"FAIL"}
            # The scenarios not sent fail, and count in no measure of what the model did.
            broken = comparison.lanes[0].batch.results
            assert broken[1].failures[0].startswith("turn 1: not run: The model service had")
            turns = [turn for result in broken[1:] for turn in result.turns]
            assert not any(turn.checks or turn.expected_decision for turn in turns)
        finally:
            state.close()


async def test_a_refused_row_says_why_and_the_others_run():
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=0))
        state = page.new_state()
        try:
            message, *_, compared, _ = await run(
                ScenarioTab(page), state, row("not-offered"), row("offline")
            )
            assert message.startswith("not-offered did not run: ")
            assert "not-offered" not in {r["model"] for r in server.requests}
            assert [r[0] for r in compared.value["data"]] == ["offline"]
        finally:
            state.close()


async def test_a_turn_limit_stops_every_row():
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=3))
        state = page.new_state()
        try:
            message, *_, compared, _ = await run(
                ScenarioTab(page), state, row("offline"), row(), row("broken")
            )
            assert message.startswith(f"Stopped after {CONTROL + 2} of {3 * CONTROL} scenarios")
            assert "started 3 turns in the last minute" in message
            assert "broken" not in {r["model"] for r in server.requests}
            assert [r[0] for r in compared.value["data"]] == ["offline", "scripted"]
        finally:
            state.close()


async def test_stop_keeps_every_finished_scenario_of_every_row():
    def factory(prefs: Any) -> OfflineModel:
        slow = prefs.source != "offline"
        return OfflineModel(delay=0.02, chunk_size=2) if slow else OfflineModel()

    page = PageHandlers(factory, Settings(AGENT_TURNS_PER_MINUTE=0))
    state = page.new_state()
    tab = ScenarioTab(page)
    started = []
    running = asyncio.ensure_future(
        run(tab, state, row(), row("second"), progress=lambda done, **k: started.append(done))
    )
    try:
        while len(started) < CONTROL + 4:  # the start, the first row, three of the second
            await asyncio.sleep(0.01)
        await tab.stopped(state)
        message, _, table, comparison, *_, compared, _ = await running
        first, second = comparison.lanes
        assert len(first.batch.results) == CONTROL
        done = len(second.batch.results)
        assert 2 <= done < CONTROL
        assert message.startswith(f"Stopped after {CONTROL + done} of {2 * CONTROL} scenarios")
        assert [r[1] for r in compared.value["data"]] == [f"{CONTROL}/{CONTROL}", f"{done}/{done}"]
        assert sum(r[2] == "-" for r in table.value["data"]) == CONTROL - done
    finally:
        state.close()


async def test_one_row_is_the_run_of_today_with_that_rows_settings():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    out = await run(ScenarioTab(page), None, row("offline", "react"))
    message, scores, table, batch, _, junit_btn, compared, junit_files = out
    assert "**Pass rate** 10/10" in scores and "Click a row" in message
    assert len(table.value["data"]) == CONTROL and not isinstance(batch, Comparison)
    assert compared.visible is False and junit_files.visible is False and junit_btn.visible
