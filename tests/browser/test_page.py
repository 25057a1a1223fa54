"""The page in a real browser: Playwright driving Debian's Chromium against the launched app.

The app is launched once for the test process (tests/browser/conftest.py); each test opens its
own page (its own session). The model for each turn comes from `model["factory"]`, so a test can
slow the agent down enough for the order of things on the page to be observable.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

import app
from agent.models import OfflineModel, ScriptedModel
from tests.support.held_model import Gate, HeldBefore, HeldModel
from tests.support.local import open_page
from tests.support.page_driver import settled
from ui.examples import EXAMPLE_SETS

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
ROOT = Path(app.__file__).resolve().parent
EXAMPLES = ROOT / "assets" / "examples"
TURN_DONE = re.compile(r"model call")
ZH_DONE = re.compile(r"次模型调用")
ZH_EXAMPLES = [label for label, _ in EXAMPLE_SETS["zh"]]


@pytest.fixture
def url(page_url):
    return page_url


@pytest.fixture
def model(page_model):
    """Set the model for this test's turns; the offline model comes back afterwards."""
    return page_model


@pytest.fixture
def page(browser, url):
    page = open_page(browser, url)
    yield page
    page.context.close()


def ask(page, text: str, *images: Path) -> None:
    if images:
        page.set_input_files("#input input[type=file]", [str(i) for i in images])
        page.wait_for_function(
            "n => document.querySelectorAll('#input img').length >= n", arg=len(images)
        )
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def wait_turn_done(page, number: int, timeout: float = 60_000) -> None:
    page.locator("#trace").get_by_text(f"Turn {number}", exact=False).first.wait_for(
        timeout=timeout
    )
    sync_api.expect(page.locator("#run-status")).to_contain_text(TURN_DONE, timeout=timeout)


def last_reply(page) -> str:
    """The last reply as it is now, for what it must not say yet."""
    return page.locator("#chat .bot-row").last.inner_text()


def replied(page, said: str | re.Pattern) -> None:
    """The last reply says `said`, once the chat has drawn it: the chat may draw its last
    update a moment after the status line says the turn is done."""
    sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text(said)


def test_trace_shows_the_tool_step_before_the_answer_finishes(page, model):
    model["factory"] = lambda: OfflineModel(delay=0.05, chunk_size=3)
    ask(page, "Zoom into the bottom right corner", EXAMPLES / "label.png")
    trace = page.locator("#trace")
    trace.get_by_text("Tool: zoom").wait_for()
    # The tool step is on the page while the turn is still running, and the input is free.
    sync_api.expect(page.locator("#run-status")).not_to_contain_text(TURN_DONE)
    sync_api.expect(page.locator("#input textarea")).to_have_value("")
    assert page.locator("#input img").count() == 0
    assert "Zoomed into" not in page.locator("#chat").inner_text()
    wait_turn_done(page, 1)
    replied(page, "Zoomed into the bottom-right region")
    assert page.locator("#chat .user-row img").count() == 1


def test_every_example_finishes(page):
    expected = {
        "Read the text on a sign": "LIBRARY",
        "Zoom into small print, then read it": "LOT",
        "A calculation": "347",
        "Convert 5 miles (asks for the unit)": "unit",
        "The time in Beijing": "Asia/Shanghai",
        "What time is it? (asks for the city)": "city",
        "A question no tool can answer": "cannot",
    }
    for number, (label, needle) in enumerate(expected.items(), start=1):
        page.locator("#examples").get_by_text(label, exact=True).click()
        wait_turn_done(page, number, timeout=90_000)
        # The chat may draw its last update a moment after the status line.
        reply = page.locator("#chat .bot-row").last
        sync_api.expect(reply).to_contain_text(re.compile(re.escape(needle), re.I))


