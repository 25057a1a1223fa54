"""The Scenarios tab in a real browser: running suites, reading the results, looking at a run's
conversation, downloading the results, and opening a downloaded conversation read-only.

The page runs on the offline model, as on a machine with no key.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

import app
from agent.models import OfflineModel
from agent.scenarios.format import load_file

pytestmark = pytest.mark.browser
SCENARIOS = Path(app.__file__).parent / "scenarios"

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
EXAMPLES = Path(app.__file__).resolve().parent / "assets" / "examples"

FAILING = """
name: expects the wrong tool
language: en
turns:
  - user: "What is 3 + 4?"
    expect:
      outcome: answer
      tools: [convert_units]
"""
INVALID = """
name: misspelt
turns:
  - user: hi
    expect: {outcom: answer}
"""


@pytest.fixture
def url(page_url):
    return page_url


def open_tab(browser, url, locale: str = "en-US"):
    context = browser.new_context(
        locale=locale, viewport={"width": 1400, "height": 1000}, accept_downloads=True
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    page.wait_for_selector("#input textarea")
    page.get_by_role("tab", name="测试场景" if locale.startswith("zh") else "Scenarios").click()
    page.wait_for_selector("#scenario-run")
    return page


@pytest.fixture
def page(browser, url):
    page = open_tab(browser, url)
    yield page
    page.context.close()


@pytest.fixture
def zh_page(browser, url):
    page = open_tab(browser, url, "zh-CN")
    yield page
    page.context.close()


@pytest.fixture
def slow(page_model):
    """The model of every scenario and turn, slowed down; it comes back after."""
    page_model["factory"] = lambda: OfflineModel(delay=0.1, chunk_size=2)


def choose(page, *suites: str) -> None:
    for suite in suites:
        page.locator("#scenario-suites input").click()
        page.get_by_role("option", name=suite).click()
    page.keyboard.press("Escape")


def upload(page, tmp_path, **files: str) -> None:
    paths = []
    for name, text in files.items():
        path = tmp_path / name.replace("_", ".")
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        paths.append(str(path))
    page.set_input_files("#scenario-files input[type=file]", paths)
    for path in paths:
        expect(page.locator("#scenario-files")).to_contain_text(Path(path).stem)


def run(page) -> None:
    page.click("#scenario-run")
    # While it runs, the progress bar shows "3/10" on the page: wait for the scores.
    scores = re.compile(r"(Pass rate|通过率) \d+/\d+")
    expect(page.locator("#scenario-scores")).to_contain_text(scores, timeout=120_000)


def rows(page):
    return page.locator("#scenario-results [role=row]")


def row(page, name: str):
    return rows(page).filter(has=page.get_by_text(name, exact=True))


def test_a_shipped_suite_runs_and_every_row_passes(page, tmp_path):
    choose(page, "control.yaml")
    run(page)
    results = page.locator("#scenario-results")
    expect(results).to_contain_text("goodbye ends the conversation")
    expect(row(page, "goodbye ends the conversation")).to_contain_text("pass")
    expect(results).not_to_contain_text("FAIL")
    expect(page.locator("#scenario-scores")).to_contain_text("Pass rate 10/10 (100.0%)")
    expect(page.locator("#scenario-scores")).to_contain_text("Decision macro-F1 1.000")
    # The results as the command line writes them, for a bug report or CI.
    with page.expect_download() as info:
        page.click("#scenario-json")
    saved = tmp_path / "results.json"
    info.value.save_as(saved)
    data = json.loads(saved.read_text("utf-8"))
    assert data["passed"] is True and data["scores"]["runs"]["hits"] == 10
    assert {s["file"] for s in data["scenarios"]} == {"scenarios/control.yaml"}
    expect(page.locator("#scenario-junit")).to_be_enabled()


def test_a_failing_upload_shows_its_reason_and_a_row_opens_its_conversation(page, tmp_path):
    choose(page, "control.yaml")
    upload(page, tmp_path, mine_yaml=FAILING, broken_yaml=INVALID)
    run(page)
    failing = row(page, "expects the wrong tool")
    expect(failing).to_contain_text("FAIL")
    expect(failing).to_contain_text("turn 1: tools expected [convert_units], saw [calculator]")
    # The invalid file is one sentence naming it and its problem; the rest still ran.
    message = page.locator("#scenario-message")
    expect(message).to_contain_text("Not run, the file is invalid: broken.yaml:4:")
    expect(message).to_contain_text("outcom")
    expect(row(page, "goodbye ends the conversation")).to_contain_text("pass")
    failing.get_by_text("expects the wrong tool", exact=True).click()
    expect(page.locator("#viewer-title")).to_contain_text("Scenario: expects the wrong tool")
    chat = page.locator("#viewer-chat")
    expect(chat.locator(".user-row")).to_contain_text("What is 3 + 4?")
    expect(chat.locator(".bot-row").last).to_contain_text("7")
    trace = page.locator("#viewer-trace")
    expect(trace).to_contain_text("Turn 1: What is 3 + 4?")
    expect(trace).to_contain_text("Tool: calculator")
    # Read-only: the viewer has no input of its own.
    assert page.locator("#viewer-chat textarea").count() == 0


def test_each_invalid_file_has_a_line_and_each_row_names_its_file(page, tmp_path):
    choose(page, "control.yaml")
    unclosed = 'name: x\nturns:\n  - user: "hi"\n    expect: [a\n'
    upload(page, tmp_path, mine_yaml=FAILING, broken_yaml=INVALID, unclosed_yaml=unclosed)
    run(page)
    lines = page.locator("#scenario-message").inner_text().splitlines()
    invalid = [line for line in lines if line.startswith("Not run, the file is invalid: ")]
    assert [line.split(": ")[1].split(":")[0] for line in invalid] == [
        "broken.yaml",
        "unclosed.yaml",
    ], lines
    # The last column says where each scenario came from: a shipped suite or an upload.
    expect(row(page, "expects the wrong tool")).to_contain_text("mine.yaml")
    expect(row(page, "goodbye ends the conversation")).to_contain_text("scenarios/control.yaml")


def test_an_invalid_file_alone_is_one_sentence(page, tmp_path):
    upload(page, tmp_path, broken_yaml=INVALID)
    page.click("#scenario-run")
    message = page.locator("#scenario-message")
    expect(message).to_contain_text("Not run, the file is invalid: broken.yaml:4:")
    assert "/tmp/" not in message.inner_text()
    expect(page.locator("#scenario-results")).to_be_hidden()


def test_a_yaml_error_is_shown_whole(page, tmp_path):
    # The YAML parser says "but got '<stream end>'": shown as written, not taken for a tag.
    upload(page, tmp_path, unclosed_yaml='name: x\nturns:\n  - user: "hi"\n    expect: [a\n')
    page.click("#scenario-run")
    message = page.locator("#scenario-message")
    expect(message).to_contain_text("Not run, the file is invalid: unclosed.yaml:")
    expect(message).to_contain_text("<stream end>")


def download_a_conversation(page, tmp_path) -> Path:
    """A turn in the chat tab, and the page's own download of it."""
    page.get_by_role("tab", name=re.compile("Chat|对话")).click()
    page.set_input_files("#input input[type=file]", [str(EXAMPLES / "label.png")])
    page.wait_for_function("() => document.querySelectorAll('#input img').length >= 1")
    page.fill("#input textarea", "Zoom into the top left")
    page.press("#input textarea", "Enter")
    expect(page.locator("#run-status")).to_contain_text(re.compile("model call|模型调用"))
    expect(page.locator("#download")).to_be_enabled()
    with page.expect_download() as info:
        page.click("#download")
    saved = tmp_path / "conversation.zip"
    info.value.save_as(saved)
    page.get_by_role("tab", name=re.compile("Scenarios|测试场景")).click()
    return saved


