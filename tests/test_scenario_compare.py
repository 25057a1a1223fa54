"""Scenario runs from the page with several rows of settings: which runs the rows ask for, each
row run in turn (the second model over real HTTP from the local test server), the side-by-side
tables and downloads, and the rows that go wrong (too many, empty, repeated, a server that
fails or hangs, Stop, a turn limit), each keeping its place in the results; names typed in
shown as text, and the results said again in the other language."""

from __future__ import annotations

import asyncio
import html
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr
import pytest

from agent.config import Settings
from agent.models import OfflineModel
from tests.support.openai_server import Hang, OpenAIServer, server_error
from ui.handlers import PageHandlers
from ui.scenarios_tab.comparison import Comparison
from ui.scenarios_tab.contenders import MAX_ROWS, SAME, RowChoice, contenders, row_prefs
from ui.scenarios_tab.handlers import ScenarioTab
from ui.scenarios_tab.rows import added, read_rows, removed
from ui.scenarios_tab.said import NAME_CHARS

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


def unmarked(markdown: str) -> str:
    """The message line's Markdown as the page shows it: escapes taken off."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown))


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
        (only,), said = contenders(rows, prefs)
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
    runs, said = contenders(rows, prefs)
    # The offline model speaks the ReAct text whatever the Settings' protocol: named so.
    assert [run.name for run in runs] == ["offline · react", "m · native"]
    assert [s.say("en") for s in said] == ["Rows 1, 2 ask for the same settings; they run once."]
    runs, said = contenders([RowChoice(model="m", style="plugin-task"), RowChoice()], prefs)
    assert [run.name for run in runs] == ["m · plugin-task", "offline · react"] and not said


def test_an_offline_row_asking_for_native_calls_is_named_for_what_runs():
    prefs = PageHandlers(lambda prefs: OfflineModel(), Settings()).prefs0
    rows = [RowChoice(model="offline", protocol="native"), RowChoice(model="m")]
    runs, said = contenders(rows, prefs)
    assert [run.name for run in runs] == ["offline · react", "m · auto"]
    assert [s.say("en") for s in said] == [
        "Row 1: the offline model reads and writes the ReAct text only, so it runs with ReAct"
        " text, not native tool calls."
    ]
    # Asking for native or the ReAct text of the offline model is the same run.
    rows = [RowChoice(model="offline", protocol="native"), RowChoice(model="offline")]
    runs, said = contenders(rows, prefs)
    assert len(runs) == 1 and "Rows 1, 2 ask for the same settings" in said[-1].say("en")


def test_too_many_rows_or_a_huge_name_is_one_sentence():
    prefs = PageHandlers(lambda prefs: OfflineModel(), Settings()).prefs0
    runs, said = contenders([RowChoice(model=f"m{i}") for i in range(20)], prefs)
    assert runs == [] and [s.say("en") for s in said] == [
        "20 rows of settings are more than one run compares (6); remove some and run again."
    ]
    runs, said = contenders([RowChoice(model="x" * 5000), RowChoice()], prefs)
    # The refused row keeps its place, with why, and a name the page can show.
    assert len(runs) == 2 and runs[0].refused is not None and runs[1].refused is None
    assert runs[0].refused.say("en").startswith("Row 1 did not run: its model name is longer")
    assert len(runs[0].shown) <= NAME_CHARS


def test_only_the_rows_on_the_page_count():
    flat = ["a", "native", SAME, "b", SAME, SAME, "c", SAME, SAME]
    assert [r.model for r in read_rows([True, False, True], flat)] == ["a", "c"]
    assert read_rows(None, []) == []
    shown, rest = [True] + [False] * (MAX_ROWS - 1), []
    for _ in range(MAX_ROWS + 2):  # Add past the last row: every row shows, Add turns off
        shown, *rest = added(shown)
    assert shown == [True] * MAX_ROWS and rest[-2].interactive is False and rest[-1].visible
    shown, *rest = removed(2)(shown, *flat, *[SAME] * 9)
    add, full = rest[-2], rest[-1]
    assert shown == [True] * 5 + [False] and add.interactive and not full.visible
    assert removed(0)([True, True])[0][0] is True  # the first row stays


def test_a_row_added_after_a_remove_comes_at_the_end():
    cells = ["a", SAME, SAME, "b", "native", SAME, "c", SAME, SAME] + [SAME] * 9
    shown = [True, True, True] + [False] * (MAX_ROWS - 3)
    shown, *rest = removed(1)(shown, *cells)  # "b" goes; "c" moves up into its place
    values = rest[MAX_ROWS : MAX_ROWS + 3 * MAX_ROWS]
    assert shown == [True, True] + [False] * (MAX_ROWS - 2)
    assert [r.visible for r in rest[:MAX_ROWS]] == shown
    assert values[:6] == ["a", SAME, SAME, "c", SAME, SAME] and set(values[6:]) == {SAME}
    shown, *_ = added(shown)
    assert shown == [True, True, True] + [False] * (MAX_ROWS - 3)
    rows = read_rows(shown, [*values[:6], "d", SAME, SAME, *values[9:]])
    assert [r.model for r in rows] == ["a", "c", "d"]  # the new row is the last


async def test_twenty_rows_run_nothing_and_say_why():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    shown = [True] * 20
    message, *rest = await ScenarioTab(page).run(
        ["control.yaml"], [], None, lambda *a, **k: None, None, None, shown, *["m"] * 60
    )
    assert message.startswith("20 rows of settings are more than one run compares")
    assert len(rest) == 8 and rest[:7] == [gr.skip()] * 7


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
            message, scores, table, comparison, json_btn, junit_btn, compared, junit_files, _ = out
            assert isinstance(comparison, Comparison) and scores == ""
            assert "Click a model's cell" in message
            rows = {r[0]: r for r in compared.value["data"]}
            assert list(rows) == ["offline", "scripted"] and compared.visible
            assert rows["offline"][1:3] == ["10/10", "100%"]
            assert rows["scripted"][1] != "10/10"
            assert compared.value["headers"][:3] == ["Model", "Pass rate", "Pass^1"]
            # A row per scenario: which model passed it (why not, when it failed), its file.
            assert table.value["headers"] == ["Scenario", "offline", "scripted", "File"]
            verdicts = table.value["data"]
            assert len(verdicts) == CONTROL and {r[1] for r in verdicts} == {"pass"}
            failed = next(r for r in verdicts if r[2] != "pass")
            assert re.fullmatch(r"FAIL: turn 1: .+", failed[2]), failed[2]
            assert {r[-1] for r in verdicts} == {"scenarios/control.yaml"}
            assert len(seen) == 1 + 2 * CONTROL and seen[-1][0] == (2 * CONTROL - 1, 2 * CONTROL)
            # Every hosted turn went to the Settings' endpoint, with the row's model.
            assert server.requests and {r["model"] for r in server.requests} == {"scripted"}
            data = json.loads(Path(json_btn.value["path"]).read_text("utf-8"))
            assert [m["model"] for m in data["models"]] == ["offline", "scripted"]
            assert data["models"][0]["passed"] is True and data["passed"] is False
            assert junit_btn.visible is False and junit_files.visible
            # Each JUnit file named by its model first, so that a narrow list tells them apart;
            # its root names the model too.
            names = [Path(f["path"]).name for f in junit_files.value]
            assert names == ["offline.scenario-results.xml", "scripted.scenario-results.xml"]
            roots = [ET.parse(f["path"]).getroot() for f in junit_files.value]
            assert [root.get("name") for root in roots] == [
                "scenarios: offline",
                "scenarios: scripted",
            ]
            assert roots[0].get("failures") == "0" and roots[1].get("failures") != "0"
            # A cell opens that model's run of that scenario.
            tab = ScenarioTab(page)
            clicked = SimpleNamespace(index=[verdicts.index(failed), 2], row_value=failed)
            title, chat, trace, files = tab.show_row(comparison, None, state, clicked)
            assert unmarked(title) == f"**Scenario: {failed[0]} (scripted)**"
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
            message, _, table, comparison, *_, compared, _, _ = out
            rows = {r[0]: r for r in compared.value["data"]}
            assert list(rows) == ["broken", "offline", "slow", "scripted"]
            assert rows["broken"][1] == rows["slow"][1] == "0/10"
            assert rows["offline"][1] == "10/10"
            # A model that never answered chose no tool rightly, and counted no token.
            assert rows["broken"][4] == "0%" and rows["broken"][6] == "—"
            lines = unmarked(message).splitlines()
            broken = next(line for line in lines if line.startswith("broken stopped at"))
            assert "(500)" in broken
            assert broken.endswith("Its 9 other scenarios were not sent and count as failed.")
            slow = next(line for line in lines if line.startswith("slow stopped at"))
            assert "Its 9 other scenarios" in slow
            # Only the first scenario was sent to each (the failing one with one retry).
            asked = [r["model"] for r in server.requests]
            assert asked.count("broken") <= 2 and asked.count("slow") <= 2
            assert asked.count("scripted") >= CONTROL
            # The first scenario failed with why; the others were never sent.
            cells = [r[1] for r in table.value["data"]]
            assert cells[0].startswith("FAIL: turn 1: outcome expected end, saw error")
            assert set(cells[1:]) == {"not run"}
            # The scenarios not sent fail, and count in no measure of what the model did.
            broken = comparison.lanes[0].batch.results
            assert broken[1].failures[0].startswith("turn 1: not run: The model service had")
            turns = [turn for result in broken[1:] for turn in result.turns]
            assert not any(turn.checks or turn.expected_decision for turn in turns)
            # Clicking a scenario never sent says so, not that it was stopped.
            tab = ScenarioTab(page)
            cell = SimpleNamespace(index=[1, 1], row_value=table.value["data"][1])
            title, chat, trace, _ = tab.show_row(comparison, None, state, cell)
            assert "was not sent to the model" in unmarked(title) and chat == trace == []
        finally:
            state.close()


async def test_a_refused_row_says_why_keeps_its_place_and_is_in_the_json():
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=0))
        state = page.new_state()
        try:
            message, _, table, comparison, json_btn, *_, compared, _, _ = await run(
                ScenarioTab(page), state, row("not-offered"), row("offline")
            )
            assert unmarked(message).startswith("not-offered did not run: The model")
            assert "not-offered" not in {r["model"] for r in server.requests}
            assert [r[:3] for r in compared.value["data"]] == [
                ["not-offered", "not run", "—"],
                ["offline", "10/10", "100%"],
            ]
            assert {r[1] for r in table.value["data"]} == {"not run"}
            cell = SimpleNamespace(index=[0, 1], row_value=table.value["data"][0])
            title, *_ = ScenarioTab(page).show_row(comparison, None, state, cell)
            assert "did not run for this model: not-offered did not run: The" in unmarked(title)
            data = json.loads(Path(json_btn.value["path"]).read_text("utf-8"))
            refused = data["models"][0]
            assert refused["model"] == "not-offered" and refused["passed"] is False
            assert "is not offered with this server's key" in refused["not_run"]
            assert data["models"][1]["model"] == "offline" and data["passed"] is False
        finally:
            state.close()


async def test_names_typed_in_are_shown_as_text_and_bounded():
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=0))
        state = page.new_state()
        marked = "<img src=//127.0.0.1:9/x>[a](//x.io)<h1>b</h1>"
        long = "m" * 200 + "-the-end-" + "z" * 191
        try:
            message, _, table, *_, compared, _, _ = await run(
                ScenarioTab(page), state, row(marked), row(long), row("offline")
            )
            # No tag, link or heading of the name's own reaches the page as markup.
            assert "<img" not in message and "<h1>" not in message
            assert re.search(r"(?<!\\)\]\(", message) is None
            assert "&lt;img" in message and "\\[a\\]" in message
            assert marked in unmarked(message)
            # A long name is shown shorter, once per sentence, and still tells where it ends.
            line = next(x for x in unmarked(message).splitlines() if x.startswith("mmm"))
            assert long not in line and line.count("…") == 2 and "zzz" in line
            assert len(line) < 300
            assert [len(r[0]) <= NAME_CHARS + 3 for r in compared.value["data"]] == [True] * 3
            assert all(len(h) <= NAME_CHARS + 3 for h in table.value["headers"])
        finally:
            state.close()


async def test_a_turn_limit_stops_every_row_and_says_which():
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=3))
        state = page.new_state()
        try:
            message, _, table, _, json_btn, *_, compared, _, _ = await run(
                ScenarioTab(page), state, row("offline"), row(), row("broken")
            )
            first = unmarked(message).splitlines()[0]
            done = CONTROL + 2
            assert first.startswith(
                f"A turn limit stopped the comparison after {done} of {3 * CONTROL} scenario runs"
            )
            assert "This session has started 3 turns in the last minute" in first
            assert "broken" not in {r["model"] for r in server.requests}
            # Every row keeps its place; what never ran says so.
            assert [r[0] for r in compared.value["data"]] == ["offline", "scripted", "broken"]
            assert compared.value["data"][1][1].endswith("/2")
            assert compared.value["data"][2][1:] == ["not run", *["—"] * 6]
            verdicts = table.value["data"]
            assert [r[2] for r in verdicts].count("not run") == CONTROL - 2
            assert {r[3] for r in verdicts} == {"not run"}
            data = json.loads(Path(json_btn.value["path"]).read_text("utf-8"))
            assert data["models"][2]["not_run"] == "The comparison stopped before this row ran."
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
    rows = (row(), row("second"), row("third"))
    running = asyncio.ensure_future(
        run(tab, state, *rows, progress=lambda done, **k: started.append(done))
    )
    try:
        while len(started) < CONTROL + 4:  # the start, the first row, three of the second
            await asyncio.sleep(0.01)
        await tab.stopped(state)
        message, _, table, comparison, *_, compared, _, _ = await running
        first, second, _ = comparison.lanes
        assert len(first.batch.results) == CONTROL
        done = len(second.batch.results)
        assert 2 <= done < CONTROL
        assert unmarked(message).startswith(
            f"Stopped after {CONTROL + done} of {3 * CONTROL} scenario runs; what did not run"
        )
        assert [r[1] for r in compared.value["data"]] == [
            f"{CONTROL}/{CONTROL}",
            f"{done}/{done}",
            "not run",
        ]
        assert sum(r[2] == "not run" for r in table.value["data"]) == CONTROL - done
        assert {r[3] for r in table.value["data"]} == {"not run"}
        # A cell of what never ran says so in the viewer, and why, in the page's language.
        verdict = table.value["data"][-1]
        cell = SimpleNamespace(index=[CONTROL - 1, 3], row_value=verdict)
        title, chat, trace, files = tab.show_row(comparison, None, state, cell)
        shown = unmarked(title)
        assert shown.startswith(f"**Scenario: {verdict[0]} (third)**"), shown
        assert "did not run for this model: Stopped after" in shown
        assert chat == trace == [] and files.viewed is not None
        state.prefs.language = "zh"
        title, *_ = tab.show_row(comparison, files, state, cell)
        assert "此场景没有用这个模型运行：" in title and "Stopped" not in title
        files.close()
    finally:
        state.close()


async def test_the_results_are_said_again_in_the_language_chosen():
    with OpenAIServer(served) as server:
        page = PageHandlers(env=hosted_env(server, AGENT_TURNS_PER_MINUTE=0))
        state = page.new_state()
        try:
            out = await run(ScenarioTab(page), state, row("broken"), row("offline"))
            message, _, _, comparison, *_, said = out
            assert "Click a model's cell" in message
            words, scores, verdicts, figures = ScenarioTab.relabel("zh", said, comparison)
            assert "点击某个模型的单元格" in words and "Click" not in words
            # The model's error, made in English, is said in Chinese too.
            assert "模型服务内部出错（500）" in unmarked(words), words
            assert scores == gr.skip()
            assert verdicts.value["headers"] == ["场景", "broken", "offline", "文件"]
            assert verdicts.value["data"][0][1].startswith("失败，原因：turn 1:")
            assert verdicts.value["data"][1][1] == "未运行"
            assert figures.value["headers"][:2] == ["模型", "通过率"]
            words, *_ = ScenarioTab.relabel("en", said, comparison)
            assert words == message
            # One row: its table and scores, in either language.
            out = await run(ScenarioTab(page), state, row("offline"))
            words, scores, results, figures = ScenarioTab.relabel("zh", out[-1], out[3])
            assert results.value["headers"][0] == "场景" and "通过率" in scores
            assert figures == gr.skip()
        finally:
            state.close()


async def test_one_row_is_the_run_of_today_with_that_rows_settings():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    out = await run(ScenarioTab(page), None, row("offline", "react"))
    message, scores, table, batch, _, junit_btn, compared, junit_files, _ = out
    assert "**Pass rate** 10/10" in scores and "Click a row" in message
    assert len(table.value["data"]) == CONTROL and not isinstance(batch, Comparison)
    assert compared.visible is False and junit_files.visible is False and junit_btn.visible


async def test_a_language_chosen_while_it_runs_is_the_one_its_progress_and_results_take():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(AGENT_TURNS_PER_MINUTE=0))
    for rows in ((row(), row("second")), (row(),)):
        state = page.new_state()
        descs: list[str] = []

        def progress(*args: Any, desc: str = "", descs=descs, state=state, **kwargs: Any) -> None:
            descs.append(desc)
            if len(descs) == 3:
                state.prefs.language = "zh"  # as the Language setting does, mid-run

        try:
            out = await run(ScenarioTab(page), state, *rows, progress=progress)
            assert descs[1].startswith("Running"), descs[1]
            assert descs[-1].startswith("正在"), descs[-1]
            message, _, table = out[:3]
            assert "点击" in message and "Click" not in message
            assert table.value["headers"][0] == "场景"
        finally:
            state.close()


def test_the_command_lines_junit_files_tell_every_model_apart(tmp_path):
    from agent.scenarios.compare import file_name, junit_path

    names = ["a b · react", "a_b · react", "a/b · react", "a?b · react", "offline"]
    written: set[str] = set()
    for name in names:
        written.add(file_name(name, written))
    assert len(written) == len(names) and "offline" in written
    # The same model twice: a second file, numbered.
    again = file_name("offline", written)
    assert again == "offline-2"
    assert junit_path(tmp_path / "out.xml", again).name == "out.offline-2.xml"
