"""The page's parts: the chat tab (conversation, input, controls, examples, trace), the Settings
panel, the multimodal input, the theme and the page's text in both languages. `app.build_demo`
puts them together and wires them to `ui.handlers`."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any

import gradio as gr
from gradio import themes
from gradio.data_classes import ListFiles
from gradio.helpers import Examples

from agent.config import DEFAULT_OPENAI_MODEL

from . import approval_panel
from .access import shown_url
from .conversations.panel import history_parts, new_button, undo_clear_parts
from .examples import example_labels, example_values
from .labels import UI_TEXT, language_key
from .language import LANGUAGES
from .page.state import Prefs
from .page.words import PageWords, choices
from .saved_scenarios import panel as saved_scenarios

# The page follows the browser's language; zh-CN and zh-TW browsers both get Chinese.
# Gradio's status tracker tells a screen reader `common.complete` when a run that shows its
# progress ends, a key Gradio 6.31's own word tables lack, so it was read out as written.
_TEXT = {k: {**words, "common.complete": words["gradio_complete"]} for k, words in UI_TEXT.items()}
I18N = gr.I18n(**_TEXT, **{"zh-CN": _TEXT["zh"], "zh-TW": _TEXT["zh"]})


def text_of(key: str) -> Any:
    """`I18N(key)` where a Gradio signature says str: Gradio takes its I18nData wherever it
    takes text, though Chatbot's and MultimodalTextbox's placeholder and DownloadButton's
    label are declared as str only."""
    return I18N(key)


def chat_tab(prefs0: Prefs, words: PageWords) -> SimpleNamespace:
    """The conversation and its trace, side by side (stacked on a narrow screen), with the
    past conversations (`ui.conversations.panel`) under the examples. Each part with words is added
    to `words`, which gives them again when the language changes."""
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=360):
            chatbot = gr.Chatbot(
                elem_id="chat",
                label=I18N("chat_label"),
                height=560,
                layout="bubble",
                buttons=["copy"],
                placeholder=text_of("chat_placeholder"),
                feedback_options=None,
            )
            approval = approval_panel.build(I18N, words)  # shown when a call waits for approval
            box = ImageTextbox(
                elem_id="input",
                file_types=["image", ".pdf"],
                file_count="multiple",
                sources=["upload"],
                placeholder=text_of("input_placeholder"),
                label=I18N("input_label"),  # hidden; without it Gradio names it by its class
                show_label=False,
                stop_btn=False,  # shown while a turn runs
                autofocus=True,
            )
            with gr.Row(elem_id="controls"):
                stop_btn = gr.Button(I18N("stop"), elem_id="stop", variant="stop", size="sm")
                retry_btn = gr.Button(I18N("retry"), elem_id="retry", size="sm")
                clear_btn = gr.Button(I18N("clear"), elem_id="clear", size="sm")
                new_btn = new_button(I18N)
                download = gr.DownloadButton(
                    text_of("download"), elem_id="download", interactive=False, size="sm"
                )
                save_btn = gr.Button(I18N("save_scenario"), elem_id="save-scenario", size="sm")
                # Narrow screens only (style.css): the trace is stacked far below the chat.
                to_trace = gr.Button(I18N("to_trace"), elem_id="to-trace", size="sm")
            undo_clear = undo_clear_parts(I18N, words)  # shown for a few seconds after Clear
            saving = saved_scenarios.build(I18N, words)  # shown by Save as scenario
            # An example goes to the chat by way of a hidden input of its own: what the
            # person typed or attached in the real one stays there.
            example_box = ImageTextbox(
                visible=False, elem_id="example-box", file_count="multiple", sources=["upload"]
            )
            examples = _examples(example_box, prefs0.language, words)
            history = history_parts(I18N, words)
        with gr.Column(scale=2, min_width=320, elem_id="trace-column"):
            to_chat = gr.Button(I18N("to_chat"), elem_id="to-chat", size="sm")
            status = gr.Markdown(elem_id="run-status")
            trace = gr.Chatbot(
                elem_id="trace",
                label=I18N("trace_label"),
                height=640,
                placeholder=text_of("trace_placeholder"),
                feedback_options=None,
                buttons=["copy_all"],
                group_consecutive_messages=False,
            )
    words.add(chatbot, label="chat_label", placeholder="chat_placeholder")
    words.add(box, placeholder="input_placeholder", label="input_label")
    for button, key in [
        (stop_btn, "stop"),
        (retry_btn, "retry"),
        (clear_btn, "clear"),
        (save_btn, "save_scenario"),
        (to_trace, "to_trace"),
        (to_chat, "to_chat"),
    ]:
        words.add(button, value=key)
    words.add(download, label="download")  # a download button's value is its file
    words.add(trace, label="trace_label", placeholder="trace_placeholder")
    return SimpleNamespace(
        chatbot=chatbot,
        box=box,
        example_box=example_box,
        stop_btn=stop_btn,
        retry_btn=retry_btn,
        clear_btn=clear_btn,
        new_btn=new_btn,
        download=download,
        save_btn=save_btn,
        saving=saving,
        examples=examples,
        status=status,
        trace=trace,
        **vars(history),
        **vars(undo_clear),
        approval=approval,
        to_trace=to_trace,
        to_chat=to_chat,
    )


def _examples(box: Any, language: str, words: PageWords) -> list[Examples]:
    """One example set per language, in LANGUAGES order; the page shows the one of its
    language. All are inside the element `examples`."""
    with gr.Column(elem_id="examples"):
        sets = [
            gr.Examples(
                examples=example_values(key),
                example_labels=example_labels(key),
                inputs=[box],
                label=I18N("examples"),
                cache_examples=False,
                api_visibility="private",
                elem_id=f"examples-{key}",
                examples_per_page=len(example_labels(key)),
                visible=key == language,
            )
            for key in LANGUAGES
        ]
    for key, example_set in zip(LANGUAGES, sets, strict=True):
        shown = key  # bound now: each set is shown in its own language only
        words.add(
            example_set.dataset,
            label="examples",
            visible=lambda language, shown=shown: language_key(language) == shown,
        )
    return sets


def settings_panel(prefs0: Prefs, words: PageWords) -> tuple[dict[str, Any], gr.Markdown]:
    """The Settings accordion: its fields by the name of the `Prefs` field each one sets,
    and the line under the fields that says what is wrong with them."""
    with gr.Accordion(I18N("settings"), open=False, elem_id="settings") as accordion:
        with gr.Row():
            source = gr.Radio(
                [(I18N(key), value) for key, value in _SOURCES],
                value=prefs0.source,
                label=I18N("source"),
                elem_id="source",
            )
            base_url = gr.Textbox(
                # Credentials in the configured URL stay on the server, which still uses them.
                shown_url(prefs0.base_url),
                label=I18N("base_url"),
                placeholder="https://api.openai.com/v1",
                elem_id="base-url",
            )
            model_name = gr.Textbox(
                prefs0.model,
                label=I18N("model_name"),
                placeholder=DEFAULT_OPENAI_MODEL,
                elem_id="model-name",
            )
            api_key = gr.Textbox(
                "",
                type="password",
                label=I18N("api_key"),
                info=I18N("api_key_info"),
                elem_id="api-key",
            )
        notice = gr.Markdown(visible=False, elem_id="settings-notice")
        with gr.Row():
            temperature = gr.Slider(
                0, 2, value=prefs0.temperature, step=0.1, label=I18N("temperature")
            )
            max_steps = gr.Slider(1, 50, value=prefs0.max_steps, step=1, label=I18N("steps"))
            detail = gr.Radio(
                [(I18N(key), value) for key, value in _DETAILS],
                value=prefs0.image_detail,
                label=I18N("detail"),
            )
            language = gr.Radio(
                [("English", "en"), ("中文", "zh")],
                value=prefs0.language,
                label=I18N("language"),
                elem_id="language",
            )
            style = gr.Radio(
                [(I18N(key), value) for key, value in _STYLES],
                value=prefs0.style,
                label=I18N("style"),
                elem_id="style",
            )
            protocol = gr.Radio(
                [(I18N(key), value) for key, value in _PROTOCOLS],
                value=prefs0.tool_protocol,
                label=I18N("protocol"),
                elem_id="protocol",
            )
            vision = gr.Radio(
                [(I18N(key), value) for key, value in _VISION],
                value=prefs0.vision,
                label=I18N("vision"),
                info=I18N("vision_info"),
                elem_id="vision",
            )
    words.add(accordion, label="settings")
    words.add(source, label="source", choices=choices(*_SOURCES))
    words.add(base_url, label="base_url")
    words.add(model_name, label="model_name")
    words.add(api_key, label="api_key", info="api_key_info")
    words.add(temperature, label="temperature")
    words.add(max_steps, label="steps")
    words.add(detail, label="detail", choices=choices(*_DETAILS))
    words.add(language, label="language")
    words.add(style, label="style", choices=choices(*_STYLES))
    words.add(protocol, label="protocol", choices=choices(*_PROTOCOLS))
    words.add(vision, label="vision", info="vision_info", choices=choices(*_VISION))
    fields = {
        "source": source,
        "base_url": base_url,
        "model": model_name,
        "api_key": api_key,
        "temperature": temperature,
        "max_steps": max_steps,
        "image_detail": detail,
        "language": language,
        "style": style,
        "tool_protocol": protocol,
        "vision": vision,
    }
    return fields, notice


_SOURCES = [("source_offline", "offline"), ("source_openai", "openai")]
_DETAILS = [(f"detail_{level}", level) for level in ("auto", "low", "high")]
_STYLES = [("style_react", "react"), ("style_plugin", "plugin-task")]
_PROTOCOLS = [(f"protocol_{name}", name) for name in ("auto", "react", "native")]
_VISION = [(f"vision_{mode}", mode) for mode in ("auto", "on", "off")]


class ImageTextbox(gr.MultimodalTextbox):
    """The multimodal textbox, with uploads checked by `agent.images.store` instead of by file type.

    The browser's picker still offers images only; a file that is not one reaches the handler,
    which says in one sentence why it was refused and keeps the rest of the turn.
    """

    is_template = True

    def preprocess(self, payload: Any) -> Any:
        if payload is None:
            return None
        return {"text": payload.text, "files": [f.path for f in payload.files]}


class ScenarioFiles(gr.File):
    """The Scenarios tab's file input, each upload's path keeping the name the person's
    browser gave it (`orig_name`): the server stores it under a name of its own making, with
    some characters left out, and the results name the file as the person knows it."""

    is_template = True

    def preprocess(self, payload: Any) -> Any:
        paths = super().preprocess(payload)
        given = list(payload) if isinstance(payload, ListFiles) else [payload]
        for path, data in zip(paths if isinstance(paths, list) else [], given, strict=False):
            if isinstance(path, str):
                with contextlib.suppress(AttributeError):
                    setattr(path, "orig_name", getattr(data, "orig_name", None))  # noqa: B010
        return paths


# Local fonts only: the page needs nothing from a font service, and Chinese text always has a face.
_FONTS = [
    "system-ui",
    "Segoe UI",
    "Roboto",
    "Helvetica Neue",
    "Arial",
    "Noto Sans CJK SC",
    "PingFang SC",
    "Microsoft YaHei",
    "WenQuanYi Micro Hei",
    "sans-serif",
]
THEME = themes.Soft(
    primary_hue="indigo",
    neutral_hue="slate",
    font=_FONTS,
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"],
)
