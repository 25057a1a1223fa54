"""The page in the reader's language: the session starts in its browser's language, and the
trace labels, the status line, the examples and the toasts follow the session's language."""

from __future__ import annotations

import re
from types import SimpleNamespace

import gradio as gr
import pytest

from agent.config import Settings
from agent.events import (
    AskUserEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepRetryEvent,
    TaskStateEvent,
    ThoughtEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from agent.models import OfflineModel
from tools import default_tools
from ui.examples import EXAMPLE_SETS, EXAMPLES_DIR, example_values
from ui.handlers import PageHandlers
from ui.labels import LABELS, UI_TEXT, browser_language, stats_text
from ui.language import LANGUAGES, on_page_load
from ui.page.values import status_text
from ui.trace.view import TurnView

CJK = re.compile(r"[\u3400-\u9fff]")


pytestmark = pytest.mark.usefixtures("no_model_env")


def keys(table: dict, prefix: str = "") -> set[str]:
    found = set()
    for key, value in table.items():
        found.add(prefix + key)
        if isinstance(value, dict):
            found |= keys(value, f"{prefix}{key}.")
    return found


def test_every_label_and_page_text_has_both_languages():
    assert keys(LABELS["zh"]) == keys(LABELS["en"])
    assert keys(UI_TEXT["zh"]) == keys(UI_TEXT["en"])
    for table in (LABELS["zh"], UI_TEXT["zh"]):
        for key in keys(table):
            value = table
            for part in key.split("."):
                value = value[part]
            # Names and marks stay as they are; every other label is written in Chinese.
            if isinstance(value, str) and key not in ("style_react", "named", "field", "aside"):
                assert CJK.search(value), key


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("zh-TW", "zh"),
        ("zh-HK;q=0.8, fr;q=0.5", "zh"),
        ("en-US,en;q=0.9", "en"),
        ("fr-FR,fr;q=0.9,zh;q=0.5", "en"),  # the page text falls back to English, and so do we
        ("en;q=0.2, zh-CN;q=0.9", "zh"),
        ("", None),
        (None, None),
    ],
)
def test_the_browser_language_is_the_one_it_prefers(header, language):
    assert browser_language(header) == language


def load(page: PageHandlers, header: str | None, state=None) -> tuple:
    headers = {"accept-language": header} if header is not None else {}
    handler = on_page_load(page.new_state, page.prefs0.language)
    return handler(state, SimpleNamespace(headers=headers))


def test_a_page_load_starts_the_session_in_the_browser_language():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [])
    state, setting, *sets = load(page, "zh-CN,zh;q=0.9")
    assert state.prefs.language == "zh" and setting == "zh"
    assert [s.visible for s in sets] == [key == "zh" for key in LANGUAGES]
    # The page is built in English: an English browser's page is left as it is.
    state, *updates = load(page, "en-GB", state)
    assert state.prefs.language == "en" and updates == [gr.skip()] * 3
    # A server whose default is Chinese shows an English browser the English set.
    zh_server = PageHandlers(lambda prefs: OfflineModel(), Settings(language="zh"), [])
    state, setting, *sets = load(zh_server, "en-US")
    assert setting == "en" and [s.visible for s in sets] == [True, False]
    # A client that names no language keeps the server's default.
    assert load(zh_server, None)[0].prefs.language == "zh"


def test_trace_labels_follow_the_session_language():
    view = TurnView(1, "zh", "把5英里换算成公里")
    for event in (
        RunStartedEvent(run_id="r", model="offline demo model", offline=True),
        TaskStateEvent(tool="convert_units", known={"value": 5}, missing=["to_unit"]),
        ThoughtEvent(step=1, text="…"),
        StepRetryEvent(step=1, reason="…"),
        ToolCallEvent(step=1, call_id="c", tool="convert_units", arguments={"value": 5}),
        ToolResultEvent(
            step=1, call_id="c", tool="convert_units", ok=True, text="5 英里", duration=0.1
        ),
        AskUserEvent(question="要换算成什么单位？"),
        RunFinishedEvent(
            status="asked", model="offline demo model", model_calls=2, steps=1, duration=0.4
        ),
    ):
        view.apply(event)
    titles = [m["metadata"]["title"] for m in view.messages]
    assert titles[0] == "第 1 轮：把5英里换算成公里"
    assert {"任务：convert_units", "思考 1", "重试（思考 1）", "工具：convert_units"} <= set(titles)
    content = "\n".join(str(m["content"]) for m in view.messages)
    for words in ("**模型**：离线演示模型", "**已知**：value = 5", "**缺少**：to_unit"):
        assert words in content
    assert "**参数**" in content and "**结果**" in content
    assert view.stats_line == "离线演示模型 · ReAct 文本 · 1 次工具调用 · 2 次模型调用 · 0.4 秒"
    assert view.messages[0]["metadata"]["log"] == "2 次模型调用 · 0.4 秒"
    english = re.compile(r"Turn|Model|Thought|Tool|Arguments|Result|Task|Known|Missing|call")
    assert not english.search(content + "".join(titles) + view.stats_line)


