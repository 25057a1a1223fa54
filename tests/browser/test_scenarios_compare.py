"""The Scenarios tab comparing models in a real browser: rows of settings, each run in turn
(the offline model, and models of the local OpenAI-compatible test server over real HTTP:
one scripted, one that answers 500, one that hangs), the side-by-side tables, the downloads,
Stop, a name typed in shown as text, the results in the language chosen, and the tables on a
phone.

The page's Settings name the test server (its model "scripted"), as an operator's would.
"""

from __future__ import annotations

import json
import re

import pytest

import app
from agent.config import Settings
from tests.support.local import serve
from tests.support.openai_server import Hang, OpenAIServer, server_error
from tests.support.page_driver import PHONE

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

SCRIPTED = "Thought: I know this.\nAnswer: = 7"
# Long enough for Stop to land while a hanging model is waited for, short enough to wait out.
MODEL_TIMEOUT = 8.0


def served(body):
    return {"broken": server_error(), "slow": Hang(seconds=60)}.get(body["model"], SCRIPTED)


@pytest.fixture(scope="module")
def url(chromium):
    with OpenAIServer(served) as server:
        env = Settings(
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY="sk-server",
            AGENT_MODEL="scripted",
            AGENT_ALLOWED_MODELS="scripted,broken,slow",
            AGENT_MODEL_TIMEOUT=MODEL_TIMEOUT,
            AGENT_TURNS_PER_MINUTE=0,
            AGENT_CLIENT_TURNS_PER_MINUTE=0,
        )
        demo = app.build_demo(env=env)
        try:
            yield serve(demo, **app.launch_options(env))
        finally:
            demo.close()