def test_a_downloaded_conversation_opens_read_only(page, tmp_path):
    saved = download_a_conversation(page, tmp_path)
    page.set_input_files("#conversation-file input[type=file]", [str(saved)])
    expect(page.locator("#viewer-title")).to_contain_text("File: conversation.zip")
    chat = page.locator("#viewer-chat")
    expect(chat.locator(".user-row")).to_contain_text("Zoom into the top left")
    expect(chat.locator(".user-row img")).to_have_count(1)
    expect(chat.locator(".bot-row").last).to_contain_text("Zoomed into")
    expect(page.locator("#viewer-trace")).to_contain_text("Tool: zoom")
    # A file that is no conversation: one sentence, and what was shown stays.
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    page.set_input_files("#conversation-file input[type=file]", [str(bad)])
    expect(page.locator("#viewer-message")).to_contain_text("This is not a conversation download")
    expect(chat.locator(".user-row")).to_contain_text("Zoom into the top left")


def test_the_tab_in_chinese(zh_page, tmp_path):
    page = zh_page
    expect(page.locator("#scenario-run")).to_have_text("运行")
    choose(page, "control.yaml")
    upload(page, tmp_path, broken_yaml=INVALID)
    run(page)
    expect(page.locator("#scenario-results")).to_contain_text("场景")
    expect(row(page, "再见 结束对话")).to_contain_text("通过")
    expect(page.locator("#scenario-scores")).to_contain_text("通过率 10/10")
    expect(page.locator("#scenario-message")).to_contain_text("未运行，文件无效：broken.yaml:4:")
    row(page, "再见 结束对话").get_by_text("再见 结束对话", exact=True).click()
    expect(page.locator("#viewer-title")).to_contain_text("场景：再见 结束对话")
    expect(page.locator("#viewer-trace")).to_contain_text("第 1 轮")
    saved = download_a_conversation(page, tmp_path)
    page.set_input_files("#conversation-file input[type=file]", [str(saved)])
    expect(page.locator("#viewer-title")).to_contain_text("文件：conversation.zip")
    expect(page.locator("#viewer-chat .user-row")).to_contain_text("Zoom into the top left")
    expect(page.locator("#viewer-trace")).to_contain_text("工具：zoom")