def test_the_status_line_and_working_follow_the_session_language():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [])
    state, *_ = load(page, "zh-CN")
    assert status_text(state) == ""
    state.turns.append(SimpleNamespace(view=TurnView(1, "zh")))
    assert status_text(state) == "处理中…"
    state.turns[-1].view.apply(RunStartedEvent(run_id="r", model="gpt-x"))
    assert status_text(state) == "处理中… · gpt-x"
    assert stats_text(1, 2.0, "en") == "1 model call · 2.0 s"


async def test_a_chinese_session_refuses_in_chinese():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [])
    state, *_ = load(page, "zh-CN")
    with pytest.raises(gr.Error, match="请先输入问题或附上图片"):
        async for _ in page.chat({"text": "   ", "files": []}, state):
            pass


def test_each_language_has_its_own_examples():
    assert len(EXAMPLE_SETS["zh"]) == len(EXAMPLE_SETS["en"])
    for label, value in EXAMPLE_SETS["zh"]:
        assert CJK.search(label) and CJK.search(value["text"])
    for label, value in EXAMPLE_SETS["en"]:
        assert not CJK.search(label + value["text"])
    for language in LANGUAGES:
        for (example,) in example_values(language):
            assert all(path.startswith(str(EXAMPLES_DIR)) for path in example["files"])


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.mark.parametrize(("label", "value"), EXAMPLE_SETS["zh"])
async def test_every_chinese_example_is_answered_in_chinese(tools, label, value):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), tools)
    state, *_ = load(page, "zh-CN")
    (example,) = example_values("zh")[EXAMPLE_SETS["zh"].index((label, value))]
    *_, (chat, _, _, status) = [update async for update in page.run_example(example, state)]
    answer = chat[-1]["content"]
    # A tool's image follows the words, captioned with its id.
    answer = answer[0] if isinstance(answer, list) else answer
    # An equation has no words to translate; every other answer is in Chinese.
    assert CJK.search(answer) or re.fullmatch(r"[\d\s.*+%=-]+", answer), answer
    assert not re.search(r"\b(?:In|it is|Text found|Zoomed|Found)\b", answer), answer
    assert "次模型调用" in status


async def test_a_language_change_says_the_conversation_and_every_part_again():
    from ui.page.words import PageWords, relabel_handler

    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), default_tools())
    state = page.new_state()
    async for _ in page.chat({"text": "convert 5 miles"}, state):
        pass
    assert state.turns[0].view.messages[0]["metadata"]["title"].startswith("Turn 1")
    words = PageWords()
    button, radio = gr.Button("Stop"), gr.Radio([("Low", "low")])
    words.add(button, value="stop")
    words.add(radio, label="detail", choices=lambda language: [("低", "low")])
    chat, trace, same, status, *updates = relabel_handler(page, words)("zh", state)
    assert same is state and state.prefs.language == "zh"
    assert trace[0]["metadata"]["title"].startswith("第 1 轮") and "次模型调用" in status
    assert chat[0]["content"] == ["convert 5 miles"]  # the person's words stay as written
    assert updates[0]["value"] == "停止"
    assert updates[1]["label"] == "图片细节" and updates[1]["choices"] == [("低", "low")]


@pytest.mark.parametrize(("locale", "said"), [("en", "Done"), ("zh-CN", "完成")])
def test_gradio_s_end_of_run_word_is_ours_in_each_language(locale, said):
    # Gradio's status tracker announces the key `common.complete`, which its tables lack.
    from ui.layout import I18N

    assert I18N.translations_dict[locale]["common.complete"] == said