def test_stop_cancels_a_running_turn_and_the_page_stays_usable(page, model):
    slow = "Thought: " + "thinking slowly " * 200 + "\nAnswer: never"
    model["factory"] = lambda: ScriptedModel([slow], delay=0.2, chunk_size=4, name="slow")
    square = stop_square(page)
    sync_api.expect(square).to_be_hidden()  # no turn runs yet
    ask(page, "take your time")
    page.locator("#trace").get_by_text("Thought 1").wait_for()
    sync_api.expect(square).to_be_visible()
    sync_api.expect(page.locator("#run-status")).to_contain_text("Working")
    started = time.monotonic()
    page.click("#stop")
    sync_api.expect(page.locator("#run-status")).to_contain_text("Stopped", timeout=3_000)
    sync_api.expect(page.locator("#trace")).to_contain_text("Stopped")
    sync_api.expect(page.locator("#chat")).to_contain_text("Stopped before it finished")
    sync_api.expect(square).to_be_hidden()
    assert time.monotonic() - started < 10
    # It stays stopped: nothing of the cancelled turn says it is working afterwards.
    time.sleep(1)
    sync_api.expect(page.locator("#run-status")).not_to_contain_text("Working")
    model["factory"] = lambda: OfflineModel()
    ask(page, "convert 5 miles")
    wait_turn_done(page, 2)
    replied(page, re.compile("unit", re.I))


def stop_square(page):
    return page.locator("#input button.stop-button")


def test_the_stop_square_stops_a_chinese_turn_and_says_so(browser, url, model):
    slow = "Thought: " + "thinking slowly " * 200 + "\nAnswer: never"
    model["factory"] = lambda: ScriptedModel([slow], delay=0.2, chunk_size=4, name="slow")
    page = open_page(browser, url, locale="zh-CN")
    try:
        ask(page, "慢慢来")
        page.locator("#trace").get_by_text("思考 1").wait_for()
        stop_square(page).click()
        sync_api.expect(page.locator("#run-status")).to_contain_text("已停止", timeout=3_000)
        sync_api.expect(page.locator("#chat")).to_contain_text("在完成前被停止")
        sync_api.expect(stop_square(page)).to_be_hidden()
    finally:
        page.context.close()


def test_a_message_typed_during_a_turn_waits_in_the_input(page, model):
    # The first turn holds until the held messages have been looked at.
    gate = Gate()
    held = "Thought: thinking a while\nAnswer: first answer"
    model["factory"] = lambda: HeldModel(held, "thinking a while", gate)
    ask(page, "first question")
    page.locator("#trace").get_by_text("Thought 1").wait_for()
    model["factory"] = lambda: OfflineModel()  # for the turns after this one
    box = page.locator("#input textarea")
    ask(page, "what is 6*7")
    sync_api.expect(page.get_by_text("Wait for the answer, or press Stop")).to_be_visible()
    sync_api.expect(box).to_have_value("what is 6*7")
    sync_api.expect(stop_square(page)).to_be_visible()  # the first turn still runs
    # An example clicked during the turn waits too, and the chat stays on screen meanwhile
    # (not emptied for a moment while the running turn's next update is on its way).
    page.locator("#examples").get_by_text("A calculation", exact=True).click()
    assert fewest_rows_within(page, 1.5) == 1
    sync_api.expect(page.locator("#chat .user-row")).to_have_count(1)
    # The toast already on screen says it: a second held message adds no second one; the
    # example says its own. It did not take the place of the words in the input.
    said = page.get_by_text("Wait for the answer, or press Stop; your message stays in the box.")
    sync_api.expect(said).to_have_count(1)
    sync_api.expect(page.get_by_text("then choose the example again")).to_have_count(1)
    sync_api.expect(box).to_have_value("what is 6*7")
    gate.open()
    wait_turn_done(page, 1)
    replied(page, "first answer")
    sync_api.expect(page.locator("#chat .user-row")).to_have_count(1)
    sync_api.expect(stop_square(page)).to_be_hidden()
    box.fill("what is 6*7")
    box.press("Enter")
    sync_api.expect(box).to_have_value("")
    wait_turn_done(page, 2)
    replied(page, "42")


