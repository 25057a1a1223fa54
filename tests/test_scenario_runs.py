"""Scenario runs from the page: which files run, the results table, the scores, the downloads,
and a run's conversation in the viewer."""

from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import pytest

from agent.config import Settings
from agent.models import OfflineModel
from agent.scenarios.results import RunResult, TurnResult
from agent.tokens import Tokens
from ui.conversations.view import scenario_turns, viewer_values
from ui.handlers import PageHandlers
from ui.scenarios_tab.handlers import ScenarioTab
from ui.scenarios_tab.runs import (
    SUITES_DIR,
    collect,
    invalid_sentence,
    score_text,
    shipped_suites,
    table_rows,
    table_value,
    write_downloads,
)
from ui.scenarios_tab.said import sentence
from ui.scenarios_tab.viewer import Viewed

FAILING = """
name: expects the wrong tool
language: en
turns:
  - user: "What is 3 + 4?"
    expect:
      outcome: answer
      tools: [convert_units]
"""
BROKEN = "name: x\nturns:\n  - user: hi\n    expect: {outcom: answer}\n"
PASSING = """
name: adds
language: en
turns:
  - user: "What is 3 + 4?"
    expect: {outcome: answer, tools: [calculator], answer_matches: "7"}
"""


pytestmark = pytest.mark.usefixtures("no_model_env")