@pytest.fixture
def page(chromium, url):
    context = chromium.new_context(
        locale="en-US", viewport={"width": 1400, "height": 1000}, accept_downloads=True
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    page.wait_for_selector("#input textarea")
    page.get_by_role("tab", name="Scenarios").click()
    page.wait_for_selector("#scenario-run")
    yield page
    context.close()


def choose_control(page) -> None:
    page.locator("#scenario-suites input").click()
    page.get_by_role("option", name="control.yaml").click()
    page.keyboard.press("Escape")


def open_rows(page) -> None:
    page.locator("#scenario-compare").get_by_text("Compare models").click()
    expect(page.locator("#scenario-row-1")).to_be_visible()


def add_row(page, number: int) -> None:
    """Add row `number`, and wait for it: a click while the last add still runs is dropped."""
    page.click("#scenario-row-add")
    expect(page.locator(f"#scenario-row-{number}")).to_be_visible()


def set_model(page, number: int, model: str) -> None:
    """Row `number`'s model: a choice of its list, or a name typed in."""
    if number > 1 and not page.locator(f"#scenario-row-{number}").is_visible():
        add_row(page, number)
    field = page.locator(f"#scenario-row-{number}-model input")
    field.click()
    if model == "Offline model":
        page.get_by_role("option", name=model).click()
    else:
        field.fill(model)
        field.press("Enter")
    page.keyboard.press("Escape")
    expect(field).to_have_value(model)


def compared_row(page, model: str):
    return page.locator("#scenario-compared [role=row]").filter(
        has=page.get_by_text(model, exact=True)
    )


def test_rows_of_models_run_in_turn_and_show_side_by_side(page, tmp_path):
    choose_control(page)
    open_rows(page)
    set_model(page, 1, "Offline model")
    add_row(page, 2)  # row 2 as in Settings: the scripted model
    set_model(page, 3, "broken")
    set_model(page, 4, "scripted")  # the Settings' model again
    page.click("#scenario-run")
    expect(compared_row(page, "offline")).to_contain_text("10/10", timeout=120_000)
    expect(compared_row(page, "broken")).to_contain_text("0/10")
    expect(compared_row(page, "scripted")).to_be_visible()
    expect(page.locator("#scenario-compared [role=row]")).to_have_count(4)  # and the header
    message = page.locator("#scenario-message")
    expect(message).to_contain_text("Rows 2, 4 ask for the same settings; they run once.")
    expect(message).to_contain_text(re.compile(r"broken stopped at “goodbye.*\(500\)"))
    # Each sentence on a line of its own.
    lines = message.inner_text().splitlines()
    assert any(line.startswith("broken stopped at") for line in lines)
    assert any(line.startswith("Rows 2, 4") for line in lines)
    # A row per scenario, a column per model, and the file it came from.
    headers = page.locator("#scenario-results [role=columnheader] .header-content")
    expect(headers).to_have_text(["Scenario", "offline", "scripted", "broken", "File"])
    greeting = page.locator("#scenario-results [role=row]").filter(
        has=page.get_by_text("a greeting asks what the person wants", exact=True)
    )
    expect(greeting).to_contain_text("scenarios/control.yaml")
    # The scripted model's cell opens its own run of that scenario.
    greeting.locator("[role=gridcell]").nth(2).click()
    title = page.locator("#viewer-title")
    expect(title).to_contain_text("Scenario: a greeting asks what the person wants (scripted)")
    expect(page.locator("#viewer-chat .bot-row").last).to_contain_text("= 7")
    # The downloads: every model's results in one JSON file, a JUnit file per model.
    with page.expect_download() as info:
        page.click("#scenario-json")
    saved = tmp_path / "all.json"
    info.value.save_as(saved)
    data = json.loads(saved.read_text("utf-8"))
    assert [m["model"] for m in data["models"]] == ["offline", "scripted", "broken"]
    assert data["models"][0]["passed"] is True
    expect(page.locator("#scenario-junit")).to_be_hidden()
    files = page.locator("#scenario-junit-files")
    for name in ("offline", "scripted", "broken"):
        expect(files.get_by_role("cell", name=f"{name}.scenario-results.xml")).to_be_visible()
    # Why the broken model failed its first scenario, in its cell.
    goodbye = page.locator("#scenario-results [role=row]").filter(
        has=page.get_by_text("goodbye ends the conversation", exact=True)
    )
    expect(goodbye.locator("[role=gridcell]").nth(3)).to_contain_text(
        "FAIL: turn 1: outcome expected end, saw error"
    )


def test_rows_add_up_to_the_most_and_come_off_again(page):
    open_rows(page)
    add = page.locator("#scenario-row-add")
    rows = page.locator(".scenario-row:visible")
    # One click at a time, each waited for: a click sent while the last row lands finds the
    # button disabled.
    for count in range(rows.count() + 1, 7):
        add.click()
        expect(rows).to_have_count(count)
    expect(add).to_be_disabled()
    expect(page.locator("#scenario-rows-full")).to_contain_text("the most rows one run compares")
    set_model(page, 3, "broken")
    set_model(page, 4, "slow")
    page.click("#scenario-row-3-remove")
    # The rows below move up; the last place empties.
    expect(rows).to_have_count(5)
    expect(page.locator("#scenario-row-6")).to_be_hidden()
    expect(page.locator("#scenario-row-3-model input")).to_have_value("slow")
    expect(add).to_be_enabled()
    add.click()  # a new row comes at the end, as in Settings
    expect(page.locator("#scenario-row-6")).to_be_visible()
    expect(page.locator("#scenario-row-6-model input")).to_have_value("As in Settings")
    expect(page.locator("#scenario-row-3-model input")).to_have_value("slow")


def test_stop_during_a_hanging_model_keeps_the_rows_that_finished(page):
    choose_control(page)
    open_rows(page)
    set_model(page, 1, "Offline model")
    set_model(page, 2, "slow")
    page.click("#scenario-run")
    message = page.locator("#scenario-message")
    expect(message).to_contain_text("Running on slow: goodbye", timeout=120_000)
    page.click("#scenario-stop")
    expect(message).to_contain_text("Stopped after 10 of 20 scenario runs")
    expect(compared_row(page, "offline")).to_contain_text("10/10")
    # The row Stop cut short keeps its place, and says it did not run.
    expect(compared_row(page, "slow")).to_contain_text("not run")
    expect(page.locator("#scenario-compared [role=row]")).to_have_count(3)


def test_a_hanging_model_scores_zero_and_the_next_row_still_runs(page):
    choose_control(page)
    open_rows(page)
    set_model(page, 1, "slow")
    set_model(page, 2, "Offline model")
    page.click("#scenario-run")
    expect(compared_row(page, "offline")).to_contain_text("10/10", timeout=120_000)
    expect(compared_row(page, "slow")).to_contain_text("0/10")
    message = page.locator("#scenario-message")
    expect(message).to_contain_text(f"did not answer within {MODEL_TIMEOUT:g} seconds")
    expect(message).to_contain_text("Its 9 other scenarios were not sent")


def test_on_a_phone_the_tables_scroll_in_their_box_and_no_number_wraps(chromium, url):
    context = chromium.new_context(locale="en-US", viewport=PHONE)
    page = context.new_page()
    try:
        page.set_default_timeout(60_000)
        page.goto(url)
        page.wait_for_selector("#input textarea")
        page.get_by_role("tab", name="Scenarios").click()
        choose_control(page)
        # One row: today's run, with the Settings' scripted model and its long failures.
        page.click("#scenario-run")
        expect(page.locator("#scenario-scores")).to_contain_text("Pass rate", timeout=120_000)
        readable(page, "#scenario-results", numbers=(3, 4, 5))
        open_rows(page)
        set_model(page, 2, "Offline model")
        page.click("#scenario-run")
        expect(compared_row(page, "offline")).to_contain_text("10/10", timeout=120_000)
        readable(page, "#scenario-compared", numbers=(1, 2, 3, 4, 5, 6, 7))
        readable(page, "#scenario-results", numbers=())
        # The model's column leaves room for the figures beside it.
        width = page.locator("#scenario-compared [role=columnheader]").first.evaluate(
            "(h) => h.getBoundingClientRect().width"
        )
        assert width <= PHONE["width"] / 2
        # Each JUnit file's name, as much of it as shows, tells which model it is of.
        files = page.locator("#scenario-junit-files td.filename")
        expect(files).to_have_count(2)
        shown = files.evaluate_all(
            """(cells) => cells.map((cell) => {
                const right = cell.getBoundingClientRect().right;
                let seen = '';
                for (const span of cell.querySelectorAll('span')) {
                    const text = span.firstChild;
                    for (let i = 0; text && i < text.length; i++) {
                        const range = document.createRange();
                        range.setStart(text, i);
                        range.setEnd(text, i + 1);
                        const box = range.getBoundingClientRect();
                        if (box.width && box.right <= right + 0.5) seen += text.data[i];
                    }
                }
                return seen;
            })"""
        )
        assert shown[0].startswith("scripted") and shown[1].startswith("offline"), shown
    finally:
        context.close()


def test_a_name_typed_in_is_text_and_the_results_follow_the_language(page):
    choose_control(page)
    open_rows(page)
    marked = "<img src=//127.0.0.1:9/x>[a](//x.io)<h1>b</h1>"
    set_model(page, 1, marked)
    set_model(page, 2, "Offline model")
    page.click("#scenario-run")
    expect(compared_row(page, "offline")).to_contain_text("10/10", timeout=120_000)
    message = page.locator("#scenario-message")
    expect(message).to_contain_text(f"{marked} did not run: The model “{marked}”")
    for where in ("#scenario-message", "#scenario-compared", "#scenario-results"):
        expect(page.locator(f"{where} :is(img, h1, a)")).to_have_count(0)
    headers = page.locator("#scenario-results [role=columnheader] .header-content")
    expect(headers.nth(1)).to_have_text(marked)
    expect(compared_row(page, marked)).to_contain_text("not run")
    # The Language setting says the results again in Chinese, and back.
    settings = page.locator("#settings")
    settings.locator(".label-wrap").first.click()
    page.locator("#language").get_by_text("中文", exact=True).click()
    expect(message).to_contain_text("点击某个模型的单元格")
    expect(message).to_contain_text(f"{marked} 未运行")
    expect(headers.first).to_have_text("场景")
    expect(compared_row(page, marked)).to_contain_text("未运行")
    expect(page.locator("#scenario-compared [role=columnheader]").nth(1)).to_contain_text("通过率")
    page.locator("#language").get_by_text("English", exact=True).click()
    expect(message).to_contain_text("Click a model's cell")
    expect(headers.first).to_have_text("Scenario")


def readable(page, table: str, numbers: tuple[int, ...]) -> None:
    """`table` is wider than the phone and scrolls in its own box, not the page; every header
    shows whole, and the cells of the `numbers` columns keep to one line."""
    facts = page.locator(table).evaluate(
        r"""(el, numbers) => {
            const box = el.querySelector('.virtual-table-viewport');
            const cut = (node) => node.scrollWidth > node.clientWidth + 1
                || node.scrollHeight > node.clientHeight + 1;
            // The lines a cell's words take: the tops of its text's boxes.
            const lines = (node) => {
                const tops = new Set();
                const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
                while (walker.nextNode()) {
                    if (!walker.currentNode.textContent.trim()) continue;
                    const range = document.createRange();
                    range.selectNodeContents(walker.currentNode);
                    for (const r of range.getClientRects()) tops.add(Math.round(r.top));
                }
                return tops.size;
            };
            const headers = [...el.querySelectorAll('[role=columnheader]')];
            const rows = [...el.querySelectorAll('[role=row]')].slice(1);
            const wrapped = [];
            for (const row of rows) {
                const cells = [...row.querySelectorAll('[role=gridcell]')];
                for (const i of numbers) {
                    const cell = cells[i];
                    const text = cell ? cell.innerText.trim() : '';
                    if (text && lines(cell) > 1) wrapped.push(text);
                }
            }
            return {
                scrolls: box.scrollWidth > box.clientWidth,
                page: document.documentElement.scrollWidth,
                // A header is whole when none of its words is broken across lines or hidden.
                cutHeaders: headers.filter((h) => {
                    const words = h.innerText.replace('⋮', '').trim().split(/\s+/).length;
                    return cut(h.querySelector('.header-content') || h) || lines(h) > words;
                }).map((h) => h.innerText),
                wrapped,
                rows: rows.length,
            };
        }""",
        list(numbers),
    )
    assert facts["rows"] > 0
    assert facts["scrolls"], "the table scrolls sideways in its own box"
    assert facts["page"] <= PHONE["width"], "the page itself does not scroll sideways"
    assert facts["cutHeaders"] == []
    assert facts["wrapped"] == []


def test_junit_files_need_no_remove_button(page):
    """The per-model files are the run's results: the list offers them, it does not edit."""
    choose_control(page)
    open_rows(page)
    set_model(page, 1, "Offline model")
    add_row(page, 2)
    page.click("#scenario-run")
    files = page.locator("#scenario-junit-files")
    named = files.get_by_role("cell", name="scripted.scenario-results.xml")
    expect(named).to_be_visible(timeout=120_000)
    expect(files.get_by_role("button", name=re.compile("Remove|Clear"))).to_have_count(0)


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_axe_finds_no_serious_problem_in_the_rows_and_the_comparison(chromium, url, locale):
    pytest.importorskip("axe_playwright_python")
    from tests.support.page_driver import serious_violations

    context = chromium.new_context(locale=locale, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.set_default_timeout(60_000)
        page.goto(url)
        page.wait_for_selector("#input textarea")
        page.get_by_role("tab", name=re.compile("Scenarios|测试场景")).click()
        page.locator("#scenario-suites input").click()
        page.get_by_role("option", name="control.yaml").click()
        page.keyboard.press("Escape")
        page.locator("#scenario-compare").get_by_text(re.compile("Compare models|比较模型")).click()
        page.click("#scenario-row-add")
        field = page.locator("#scenario-row-2-model input")
        field.fill("offline")  # the offline model, beside the Settings' scripted one
        field.press("Enter")
        page.keyboard.press("Escape")
        expect(field).to_have_value(re.compile("Offline model|离线演示模型"))
        assert serious_violations(page) == [], "the rows"
        page.click("#scenario-run")
        expect(page.locator("#scenario-junit-files")).to_be_visible(timeout=120_000)
        # The message line fades while its update lands; axe reads it once it is whole.
        page.wait_for_function(
            """() => {
                let node = document.querySelector('#scenario-message .prose');
                for (; node; node = node.parentElement) {
                    if (getComputedStyle(node).opacity !== '1') return false;
                }
                return true;
            }"""
        )
        assert serious_violations(page) == [], "the comparison"
    finally:
        context.close()