def fewest_rows_within(page, seconds: float) -> int:
    """The fewest of the person's messages the chat showed, looked at every 25 ms."""
    return page.evaluate(
        """(ms) => new Promise((done) => {
            let fewest = Infinity;
            const started = performance.now();
            const look = () => {
                fewest = Math.min(fewest, document.querySelectorAll("#chat .user-row").length);
                performance.now() - started < ms ? setTimeout(look, 25) : done(fewest);
            };
            look();
        })""",
        seconds * 1000,
    )


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_panels_have_no_trash_icon_only_the_clear_button(browser, url, locale):
    page = open_page(browser, url, locale=locale)
    try:
        ask(page, "what is 2+2")
        page.locator("#chat .bot-row").get_by_text("4").first.wait_for()
        for panel in ("#chat", "#trace"):
            for name in ("Clear", "清空对话"):
                trash = page.locator(panel).get_by_role("button", name=name, exact=True)
                sync_api.expect(trash).to_have_count(0)
        copy_all = page.locator("#trace .icon-button-wrapper.top-panel button:visible")
        sync_api.expect(copy_all).to_have_count(1)  # copying the trace stays
        sync_api.expect(copy_all).to_be_visible()
        sync_api.expect(page.locator("#clear")).to_be_visible()
    finally:
        page.context.close()


SERIOUS = ("serious", "critical")