def written(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(path)


def result(name: str, failures: list[str], seconds: float = 1.234, calls: int = 2) -> RunResult:
    turn = TurnResult(
        user="hi", outcome="answer", decision="no_tool", failures=failures, model_calls=calls
    )
    return RunResult(scenario=name, file="x.yaml", turns=[turn], duration=seconds)


def rows_files(table) -> set[str]:
    return {row[-1] for row in table.value["data"]}


def test_a_row_per_run_with_its_first_failure_time_and_calls():
    results = [
        result("passes", []),
        result("fails", ["turn 1: tools expected [a], saw [b]", "turn 1: another"], 0.5, 3),
    ]
    results.append(results[1].model_copy(update={"run": 2}))
    # The last column is the file each came from, by the name the batch gives it.
    assert table_rows(results, "en", {"x.yaml": "scenarios/x.yaml"}) == [
        ["passes", "pass", "", 1.23, 2, "", "scenarios/x.yaml"],
        ["fails", "FAIL", "turn 1: tools expected [a], saw [b]", 0.5, 3, "", "scenarios/x.yaml"],
        [
            "fails [run 2]",
            "FAIL",
            "turn 1: tools expected [a], saw [b]",
            0.5,
            3,
            "",
            "scenarios/x.yaml",
        ],
    ]
    assert [row[1] for row in table_rows(results, "zh")] == ["通过", "失败", "失败"]
    value = table_value(results, "zh")
    assert value["headers"][0] == "场景" and len(value["headers"]) == len(value["data"][0])


def test_tokens_show_in_the_table_and_beside_the_scores_marked_where_estimated():
    from agent.scenarios import score

    guessed = Tokens(input=1200, output=34, estimated=True, cost=0.0123)
    turn = TurnResult(user="hi", outcome="answer", decision="no_tool", tokens=guessed)
    results = [RunResult(scenario="a", file="x.yaml", turns=[turn])]
    assert table_rows(results, "en")[0][-2] == "≈1,234"
    assert table_rows(results, "zh")[0][-2] == "约 1,234"
    assert table_value(results, "zh")["headers"][-2:] == ["词元", "文件"]
    en, zh = score_text(score(results), "en", results), score_text(score(results), "zh", results)
    assert en.endswith("**Tokens** ≈1,234 · **Cost** ≈0.0123")
    assert zh.endswith("**词元** 约 1,234 · **费用** 约 0.0123")
    assert "Tokens" not in score_text(score(results), "en")  # no results given, none counted


def test_the_shipped_suites_are_found_and_read_with_their_images():
    names = [p.name for p in shipped_suites()]
    assert "control.yaml" in names and "images.yaml" in names
    batch = collect(["images.yaml"], [], "en")
    assert batch.scenarios and not batch.invalid
    (file,) = batch.names
    assert batch.names[file] == "scenarios/images.yaml" and batch.image_dirs[file] == SUITES_DIR


def test_an_invalid_upload_is_one_sentence_and_the_rest_still_runs(tmp_path):
    bad = written(tmp_path, "broken.yaml", BROKEN)
    not_yaml = written(tmp_path, "notes.txt", "hello")
    batch = collect(["control.yaml"], [bad, not_yaml], "en")
    assert len(batch.scenarios) == 10
    assert [e.file for e in batch.invalid] == ["broken.yaml", "notes.txt"]
    sentence = invalid_sentence(batch.invalid[0], "en")
    assert sentence.startswith("Not run, the file is invalid: broken.yaml:4: ")
    assert "outcom" in sentence or "outcome" in sentence
    assert str(tmp_path) not in sentence  # the server's path stays on the server
    assert "1 more" in sentence
    assert "不是场景文件" in invalid_sentence(collect([], [not_yaml], "zh").invalid[0], "zh")


@pytest.mark.parametrize("image", ["x.png", "../../x.png"])
def test_an_upload_naming_images_is_refused(tmp_path, image):
    text = PASSING.replace('"What is 3 + 4?"', f'"What is this?"\n    images: ["{image}"]')
    path = written(tmp_path, "pictures.yaml", text)
    (tmp_path / "x.png").write_bytes(b"")
    batch = collect([], [path], "en")
    assert not batch.scenarios
    sentence = invalid_sentence(batch.invalid[0], "en")
    assert "python -m agent.scenarios" in sentence and str(tmp_path) not in sentence


async def test_a_run_from_the_tab_fills_the_table_scores_and_downloads(tmp_path):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    state = page.new_state()
    uploads = [written(tmp_path, "mine.yaml", FAILING), written(tmp_path, "ok.json", "{")]
    seen = []
    message, scores, table, _, json_btn, junit_btn, *_ = await ScenarioTab(page).run(
        ["control.yaml"], uploads, state, lambda *a, **k: seen.append(a)
    )
    try:
        assert "ok.json" in message and "Click a row" in message
        assert rows_files(table) == {"scenarios/control.yaml", "mine.yaml"}
        assert "**Pass rate** 10/11" in scores and "Decision macro-F1" in scores
        rows = table.value["data"]
        assert rows[-1][0] == "expects the wrong tool" and rows[-1][1] == "FAIL"
        assert rows[-1][2] == "turn 1: tools expected [convert_units], saw [calculator]"
        assert all(row[1] == "pass" for row in rows[:-1])
        assert len(seen) == 12  # a start, then before each scenario
        data = json.loads(Path(json_btn.value["path"]).read_text("utf-8"))
        assert data["passed"] is False and data["invalid_files"][0]["file"] == "ok.json"
        assert {s["file"] for s in data["scenarios"]} == {"scenarios/control.yaml", "mine.yaml"}
        junit = ET.parse(junit_btn.value["path"]).getroot()
        assert junit.get("tests") == "12" and junit.get("failures") == "1"
        assert junit.get("errors") == "1"
    finally:
        state.close()


async def test_stop_ends_a_run_and_keeps_the_results_of_the_scenarios_that_finished():
    import asyncio

    page = PageHandlers(lambda prefs: OfflineModel(delay=0.02, chunk_size=2), Settings())
    state = page.new_state()
    tab = ScenarioTab(page)
    started = []
    run = asyncio.ensure_future(
        tab.run(["control.yaml"], [], state, lambda done, **k: started.append(done))
    )
    try:
        while len(started) < 4:  # the start, then three scenarios begun: two finished
            await asyncio.sleep(0.01)
        assert await tab.stopped(state) == gr.skip()
        message, scores, table, batch, json_btn, *_ = await run
        done = len(batch.results)
        assert done >= 2 and done < len(batch.scenarios)
        assert message.startswith(f"Stopped after {done} of {len(batch.scenarios)} scenarios")
        assert len(table.value["data"]) == done and f"{done}/{done}" in scores
        data = json.loads(Path(json_btn.value["path"]).read_text("utf-8"))
        assert len(data["scenarios"]) == done
        # Nothing runs any more: Stop leaves the message as it is.
        assert await tab.stopped(state) == gr.skip()
    finally:
        state.close()


async def test_nothing_chosen_says_so():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    message, *_ = await ScenarioTab(page).run([], [], None, lambda *a, **k: None)
    assert message.startswith("Choose a shipped suite")


async def test_a_rows_conversation_shows_as_the_chat_shows_it(tmp_path):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    tab = ScenarioTab(page)
    _, _, _, batch, *_ = await tab.run(["images.yaml"], [], None, lambda *a, **k: None)
    index = next(i for i, r in enumerate(batch.results) if any(t.images for t in r.turns))
    clicked = SimpleNamespace(index=[index, 0], row_value=None)
    title, chat, trace, files = tab.show_row(batch, None, None, clicked)
    try:
        assert batch.results[index].scenario in title
        assert chat[0]["role"] == "user" and any(
            isinstance(part, dict) for part in chat[0]["content"]
        )
        image = next(part for part in chat[0]["content"] if isinstance(part, dict))["path"]
        assert "`img_1`" in chat[0]["content"]
        assert image.startswith(str(files.root))  # a copy the page may serve
        assert trace[0]["metadata"]["title"].startswith("Turn 1")
        assert chat[-1]["role"] == "assistant" and chat[-1]["content"]
    finally:
        files.close()


async def test_the_viewer_follows_the_language_and_a_new_run_empties_it():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    tab = ScenarioTab(page)
    _, _, _, batch, *_ = await tab.run(["control.yaml"], [], None, lambda *a, **k: None)
    clicked = SimpleNamespace(index=[0, 0], row_value=None)
    title, chat, trace, files = tab.show_row(batch, None, None, clicked)
    try:
        assert title.startswith("**Scenario: ")
        assert trace[0]["metadata"]["title"].startswith("Turn 1")
        # A change of language draws it again from what it keeps, titles and trace alike.
        title_zh, chat_zh, trace_zh = ScenarioTab.relabel_viewer("zh", files)
        assert title_zh.startswith("**场景：") and "Scenario" not in title_zh
        assert not trace_zh[0]["metadata"]["title"].startswith("Turn")
        assert chat_zh[0] == chat[0]
        assert ScenarioTab.relabel_viewer("en", files) == (title, chat, trace)
        # Run pressed: the last run's sentences and the scenario shown of it go.
        message, said, *viewer, kept = ScenarioTab.starting(files)
        assert message == "" and said is None and viewer == ["", [], []]
        assert kept is files and files.viewed is None
        assert ScenarioTab.relabel_viewer("zh", files) == (gr.skip(),) * 3
        # A conversation file opened in the viewer is no run's: it stays.
        files.shown(None, Viewed(sentence("viewer_file", name="a.zip"), of_run=False))
        assert ScenarioTab.starting(files)[2:5] == (gr.skip(),) * 3
    finally:
        files.close()


def test_run_empties_the_last_runs_sentences_and_viewer_before_it_starts():
    import app

    demo = app.build_demo(model_factory=lambda prefs: OfflineModel())
    try:
        named = {getattr(f.fn, "__name__", ""): (i, f) for i, f in demo.fns.items()}
        first, starting = named["starting"]
        outputs = [getattr(o, "elem_id", None) for o in starting.outputs]
        assert {"scenario-message", "viewer-title", "viewer-chat", "viewer-trace"} <= set(outputs)
        run = next(f for f in demo.fns.values() if f.trigger_after == first)
        assert getattr(run.fn, "__name__", "") == "run"
    finally:
        demo.close()


def test_scores_name_every_measure_in_both_languages():
    from agent.scenarios import score

    results = [result("a", []), result("b", ["turn 1: x"])]
    en, zh = score_text(score(results), "en"), score_text(score(results), "zh")
    assert "**Pass rate** 1/2 (50.0%)" in en and "Answer accuracy** —" in en
    assert "通过率" in zh and "决策宏 F1" in zh


def test_downloads_name_uploads_by_their_own_name(tmp_path):
    batch = collect([], [written(tmp_path, "mine.yaml", PASSING)], "en")
    batch.results = [result("adds", []).model_copy(update={"file": next(iter(batch.names))})]
    json_file, junit_file = write_downloads(batch, tmp_path / "out")
    assert json.loads(Path(json_file).read_text("utf-8"))["scenarios"][0]["file"] == "mine.yaml"
    assert str(tmp_path) not in Path(junit_file).read_text("utf-8")


def test_turns_of_a_run_without_images_folder_show_no_images(tmp_path):
    run = result("a", [])
    run.turns[0].images = ["x.png"]
    (turn,) = scenario_turns(run, None, tmp_path)
    assert turn.images == [] and turn.text == "hi"
    chat, _ = viewer_values([turn], "en")
    assert chat[0] == {"role": "user", "content": ["hi"]}


async def test_a_row_of_a_sorted_table_opens_its_own_run():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    tab = ScenarioTab(page)
    _, _, _, batch, *_ = await tab.run(["control.yaml"], [], None, lambda *a, **k: None)
    last = batch.results[-1]
    # Sorted in the browser, the last run's row is first on screen.
    row = [last.test_name, "pass", "", 0.0, 0, "", "scenarios/control.yaml"]
    clicked = SimpleNamespace(index=[0, 0], row_value=row)
    title, chat, _, files = tab.show_row(batch, None, None, clicked)
    assert last.scenario in title and chat[0]["content"][0] == last.turns[0].user
    files.close()


CALC = 'Thought: arithmetic.\nAction: calculator\nAction Input: {"expression": "3 + 4"}'
SEVEN = "Thought: done.\nAnswer: 3 + 4 = 7"


async def test_a_run_uses_the_model_the_sessions_settings_name(tmp_path, monkeypatch):
    from tests.support.openai_server import OpenAIServer

    monkeypatch.delenv("SPACE_ID", raising=False)
    with OpenAIServer(replies=[CALC, SEVEN]) as server:
        env = Settings(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-server")
        page = PageHandlers(env=env)
        state = page.new_state()
        state.prefs.model = "not-offered"
        tab = ScenarioTab(page)
        upload = [written(tmp_path, "ok.yaml", PASSING)]
        message, *rest = await tab.run([], upload, state, lambda *a, **k: None)
        # The chat's own refusal, and nothing ran.
        assert "not-offered" in message and rest[:7] == [gr.skip()] * 7
        assert server.requests == []
        state.prefs.model = env.default_choice().model
        message, _, table, *_ = await tab.run([], upload, state, lambda *a, **k: None)
        assert table.value["data"][0][:2] == ["adds", "pass"], message
        assert [r["model"] for r in server.requests] == [state.prefs.model] * 2
        state.close()


def test_each_models_junit_file_is_named_model_first_and_tells_its_model(tmp_path):
    from ui.scenarios_tab.comparison import Comparison, write_compared
    from ui.scenarios_tab.contenders import Contender
    from ui.scenarios_tab.runs import Batch

    models = ["a b · auto", "a_b · auto", "a/b · auto", "a?b · auto", "offline", "a_b_auto"]
    batch = Batch(results=[result("adds", [])])
    comparison = Comparison.of(batch, [Contender(m, None) for m in models])
    for lane in comparison.lanes:
        lane.batch.results = [result("adds", [])]
    _, files = write_compared(comparison, tmp_path, "en")
    names = [Path(f).name.removesuffix(".scenario-results.xml") for f in files]
    assert len(set(names)) == len(models)
    # Named as they were where nothing had to change; else with a hash of the exact name.
    assert names[4:] == ["offline", "a_b_auto"]
    assert all(re.fullmatch(r"a_b_auto-[0-9a-f]{8}", n) for n in names[:4]), names
    # The same model is the same file name in every run: no number by order of the rows.
    _, again = write_compared(comparison, tmp_path / "again", "en")
    assert [Path(f).name for f in again] == [Path(f).name for f in files]
    roots = [ET.parse(f).getroot().get("name") for f in files]
    assert roots == [f"scenarios: {m}" for m in models]
