"""The page's language: it starts as the browser's, and the Language setting changes it.

Gradio's I18n already shows the page text in the browser's language; the session's language
(the trace labels, the status line, the toasts, the example set) is set from the same browser
when the page loads, so the two agree until the person picks another in Settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from .labels import browser_language, language_key
from .page.state import PageState

LANGUAGES = ("en", "zh")

# Gradio writes these accessible names in English whatever the page's language; a Chinese page
# names them in Chinese. The input's own name is its placeholder, which I18n already translates.
ARIA_ZH = {
    "Multimedia input field": "输入问题或附上图片",
    "Click to upload or drop files": "点击上传或拖入文件",
    "File upload": "文件上传",
    "Upload a file": "上传图片",
    "Submit": "发送",
    "Stop": "停止",
    "Uploaded files": "已附上的图片",
    "File thumbnail": "图片缩略图",
    "Remove file": "移除图片",
    "Uploading": "正在上传",
    "chatbot conversation": "对话内容",
    "Copy conversation": "复制对话",
    "Reset to default value": "恢复默认值",
    "Gradio footer navigation": "Gradio 页脚导航",
    "logo": "标志",
    "Clear": "清空对话",
    "Close": "关闭",
    "Copy message": "复制消息",
    "More tabs": "更多标签页",
    "Stop Recording": "停止录制",
    "Fullscreen": "全屏",
    "Exit fullscreen mode": "退出全屏",
}
# Gradio's footer words, as Gradio itself writes them for a Chinese browser; a page switched
# to the other language in Settings gets them too.
FOOTER_ZH = {"Use via API": "通过 API 使用", "Built with Gradio": "使用 Gradio 构建"}
# An upload's hint, as Gradio writes it for a Chinese browser: Gradio draws it once, in the
# language of the moment, so one drawn before a switch (or while Gradio still fetched the
# other language's words) would keep the old words.
UPLOAD_ZH = {
    "Drop File Here": "将文件拖放到此处",
    "Drop Image Here": "将图像拖放到此处",
    "- or -": "- 或 -",
    "Click to Upload": "点击上传",
}
# Names Gradio makes from a label: "range slider for 温度" becomes "温度（滑块）".
ARIA_PREFIXES_ZH = {
    "range slider for ": "{}（滑块）",
    "number input for ": "{}（数值输入）",
    "user's message: ": "用户的消息：{}",
    "bot's message: ": "助手的消息：{}",
}


def example_visibility(language: str) -> list[Any]:
    """Updates that show the example set of `language` and hide the others, in LANGUAGES order."""
    shown = language_key(language)
    return [gr.Dataset(visible=key == shown) for key in LANGUAGES]


def on_page_load(
    new_state: Callable[[Any], PageState], shown: str
) -> Callable[[PageState | None, gr.Request], tuple]:
    """The handler that starts a session in its browser's language: it sets the session's
    language, the Language setting and the example set. The page is built in the language
    `shown`; a browser in that language gets no update, so nothing on its page moves."""

    def handler(state: PageState | None, request: gr.Request) -> tuple:
        state = state or new_state(request)
        headers = getattr(request, "headers", None) or {}
        language = browser_language(headers.get("accept-language")) or state.prefs.language
        state.prefs.language = language_key(language)
        if state.prefs.language == language_key(shown):
            return (state, *[gr.skip()] * (1 + len(LANGUAGES)))
        return (state, state.prefs.language, *example_visibility(state.prefs.language))

    return handler


def aria_settings(title: str) -> dict:
    """The settings of `assets/page/aria.js`, which, on a Chinese page, gives the tab its
    Chinese `title` and Gradio's English accessible names their Chinese words, including those
    of parts shown later (the settings, an upload's thumbnail): at most once a frame while the
    page changes. The page is Chinese when the browser is, until Language in Settings says
    otherwise (the event `page-language`, from `assets/page/language.js`); back in English, the
    names it gave become English again."""
    footer = {**FOOTER_ZH, **UPLOAD_ZH}
    return {"words": ARIA_ZH, "prefixes": ARIA_PREFIXES_ZH, "footer": footer, "title": title}