def serious_violations(page) -> list[str]:
    """axe's serious and critical findings on the page as it is now, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']}: {[n['target'] for n in v['nodes']]} {v['nodes'][0]['failureSummary']}"
        for v in found
        if v["impact"] in SERIOUS
    ]


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_axe_finds_no_serious_problem_before_during_and_after_a_turn(browser, url, model, locale):
    pytest.importorskip("axe_playwright_python")
    # The turn holds after its first tool step, until the page has been checked mid-run.
    gate = Gate()
    model["factory"] = lambda: HeldBefore(OfflineModel(), 2, gate)
    page = open_page(browser, url, locale=locale)
    try:
        page.wait_for_timeout(500)
        assert serious_violations(page) == [], "empty page"
        ask(page, "Zoom into the bottom right corner and read the text", EXAMPLES / "label.png")
        page.locator("#trace .thought-group").nth(1).wait_for()
        sync_api.expect(stop_square(page)).to_be_visible()
        assert serious_violations(page) == [], "mid-run"
        gate.open()
        done = ZH_DONE if locale.startswith("zh") else TURN_DONE
        sync_api.expect(page.locator("#run-status")).to_contain_text(done, timeout=60_000)
        sync_api.expect(page.locator("#download")).to_be_enabled()
        page.wait_for_timeout(500)
        assert serious_violations(page) == [], "after the turn"
    finally:
        gate.open()
        page.context.close()


def test_each_trace_step_is_one_named_tab_stop(page):
    ask(page, "what is 2+2")
    wait_turn_done(page, 1)
    steps = page.locator("#trace .thought-group .title")
    assert steps.count() >= 2
    inner = page.locator("#trace .thought-group .title button")
    assert inner.evaluate_all("els => els.every(el => el.inert && el.tabIndex < 0)")
    # The title folds and unfolds its step from the keyboard.
    step = page.locator("#trace .thought-group .title", has_text="Tool: calculator").last
    step.focus()
    sync_api.expect(step).to_be_focused()
    assert step.inner_text().strip()
    before = page.locator("#trace").inner_text()
    step.press("Enter")
    page.wait_for_timeout(300)
    assert page.locator("#trace").inner_text() != before


def test_a_long_message_scrolls_inside_the_input(page):
    box = page.locator("#input textarea")
    box.fill(("a long line of words " * 8 + "\n") * 120)  # about 20,000 characters
    page.wait_for_timeout(300)
    height = box.evaluate("el => el.getBoundingClientRect().height")
    assert height <= 330
    assert box.evaluate("el => el.scrollHeight > el.clientHeight")  # it scrolls inside
    # The buttons stay right under the input, on one screen with the text being typed.
    input_top = page.locator("#input").bounding_box()["y"]
    stop = page.locator("#stop").bounding_box()
    assert stop["y"] + stop["height"] - input_top < 500


def test_chinese_setting_makes_the_agent_answer_in_chinese(page):
    page.locator("#settings").get_by_text("Settings").click()
    settled(page, lambda: page.locator("#language").get_by_text("中文").click())
    ask(page, "???")
    page.locator("#trace").get_by_text("第 1 轮", exact=False).first.wait_for()
    sync_api.expect(page.locator("#chat")).to_contain_text("抱歉")


def test_page_text_follows_a_chinese_browser(browser, url):
    page = open_page(browser, url, locale="zh-CN")
    try:
        sync_api.expect(page.locator("#stop")).to_have_text("停止")
        sync_api.expect(page.locator("#banner")).to_contain_text("离线演示模型")
        page.locator("#settings").get_by_text("设置").click()
        sync_api.expect(page.locator("#source")).to_contain_text("OpenAI 兼容接口")
        # The Language setting starts at the browser's language.
        sync_api.expect(page.locator("#language input[value=zh]")).to_be_checked()
        # The input is named in Chinese, as a whole and as the text box.
        sync_api.expect(page.get_by_role("group", name="输入问题或附上图片")).to_be_visible()
        sync_api.expect(page.get_by_role("textbox", name=re.compile("^输入问题"))).to_be_visible()
        # The examples are the Chinese set, asked in Chinese.
        examples = page.locator("#examples")
        for label in ZH_EXAMPLES:
            sync_api.expect(examples.get_by_text(label, exact=True)).to_be_visible()
        sync_api.expect(examples.get_by_text("Read the text on a sign")).to_be_hidden()
        # An empty message is refused in Chinese.
        page.press("#input textarea", "Enter")
        sync_api.expect(page.get_by_text("请先输入问题或附上图片。")).to_be_visible()
        # A dialogue's labels: the task, what is known and what is missing; the status line.
        examples.get_by_text("现在几点了？（会追问城市）", exact=True).click()
        trace = page.locator("#trace")
        trace.get_by_text("第 1 轮", exact=False).first.wait_for()
        sync_api.expect(page.locator("#run-status")).to_contain_text(ZH_DONE)
        replied(page, "城市")
        trace.get_by_text("任务：world_clock").last.click()
        sync_api.expect(trace).to_contain_text("已知：")
        sync_api.expect(trace).to_contain_text("缺少：place")
        ask(page, "北京")
        trace.get_by_text("第 2 轮", exact=False).first.wait_for()
        sync_api.expect(page.locator("#run-status")).to_contain_text(
            re.compile(r"次模型调用 · 约 [\d,]+ 个词元 · \d+(\.\d)? (毫秒|秒)")
        )
        # The answer, tool result included, is Chinese.
        sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text(
            "北京（Asia/Shanghai）现在是"
        )
        trace.get_by_text("工具：world_clock").last.click()
        for label in ("参数", "结果"):
            sync_api.expect(trace).to_contain_text(label)
        for english in ("Turn", "Tool:", "Arguments", "Result", "Task:", "model call"):
            assert english not in trace.inner_text() + page.locator("#run-status").inner_text()
        # The names a screen reader says for each message and its buttons are Chinese too.
        page.wait_for_timeout(300)
        names = page.evaluate(
            """() => [...document.querySelectorAll("#chat [aria-label], #chat [title]")]
                .map((el) => el.getAttribute("aria-label") || el.getAttribute("title"))"""
        )
        assert any(name.startswith("用户的消息：") for name in names)
        for english in ("user's message", "bot's message", "Copy message"):
            assert not any(english in name for name in names), names
    finally:
        page.context.close()


def test_page_text_stays_english_in_an_english_browser(page):
    page.locator("#settings").get_by_text("Settings").click()
    sync_api.expect(page.locator("#language input[value=en]")).to_be_checked()
    sync_api.expect(page.get_by_role("group", name="Multimedia input field")).to_be_visible()
    sync_api.expect(
        page.get_by_role("textbox", name=re.compile("^Type a question"))
    ).to_be_visible()
    examples = page.locator("#examples")
    sync_api.expect(examples.get_by_text("Read the text on a sign", exact=True)).to_be_visible()
    sync_api.expect(examples.get_by_text(ZH_EXAMPLES[0])).to_be_hidden()
    examples.get_by_text("What time is it? (asks for the city)", exact=True).click()
    wait_turn_done(page, 1)
    page.locator("#trace").get_by_text("Task: world_clock").last.click()
    sync_api.expect(page.locator("#trace")).to_contain_text("Missing: place")
    # Choosing Chinese in Settings shows the Chinese examples.
    page.locator("#language").get_by_text("中文").click()
    sync_api.expect(examples.get_by_text(ZH_EXAMPLES[0], exact=True)).to_be_visible()


def test_screenshot_after_a_run(page, model, tmp_path):
    """The README's picture: a finished zoom-and-read turn, the zoom's step unfolded in the
    trace. `UPDATE_SCREENSHOT=1` writes it to assets/screenshot.png, as a small palette PNG."""
    from PIL import Image

    ask(page, "Zoom into the bottom right corner and read the text there", EXAMPLES / "label.png")
    wait_turn_done(page, 1)
    page.locator("#trace").get_by_text("Tool: zoom").click()
    page.locator("#trace").get_by_text("Arguments").first.wait_for()
    page.mouse.move(0, 0)
    page.wait_for_timeout(500)
    update = os.environ.get("UPDATE_SCREENSHOT") == "1"
    target = ROOT / "assets" / "screenshot.png" if update else tmp_path / "screenshot.png"
    page.screenshot(path=str(target))
    with Image.open(target) as shot:
        small = shot.convert("RGB").quantize(colors=256)
    small.save(target, optimize=True)
    assert 10_000 < target.stat().st_size < 300_000


def test_retry_reruns_the_last_turn_and_clear_empties_the_page(page, model):
    # Slow enough that the rerun's "Thinking…" is on the page for a while.
    model["factory"] = lambda: OfflineModel(delay=0.05, chunk_size=3)
    ask(page, "what is 6*7")
    wait_turn_done(page, 1)
    page.click("#retry")
    sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text("Thinking")
    sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text("42")
    sync_api.expect(page.locator("#chat .user-row")).to_have_count(1)
    sync_api.expect(page.locator("#download")).to_be_enabled()
    # Clear forgets the conversation; a draft in the input, with its image, is not part of it.
    page.locator("#input input[type=file]").set_input_files(str(EXAMPLES / "sign.png"))
    sync_api.expect(page.locator("#input .thumbnail-item")).to_have_count(1)
    page.fill("#input textarea", "a draft")
    page.click("#clear")
    sync_api.expect(page.locator("#chat .user-row")).to_have_count(0)
    sync_api.expect(page.locator("#trace")).not_to_contain_text("Turn 1")
    sync_api.expect(page.locator("#input textarea")).to_have_value("a draft")
    sync_api.expect(page.locator("#input .thumbnail-item")).to_have_count(1)


def test_unit_conversion_asks_then_finishes_with_known_params_growing(page):
    page.locator("#examples").get_by_text("Convert 5 miles (asks for the unit)").click()
    wait_turn_done(page, 1)
    replied(page, re.compile("unit", re.I))
    trace = page.locator("#trace")
    unfold_task(trace)
    sync_api.expect(trace).to_contain_text("from_unit = miles")
    sync_api.expect(trace).to_contain_text("to_unit")
    ask(page, "km")
    wait_turn_done(page, 2)
    replied(page, "8.04672 km")
    unfold_task(trace)
    sync_api.expect(trace).to_contain_text("to_unit = km")
    # The older turn folded when the new one came; the latest stays open.
    sync_api.expect(trace.get_by_text("Task: convert_units")).to_have_count(1)


def unfold_task(trace) -> None:
    """The latest turn stays open, its finished steps folded; a click shows the task state."""
    trace.get_by_text("Task: convert_units").last.click()


def test_a_turn_that_cannot_start_keeps_the_words(page):
    if app.server_key(app.Settings(), None):
        pytest.skip("the environment has a key")
    page.locator("#settings").get_by_text("Settings").click()
    settled(page, lambda: page.locator("#source").get_by_text("OpenAI-compatible API").click())
    ask(page, "what is 2+2")
    sync_api.expect(page.get_by_text("needs an API key or a base URL")).to_be_visible()
    sync_api.expect(page.locator("#input textarea")).to_have_value("what is 2+2")
    settled(page, lambda: page.locator("#source").get_by_text("Offline demo model").click())
    page.press("#input textarea", "Enter")
    wait_turn_done(page, 1)
    replied(page, "4")


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "must start with http:// or https://"),
        ("zh-CN", "必须以 http:// 或 https:// 开头"),
    ],
)
def test_a_base_url_that_is_no_url_is_said_under_the_fields_and_by_the_turn(
    browser, url, locale, said
):
    from tests.support.openai_server import OpenAIServer

    page = open_page(browser, url, locale=locale)
    notice = page.locator("#settings-notice")
    field = page.locator("#base-url textarea, #base-url input")
    try:
        page.locator("#settings .label-wrap").first.click()
        page.locator("#source label").nth(1).click()  # the OpenAI-compatible API
        field.press_sequentially("not a url", delay=20)
        sync_api.expect(notice).to_be_hidden()  # nothing said while it is being typed
        field.press("Tab")
        sync_api.expect(notice).to_contain_text(said)
        sync_api.expect(notice).to_have_attribute("role", "alert")
        # Kept in the browser, the setting comes back after a reload, and so does the notice.
        saved = "() => Object.values(localStorage).some(v => v.includes('not a url'))"
        page.wait_for_function(saved, polling=100)
        page.reload()
        page.wait_for_selector("#input textarea")
        page.locator("#settings .label-wrap").first.click()
        sync_api.expect(field).to_have_value("not a url")
        sync_api.expect(notice).to_contain_text(said)
        # The turn says it too, and goes nowhere else; the words stay in the input.
        ask(page, "what is 2+2")
        sync_api.expect(page.locator("[data-testid=toast-body]").get_by_text(said)).to_be_visible()
        sync_api.expect(page.locator("#input textarea")).to_have_value("what is 2+2")
        with OpenAIServer(replies=["Thought: Easy.\nAnswer: It is 4."]) as server:
            field.fill(server.base_url)
            sync_api.expect(notice).to_be_hidden()  # mended: gone at once
            page.press("#input textarea", "Enter")
            sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text("It is 4.")
            assert server.requests
    finally:
        page.context.close()


def test_settings_connect_an_openai_compatible_server(page):
    from tests.support.openai_server import OpenAIServer

    key = "sk-page-secret-42"
    replies = [
        'Thought: I should calculate.\nAction: calculator\nAction Input: {"expression": "6*7"}',
        "Thought: I know it now.\nAnswer: Six times seven is 42.",
    ]
    with OpenAIServer(replies=replies) as server:
        page.locator("#settings").get_by_text("Settings").click()
        settled(page, lambda: page.locator("#source").get_by_text("OpenAI-compatible API").click())
        settled(page, lambda: page.fill("#base-url textarea, #base-url input", server.base_url))
        settled(page, lambda: page.fill("#model-name textarea, #model-name input", "local-vision"))
        settled(page, lambda: page.fill("#api-key input", key))
        page.locator("#api-key input").press("Tab")
        ask(page, "what is six times seven?")
        wait_turn_done(page, 1)
        replied(page, "Six times seven is 42.")
        sync_api.expect(page.locator("#run-status")).to_contain_text("local-vision")
        assert server.requests[0]["model"] == "local-vision"
    # The key went to the server and nowhere else: not into the page, the trace or the input.
    assert key not in page.content()


def test_the_same_image_can_be_picked_again_after_sending_it(page):
    chooser_input = page.locator("#input input[type=file]")

    def pick() -> None:
        with page.expect_file_chooser() as chosen:
            page.locator("#input button.upload-button").click()
        chosen.value.set_files(str(EXAMPLES / "sign.png"))

    pick()
    sync_api.expect(page.locator("#input .thumbnail-item")).to_have_count(1)
    # Emptied once Gradio has the file: the browser's chooser fires again for the same file.
    sync_api.expect(chooser_input).to_have_value("")
    ask(page, "read it")
    wait_turn_done(page, 1)
    replied(page, "CITY LIBRARY")
    pick()
    sync_api.expect(page.locator("#input .thumbnail-item")).to_have_count(1)
    sync_api.expect(chooser_input).to_have_value("")


def test_an_example_leaves_the_draft_and_its_images_in_the_input(page):
    box = page.locator("#input textarea")
    page.locator("#input input[type=file]").set_input_files(str(EXAMPLES / "receipt.png"))
    sync_api.expect(page.locator("#input .thumbnail-item")).to_have_count(1)
    box.fill("my own words, not sent yet")
    page.locator("#examples").get_by_text("A calculation", exact=True).click()
    wait_turn_done(page, 1)
    replied(page, "347")  # 12.5% of 2480 plus 37
    sync_api.expect(page.locator("#chat .user-row")).to_contain_text("12.5% of 2480")
    sync_api.expect(box).to_have_value("my own words, not sent yet")
    sync_api.expect(page.locator("#input .thumbnail-item")).to_have_count(1)


def test_the_focused_input_shows_a_ring_a_person_can_see(page, tmp_path):
    import numpy as np
    from PIL import Image

    def indigo_pixels() -> int:
        shot = tmp_path / "input.png"
        box = page.locator("#input").bounding_box()
        clip = {"x": box["x"] - 4, "y": box["y"] - 4, "width": box["width"] + 8}
        page.screenshot(path=str(shot), clip={**clip, "height": box["height"] + 8})
        with Image.open(shot) as image:
            pixels = np.asarray(image.convert("RGB"), dtype=int)
        return int((np.abs(pixels - (67, 56, 202)).sum(axis=2) < 40).sum())

    page.locator("#input textarea").blur()
    page.mouse.move(0, 0)
    page.wait_for_timeout(200)
    before = indigo_pixels()
    page.locator("#input textarea").focus()
    page.wait_for_timeout(200)
    # The ring is on the screen, not only in the style sheet: a ring all round the input.
    width = page.locator("#input").bounding_box()["width"]
    assert indigo_pixels() - before > 2 * width


def test_retry_says_why_it_runs_nothing(page, model):
    page.click("#retry")  # nothing sent yet
    sync_api.expect(page.get_by_text("Nothing to retry yet: send a message first.")).to_be_visible()
    ask(page, "what is 2+2")
    wait_turn_done(page, 1)
    # The retried turn is slow (and stopped once the toast is seen).
    slow = "Thought: " + "thinking a while " * 20 + "\nAnswer: the answer"
    model["factory"] = lambda: ScriptedModel([slow], delay=0.15, chunk_size=4, name="slow")
    page.click("#retry")
    # The retried turn runs (the trace still shows the first one's steps until it does).
    sync_api.expect(page.locator("#chat .bot-row").last).to_contain_text("Thinking")
    # Retry again while the retried turn runs: said while it runs, not when it ends.
    page.click("#retry")
    said = page.get_by_text("A turn is still running: wait for its answer, or press Stop")
    sync_api.expect(said).to_be_visible(timeout=10_000)
    assert "the answer" not in last_reply(page)  # the retried turn still runs
    page.click("#stop")


def test_a_message_with_markup_is_shown_as_typed(page):
    typed = "<b>x</b> <script>window.ran=1</script> what is 2+2?"
    ask(page, typed)
    wait_turn_done(page, 1)
    sync_api.expect(page.locator("#chat .user-row").last).to_contain_text(typed)
    replied(page, "4")
    assert page.evaluate("window.ran") is None


def test_markdown_marks_in_a_message_are_shown_as_typed(page):
    typed = "read this: 9**9**9 _x_ `y` ~z~ [a](b) #1 https://example.org/a_b"
    ask(page, typed, EXAMPLES / "sign.png")
    wait_turn_done(page, 1)
    row = page.locator("#chat .user-row").last
    sync_api.expect(row).to_contain_text(typed)
    assert row.locator("img").count() == 1  # the image beside the words still shows
