"""The web page: the agent in front of people. `python app.py` serves it.

This module is the page's layout and wiring only. What its inputs and buttons do is
`ui.handlers.PageHandlers`; each browser session's state is `ui.page_state.PageState`; events
become chat and trace values in `ui.trace_view`. The API endpoint `/chat` takes
`{"text": ..., "files": [...]}`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr

from agent.config import (
    DEFAULT_OPENAI_MODEL,
    HF_ROUTER_URL,
    ModelNotConfigured,
    Settings,
    server_key,
)
from ui.a11y import a11y_script
from ui.access import shown_url
from ui.examples import EXAMPLES, EXAMPLES_DIR, example_labels, example_values
from ui.handlers import PageHandlers
from ui.labels import UI_TEXT
from ui.language import LANGUAGES, aria_script, example_visibility, on_page_load
from ui.page_state import PageState, Prefs, default_model, default_prefs, sessions_root
from ui.script_api import add_script_endpoints
from ui.server import Page

# What tests and benchmarks use of the page; some of it is defined elsewhere and named here.
__all__ = [
    "EXAMPLES",
    "HF_ROUTER_URL",
    "ModelNotConfigured",
    "PageState",
    "Prefs",
    "Settings",
    "build_demo",
    "default_model",
    "default_prefs",
    "example_values",
    "launch_options",
    "main",
    "server_key",
    "sessions_root",
    "warm_up",
]

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent
ASSETS = ROOT / "assets"

# The page follows the browser's language; zh-CN and zh-TW browsers both get Chinese.
I18N = gr.I18n(**UI_TEXT, **{"zh-CN": UI_TEXT["zh"], "zh-TW": UI_TEXT["zh"]})
# Turns mostly wait on their model: many sessions may wait at once (Gradio's default is 1).
TURNS_AT_ONCE = 64


def build_demo(
    model_factory: Callable[[Prefs], Any] | None = None,
    env: Settings | None = None,
    tools: list[Any] | None = None,
) -> gr.Blocks:
    """The page. `model_factory(prefs)` picks the model for a turn (tests inject scripted ones)."""
    page = PageHandlers(model_factory, env, tools)
    prefs0 = page.prefs0

    with Page(page.env, title="Multimodal ReAct agent", fill_width=True) as demo:
        state = gr.State(None, delete_callback=lambda s: s.close() if s else None)
        demo.conversation_state = state
        gr.Markdown(I18N("header"), elem_id="header")
        banner = gr.Markdown(
            I18N("banner_offline"), elem_id="banner", visible=prefs0.source == "offline"
        )
        with gr.Row(equal_height=False):
            with gr.Column(scale=3, min_width=360):
                chatbot = gr.Chatbot(
                    elem_id="chat",
                    label=I18N("chat_label"),
                    height=560,
                    layout="bubble",
                    buttons=["copy"],
                    placeholder=I18N("chat_placeholder"),
                    feedback_options=None,
                )
                box = ImageTextbox(
                    elem_id="input",
                    file_types=["image"],
                    file_count="multiple",
                    sources=["upload"],
                    placeholder=I18N("input_placeholder"),
                    show_label=False,
                    stop_btn=False,  # shown while a turn runs
                    autofocus=True,
                )
                with gr.Row(elem_id="controls"):
                    stop_btn = gr.Button(I18N("stop"), elem_id="stop", variant="stop", size="sm")
                    retry_btn = gr.Button(I18N("retry"), elem_id="retry", size="sm")
                    clear_btn = gr.Button(I18N("clear"), elem_id="clear", size="sm")
                    download = gr.DownloadButton(
                        I18N("download"), elem_id="download", interactive=False, size="sm"
                    )
                examples = _examples(box, prefs0.language)
            with gr.Column(scale=2, min_width=320):
                status = gr.Markdown(elem_id="run-status")
                trace = gr.Chatbot(
                    elem_id="trace",
                    label=I18N("trace_label"),
                    height=640,
                    placeholder=I18N("trace_placeholder"),
                    feedback_options=None,
                    buttons=["copy_all"],
                    group_consecutive_messages=False,
                )
        settings = _settings_panel(prefs0)

        outputs = [chatbot, trace, state, status]
        turn = {"outputs": outputs, "concurrency_limit": TURNS_AT_ONCE, "show_progress": "hidden"}
        quiet = {"api_visibility": "private", "show_progress": "hidden"}
        # The page sends a turn in two steps, as Gradio's ChatInterface does: take the message
        # out of the input (which then empties at once), then run the turn from the copy. An
        # input that is still the input of a running event would keep its text until the end.
        # While a turn runs, a message is not taken: it stays in the input, and a toast says
        # why (from an event of its own, as the turn's next step is still pending).
        taken = gr.State(None)
        take = {"fn": page.take_message, "inputs": [box, state], "outputs": [box, taken]}
        tell = {"fn": page.tell_held, "inputs": [taken, state], "outputs": None, **quiet}
        took = box.submit(**take, queue=False, **quiet)
        took.then(**tell)
        submitted = took.then(
            page.send, [taken, state], api_name="send", api_visibility="private", **turn
        )
        from_examples = []
        for example_set in examples:
            took = example_set.load_input_event.then(**take, queue=False, **quiet)
            took.then(**tell)
            from_examples.append(
                took.then(page.run_example, [taken, state], api_visibility="private", **turn)
            )
        # Scripted QA calls `/chat` with the message itself; it runs the same turn.
        api_trigger = gr.Button(visible=False, elem_id="api-chat")
        from_api = api_trigger.click(page.chat, [box, state], api_name="chat", **turn)
        retried = retry_btn.click(page.stop_square, gr.State(True), box, queue=False, **quiet).then(
            page.retry, [state], api_visibility="private", **turn
        )
        running = [submitted, *from_examples, retried, from_api]
        # Scripts get `/ask` (the same turn, as named JSON) and `/reset`: ui.script_api.
        running.append(add_script_endpoints(page, box, state, cancels=running))
        ended = {"fn": page.turn_ended, "inputs": [state], "outputs": [download, box]}
        for event in running:
            event.then(**ended, queue=False, **quiet)
        for trigger in (stop_btn.click, box.stop):
            trigger(
                page.stop, [state], [*outputs, download], cancels=running, queue=False, **quiet
            ).then(page.stopped, [state], [download, box], queue=False, **quiet)
        clear_btn.click(page.clear, [state], [*outputs, box, download], cancels=running, **quiet)
        for name, component in settings.items():
            component.change(
                page.set_pref(name),
                [component, state],
                [state, banner],
                api_visibility="private",
                show_progress="hidden",
                queue=False,
            )
        # The session starts in its browser's language; the example set follows the language.
        example_sets = [example_set.dataset for example_set in examples]
        language = settings["language"]
        load = on_page_load(page.new_state, prefs0.language)
        demo.load(load, [state], [state, language, *example_sets], queue=False, **quiet)
        language.change(example_visibility, [language], example_sets, queue=False, **quiet)
        demo.load(None, js=aria_script(UI_TEXT["zh"]["title"]))
        demo.load(None, js=a11y_script())
        if page.env.mcp_server:
            from ui.mcp_endpoints import add_mcp_endpoints

            add_mcp_endpoints(demo, page)  # the tools and ask_agent, for MCP clients
    demo.queue(default_concurrency_limit=TURNS_AT_ONCE)
    return demo


def _examples(box: Any, language: str) -> list[gr.Examples]:
    """One example set per language, in LANGUAGES order; the page shows the one of its
    language. All are inside the element `examples`."""
    with gr.Column(elem_id="examples"):
        return [
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


def _settings_panel(prefs0: Prefs) -> dict[str, Any]:
    """The Settings accordion; its fields by the name of the `Prefs` field each one sets."""
    with gr.Accordion(I18N("settings"), open=False, elem_id="settings"):
        with gr.Row():
            source = gr.Radio(
                [(I18N("source_offline"), "offline"), (I18N("source_openai"), "openai")],
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
        with gr.Row():
            temperature = gr.Slider(
                0, 2, value=prefs0.temperature, step=0.1, label=I18N("temperature")
            )
            max_steps = gr.Slider(1, 50, value=prefs0.max_steps, step=1, label=I18N("steps"))
            detail = gr.Radio(
                [(I18N(f"detail_{level}"), level) for level in ("auto", "low", "high")],
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
                [(I18N("style_react"), "react"), (I18N("style_plugin"), "plugin-task")],
                value=prefs0.style,
                label=I18N("style"),
                elem_id="style",
            )
    return {
        "source": source,
        "base_url": base_url,
        "model": model_name,
        "api_key": api_key,
        "temperature": temperature,
        "max_steps": max_steps,
        "image_detail": detail,
        "language": language,
        "style": style,
    }


class ImageTextbox(gr.MultimodalTextbox):
    """The multimodal textbox, with uploads checked by `agent.images` instead of by file type.

    The browser's picker still offers images only; a file that is not one reaches the handler,
    which says in one sentence why it was refused and keeps the rest of the turn.
    """

    is_template = True

    def preprocess(self, payload: Any) -> Any:
        if payload is None:
            return None
        return {"text": payload.text, "files": [f.path for f in payload.files]}


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
THEME = gr.themes.Soft(
    primary_hue="indigo",
    neutral_hue="slate",
    font=_FONTS,
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"],
)


def launch_options(env: Settings | None = None) -> dict[str, Any]:
    """The launch arguments the page needs wherever it runs (tests use the same)."""
    env = env or Settings()
    return {
        "max_file_size": int(env.max_upload_mb * 1024 * 1024),
        # What the page shows and nothing else of assets/: the plugin manifests, the page text
        # and the scripts stay private. The CSS is read once at launch and needs no route.
        "allowed_paths": [str(EXAMPLES_DIR), str(sessions_root())],
        "i18n": I18N,
        "theme": THEME,
        "css_paths": [str(ASSETS / "style.css")],
        "footer_links": ["api", "gradio"],
        "mcp_server": env.mcp_server,
    }


def warm_up(tools: list[Any]) -> None:
    """Load the tools' slow parts (the OCR models) before the first person needs them."""
    for tool in tools:
        try:
            tool.warm_up()
        except Exception:
            log.warning("warming up %s failed; it will load on first use", tool.name, exc_info=True)


def main() -> None:
    env = Settings()
    logging.basicConfig(level=env.log_level)
    from tools import default_tools

    tools = default_tools(env.tool_settings())
    threading.Thread(target=warm_up, args=(tools,), name="warm-up", daemon=True).start()
    demo = build_demo(env=env, tools=tools)
    demo.launch(server_name=env.server_name, server_port=env.server_port, **launch_options(env))


if __name__ == "__main__":
    main()
