"""Language in Settings says the whole page again in the chosen language, at once and without
a reload: labels, buttons, placeholders, examples, the status line, the conversation's trace,
the tab's title and the accessible names; the conversation stays."""

from __future__ import annotations

import pytest

from tests.support.page_driver import DESKTOP, PHONE, send, wait_done
from tools import words

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

TEXT = words.both("page")


def open_settings(page) -> None:
    settings = page.locator("#settings")
    if not settings.locator("#language").is_visible():
        settings.locator(".label-wrap").first.click()
    expect(page.locator("#language")).to_be_visible()


def choose(page, label: str) -> None:
    open_settings(page)
    page.locator("#language").get_by_text(label, exact=True).click()


def says(page, key: str) -> dict[str, str]:
    """What the page shows, part by part, for comparing with the page's words in `key`."""
    text = TEXT[key]
    open_settings(page)
    expect(page.locator("#stop")).to_have_text(text["stop"])
    expect(page.locator("#retry")).to_have_text(text["retry"])
    expect(page.locator("#clear")).to_have_text(text["clear"])
    expect(page.locator("#download")).to_have_text(text["download"])
    expect(page.locator("#new-conversation")).to_have_text(text["new_conversation"])
    expect(page.locator("#conversations")).to_contain_text(text["conversations"])
    if not page.locator("#open-conversation").is_visible():
        page.locator("#conversations").get_by_role("button").first.click()
    for part, name in [
        ("#open-conversation", "open_conversation"),
        ("#delete-conversation", "delete_conversation"),
        ("#reopen-conversation", "reopen_conversation"),
    ]:
        expect(page.locator(part)).to_contain_text(text[name])
    expect(page.locator("#header")).to_contain_text(text["title"])
    expect(page.locator("#banner")).to_contain_text(text["banner_offline"][2:12])
    expect(page.get_by_role("tab", name=text["tab_chat"], exact=True)).to_be_visible()
    expect(page.get_by_role("tab", name=text["tab_scenarios"], exact=True)).to_be_visible()
    expect(page.locator("#chat")).to_contain_text(text["chat_label"])
    expect(page.locator("#trace")).to_contain_text(text["trace_label"])
    expect(page.locator("#input textarea")).to_have_attribute(
        "placeholder", text["input_placeholder"]
    )
    expect(page.locator("#settings")).to_contain_text(text["settings"])
    expect(page.locator("#source")).to_contain_text(text["source_openai"])
    expect(page.locator("#source")).to_contain_text(text["source"])
    expect(page.locator("#api-key")).to_contain_text(text["api_key_info"])
    examples = page.locator("#examples")
    expect(examples.get_by_text(text["examples"], exact=True)).to_be_visible()
    expect(page).to_have_title(text["title"])
    # Gradio's own footer, as Gradio writes it for a browser in that language.
    built = {"en": "Built with Gradio", "zh": "使用 Gradio 构建"}[key]
    expect(page.locator("footer")).to_contain_text(built)
    return text


def test_choosing_chinese_in_an_english_browser_says_the_whole_page_in_chinese(open_at):
    page = open_at(DESKTOP, "en-US")
    send(page, "convert 5 miles")
    wait_done(page)
    expect(page.locator("#trace")).to_contain_text("Turn 1")
    choose(page, "中文")
    says(page, "zh")
    expect(page.locator("#examples").get_by_text("计算", exact=True)).to_be_visible()
    expect(page.locator("#examples").get_by_text("A calculation", exact=True)).to_be_hidden()
    # The conversation stays, its trace and status now in Chinese.
    expect(page.locator("#chat .user-row")).to_have_count(1)
    expect(page.locator("#trace")).to_contain_text("第 1 轮")
    expect(page.locator("#run-status")).to_contain_text("次模型调用")
    trace = page.locator("#trace").inner_text() + page.locator("#run-status").inner_text()
    for english in ("Turn", "Task:", "model call", "Trace"):
        assert english not in trace
    # Gradio's accessible names follow too.
    expect(page.get_by_role("group", name="输入问题或附上图片")).to_be_visible()
    # The next turn is Chinese from the start.
    send(page, "km")
    wait_done(page, "次模型调用")
    expect(page.locator("#trace")).to_contain_text("第 2 轮")
    # And back.
    choose(page, "English")
    says(page, "en")
    expect(page.locator("#trace")).to_contain_text("Turn 2")
    expect(page.get_by_role("group", name="Multimedia input field")).to_be_visible()


def test_choosing_english_in_a_chinese_browser_says_the_page_in_english(open_at):
    page = open_at(PHONE, "zh-CN")
    says(page, "zh")
    choose(page, "English")
    says(page, "en")
    expect(page.locator("#to-trace")).to_have_text(TEXT["en"]["to_trace"])
    expect(page.locator("#examples").get_by_text("A calculation", exact=True)).to_be_visible()
    page.press("#input textarea", "Enter")
    expect(page.get_by_text(TEXT["en"]["empty_input"])).to_be_visible()


@pytest.mark.parametrize(
    ("browser", "label", "key", "hints"),
    [
        ("en-US", "中文", "zh", ("将文件拖放到此处", "- 或 -", "点击上传", "通过 API 使用")),
        ("zh-CN", "English", "en", ("Drop File Here", "- or -", "Click to Upload", "Use via API")),
    ],
)
def test_gradio_s_own_words_follow_the_language_chosen(open_at, browser, label, key, hints):
    # The upload hints and the footer are Gradio's own words, not the catalog's; an upload
    # drawn before the change, in the browser's language, follows too.
    page = open_at(DESKTOP, browser)
    other = "en" if key == "zh" else "zh"
    page.get_by_role("tab", name=TEXT[other]["tab_scenarios"], exact=True).click()
    upload = page.locator("#scenario-files")
    expect(upload).to_be_visible()
    choose(page, label)
    for hint in hints[:3]:
        expect(upload).to_contain_text(hint)
    expect(page.locator("footer")).to_contain_text(hints[3])
