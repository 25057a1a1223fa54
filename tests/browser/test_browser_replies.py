"""What the conversation shows of a turn: thumbnails named by their ids, the images a tool
made inside the answer, an error that looks like one, one way of writing numbers, a Stop
button that looks like one, one message for unreadable files, and a Clear mid-turn without
error badges."""

from __future__ import annotations

import re

import pytest

from agent.models import OfflineModel, ScriptedModel
from agent.models.base import ModelError
from tests.support.page_driver import DESKTOP, EXAMPLES, PHONE, send, wait_done

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE])
def test_thumbnails_carry_their_ids_and_a_tools_image_is_in_the_answer(open_at, viewport):
    page = open_at(viewport)
    send(page, "Zoom into the bottom right corner", EXAMPLES / "label.png", EXAMPLES / "sign.png")
    wait_done(page)
    user = page.locator("#chat .user-row").last
    expect(user.locator("img")).to_have_count(2)
    expect(user.locator("code")).to_have_text(["img_1", "img_2"])
    # The zoom made img_3: it is in the answer bubble, named, not only in the trace.
    answer = page.locator("#chat .bot-row").last
    expect(answer).to_contain_text("Zoomed into")
    expect(answer.locator("img")).to_have_count(1)
    expect(answer.locator("code")).to_have_text(["img_3"])
    made = answer.locator("img")
    made.scroll_into_view_if_needed()
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=made.element_handle())


def test_an_error_reply_looks_like_an_error(open_at, page_model):
    page_model["factory"] = lambda: ScriptedModel([ModelError("The model service is down.")])
    page = open_at()
    send(page, "hello")
    error = page.locator("#chat .bot-row .reply-error")
    expect(error).to_contain_text("The model service is down.")
    expect(error.locator("strong")).to_have_text("Error")
    colour = error.evaluate("el => getComputedStyle(el).borderLeftColor")
    assert colour == "rgb(185, 28, 28)"
    # An ordinary answer has no such look.
    page_model["factory"] = lambda: OfflineModel()
    send(page, "what is 2+2")
    expect(page.locator("#chat .bot-row").last).to_contain_text("4")
    expect(page.locator("#chat .reply-error")).to_have_count(1)


LOOP = [
    f'Thought: again\nAction: calculator\nAction Input: {{"expression": "{i}+1"}}' for i in range(9)
]


@pytest.mark.parametrize(
    ("locale", "question", "said"),
    [
        ("zh-CN", "你好", ("模型服务正在限制请求频率", "7 秒")),
        ("en-US", "hello", ("limiting the rate of requests", "7 seconds")),
        ("en-US", "你好吗", ("模型服务正在限制请求频率", "7 秒")),
    ],
)
def test_the_agents_error_sentences_are_in_the_conversations_language(
    open_at, page_model, locale, question, said
):
    limited = ModelError.said("rate_limit_wait", "rate_limit", 429, wait=7)
    page_model["factory"] = lambda: ScriptedModel([limited])
    page = open_at(DESKTOP, locale)
    send(page, question)
    error = page.locator("#chat .bot-row .reply-error")
    for words in said:
        expect(error).to_contain_text(words, timeout=20_000)
    if locale == "zh-CN":
        # The step limit too, after a model that never answers.
        page_model["factory"] = lambda: ScriptedModel(list(LOOP))
        send(page, "一直算下去")
        expect(page.locator("#chat .bot-row .reply-error").last).to_contain_text(
            "次后仍没有答案", timeout=20_000
        )


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_numbers_are_written_one_way_and_nothing_has_a_stray_dot(open_at, locale):
    page = open_at(DESKTOP, locale)
    send(page, "what is 2+2")
    zh = locale.startswith("zh")
    wait_done(page, "次模型调用" if zh else "model call")
    status = page.locator("#run-status").inner_text().strip()
    if zh:
        assert re.fullmatch(
            r"离线演示模型 · ReAct 文本 · 1 次工具调用 · 2 次模型调用 · 约 [\d,]+ 个词元 · "
            r"\d+(\.\d)? (毫秒|秒)",
            status,
        )
    else:
        assert re.fullmatch(
            r"offline demo model · ReAct text · 1 tool call · 2 model calls · ≈[\d,]+ tokens · "
            r"\d+(\.\d)? m?s",
            status,
        )
    trace = page.locator("#trace").inner_text()
    assert "(s)" not in status + trace and not re.search(r"\d(ms|s)\b", trace)
    footer = page.locator("footer").inner_text().strip()
    assert not footer.endswith("·") and not footer.startswith("·"), footer
    assert "··" not in footer.replace(" ", "").replace("\n", "")