def test_a_run_blocks_nobody_and_stop_keeps_what_finished(page, browser, url, slow):
    choose(page, "control.yaml", "dialogue.yaml")
    page.click("#scenario-run")
    # The progress bar, over the message line: which scenario runs, and how many are done.
    expect(page.locator("#scenario-message")).to_contain_text("Running: ")
    count = sum(len(load_file(SCENARIOS / name)) for name in ("control.yaml", "dialogue.yaml"))
    expect(page.locator("#scenario-message")).to_contain_text(re.compile(rf"\d+/{count} scenarios"))
    # Another person's chat turn runs to its end while the suites run.
    other = browser.new_context(locale="en-US").new_page()
    try:
        other.goto(url)
        other.fill("#input textarea", "what is 2+2")
        other.press("#input textarea", "Enter")
        expect(other.locator("#run-status")).to_contain_text("model call", timeout=60_000)
    finally:
        other.context.close()
    expect(page.locator("#scenario-scores")).not_to_contain_text("Pass rate")
    # Stop once some scenarios finished: the run ends, and those keep their results.
    expect(page.locator("#scenario-message")).to_contain_text(re.compile(rf"[1-9]\d*/{count}"))
    page.click("#scenario-stop")
    stopped = re.compile(rf"Stopped after ([1-9]\d*) of {count} scenarios")
    expect(page.locator("#scenario-message")).to_contain_text(stopped)
    done = int(stopped.search(page.locator("#scenario-message").inner_text()).group(1))
    expect(page.locator("#scenario-results")).to_be_visible()
    expect(rows(page)).to_have_count(done + 1)  # the header row, then one per finished run
    expect(page.locator("#scenario-scores")).to_contain_text("Pass rate")
    page.click("#scenario-stop")  # nothing runs: what the run said stays
    page.wait_for_timeout(300)
    expect(page.locator("#scenario-message")).to_contain_text(stopped)


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_axe_finds_no_serious_problem_in_the_tab(browser, url, locale, tmp_path):
    pytest.importorskip("axe_playwright_python")
    from tests.browser.test_page import serious_violations

    page = open_tab(browser, url, locale)
    try:
        page.wait_for_timeout(500)
        assert serious_violations(page) == [], "before a run"
        choose(page, "control.yaml")
        run(page)
        rows(page).nth(1).locator("[role=gridcell]").first.click()
        expect(page.locator("#viewer-trace")).to_contain_text(re.compile("Turn 1|第 1 轮"))
        page.wait_for_timeout(500)
        assert serious_violations(page) == [], "after a run"
        # The viewer's panels have no trash icon that would only hide what they show.
        for panel in ("#viewer-chat", "#viewer-trace"):
            trash = page.locator(panel).get_by_role("button", name=re.compile("^(Clear|清空对话)$"))
            expect(trash).to_have_count(0)
    finally:
        page.context.close()