def test_the_stop_button_looks_like_a_stop_button(open_at):
    page = open_at()
    stop = page.locator("#stop")
    assert "stop" in stop.get_attribute("class")  # Gradio's stop variant
    square = stop.evaluate(
        "el => { const s = getComputedStyle(el, '::before');"
        " return [s.content, s.width, s.height, s.backgroundColor]; }"
    )
    assert square[0] == '""' and square[1] == square[2] and square[1] != "auto", square
    # Red only while a turn runs (tests/browser/test_stop_moments.py); idle, a quiet grey.
    background = stop.evaluate("el => getComputedStyle(el).backgroundColor")
    assert background == "rgb(248, 250, 252)", background


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_only_unreadable_files_give_one_message(open_at, tmp_path, locale):
    fake = tmp_path / "notes.png"
    fake.write_text("plain text renamed as a picture")
    page = open_at(DESKTOP, locale)
    page.set_input_files("#input input[type=file]", [str(fake)])
    page.wait_for_function("document.querySelectorAll('#input .thumbnail-item, #input img').length")
    page.press("#input textarea", "Enter")
    toasts = page.locator(".toast-body")
    expect(toasts).to_have_count(1)
    expect(toasts).to_contain_text("notes.png")
    page.wait_for_timeout(1000)
    expect(toasts).to_have_count(1)
    assert toasts.inner_text().count("notes.png") == 1
    said = "不是本应用能读取的图片" if locale.startswith("zh") else "not an image this app can read"
    expect(toasts).to_contain_text(said)
    expect(page.locator(".toast-body.error")).to_have_count(0)
    expect(page.locator(":is(#chat, #trace, #run-status) .error")).to_have_count(0)


def test_clear_during_a_turn_leaves_no_error_badges(open_at, page_model):
    slow = "Thought: " + "thinking slowly " * 200 + "\nAnswer: never"
    page_model["factory"] = lambda: ScriptedModel([slow], delay=0.1, chunk_size=4, name="slow")
    page = open_at()
    send(page, "take your time")
    page.locator("#trace").get_by_text("Thought 1").wait_for()
    page.click("#clear")
    expect(page.locator("#chat .user-row")).to_have_count(0)
    page.wait_for_timeout(1500)
    badges = page.locator(".error").evaluate_all(
        "els => els.map(e => (e.closest('[id]') || {}).id + ': ' + e.outerHTML.slice(0, 200))"
    )
    assert badges == []
    expect(page.locator(".toast-body")).to_have_count(0)
    expect(page.locator("#input button.stop-button")).to_be_hidden()
    # The page goes on.
    page_model["factory"] = lambda: OfflineModel()
    send(page, "what is 6*7")
    wait_done(page)
    expect(page.locator("#chat .bot-row").last).to_contain_text("42")


@pytest.mark.parametrize(
    ("locale", "said", "title"),
    [
        ("en-US", '"big.png": larger than 20 MB, the most one upload may be', "Error"),
        ("zh-CN", '"big.png"：超过单个上传文件的上限 20 MB', "错误"),
    ],
)
def test_an_upload_over_the_limit_is_told_in_the_pages_words(
    open_at, tmp_path, locale, said, title
):
    big = tmp_path / "big.png"
    big.write_bytes(b"\x89PNG" + bytes(21 * 1024 * 1024))
    page = open_at(DESKTOP, locale)
    page.set_input_files("#input input[type=file]", [str(big)])
    toast = page.locator(".toast-body")
    expect(toast).to_contain_text(said)
    expect(toast.locator(".toast-title")).to_have_text(title)
    assert "Mb" not in toast.inner_text()
    expect(page.locator("#input img")).to_have_count(0)


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "notes.txt: not an image, so it was not attached; only images can be sent."),
        ("zh-CN", "notes.txt：不是图片，未能附上；只能发送图片。"),
    ],
)
def test_a_file_that_is_no_image_is_told_in_the_pages_words(open_at, tmp_path, locale, said):
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list", encoding="utf-8")
    page = open_at(DESKTOP, locale)
    page.fill("#input textarea", "kept words")
    page.set_input_files("#input input[type=file]", [str(notes)])
    toast = page.locator(".toast-body")
    expect(toast).to_contain_text(said)
    assert "Invalid file type" not in toast.inner_text()
    expect(page.locator("#input textarea")).to_have_value("kept words")
