"""The web page: the agent in front of people. `python app.py` serves it.

It holds no agent logic. Each browser session gets its own `PageState` (conversation, images,
settings, turns); a turn runs `Agent.run` and turns its events into chat and trace updates
through `ui.trace_view`. The API endpoint `/chat` takes `{"text": ..., "files": [...]}`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
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
from agent.events import Notice
from agent.intake import message_problem, prepare_images
from agent.runner import Agent
from ui.labels import UI_TEXT, t
from ui.page_state import PageState, Prefs, TurnRecord, default_model, default_prefs, sessions_root
from ui.trace_view import TurnView, page_values

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
EXAMPLES_DIR = ASSETS / "examples"


# The page follows the browser's language; zh-CN and zh-TW browsers both get Chinese.
I18N = gr.I18n(**UI_TEXT, **{"zh-CN": UI_TEXT["zh"], "zh-TW": UI_TEXT["zh"]})


STREAM_INTERVAL = 0.05
TURNS_AT_ONCE = 64
_DELTAS = {"model_delta", "answer_delta", "tool_progress"}


def download_update(state: PageState | None) -> Any:
    trace_file = state.trace_file if state else None
    return gr.DownloadButton(value=trace_file, interactive=trace_file is not None)


# -- handlers -----------------------------------------------------------------------------------


async def accept_uploads(state: PageState, files: list[str]) -> tuple[list[Any], list[str]]:
    """Uploads the agent can use (prepared off the event loop, handed to the agent as they
    are), and one sentence for each it cannot; uploads keep their file name for that."""
    return await prepare_images(state.session.images, files, state.env.max_image_side)


def refusal(env: Settings, message: dict | None, language: str) -> str | None:
    """Why a message is refused as a whole before it is taken from the input, or None."""
    message = message or {}
    return message_problem(
        str(message.get("text") or ""),
        len(message.get("files") or []),
        max_chars=env.max_message_chars,
        max_images=env.max_images_per_message,
        language=language,
    )


def build_demo(
    model_factory: Callable[[Prefs], Any] | None = None,
    env: Settings | None = None,
    tools: list[Any] | None = None,
) -> gr.Blocks:
    """The page. `model_factory(prefs)` picks the model for a turn (tests inject scripted ones)."""
    env = env or Settings()
    if tools is None:
        from tools import default_tools

        tools = default_tools()
    prefs0 = default_prefs(env)
    make_model = model_factory or (lambda prefs: default_model(prefs, env))

    def new_state() -> PageState:
        return PageState(replace(prefs0), env)

    async def run_turn(state: PageState, text: str, files: list[Any]) -> AsyncIterator[tuple]:
        prefs = state.prefs
        problem = refusal(env, {"text": text, "files": files}, prefs.language)
        if problem:
            raise gr.Error(problem, print_exception=False)
        good, refused = await accept_uploads(state, files)
        for sentence in refused:
            gr.Warning(sentence)
        if not text.strip() and not good:
            if refused:
                raise gr.Error(" ".join(refused), print_exception=False)
            raise gr.Error(t("empty_input", prefs.language), print_exception=False)
        session = state.session
        record = TurnRecord(
            text=text,
            refs=good,
            view=TurnView(len(state.turns) + 1, prefs.language, text),
            task_before=session.task.model_copy(deep=True) if session.task else None,
            history_len=len(session.history),
        )
        for sentence in refused:
            notice = Notice(message=sentence)
            record.events.append(notice)
            record.view.apply(notice)
        state.turns.append(record)
        del state.turns[: -env.max_history_turns]
        yield page_values(state)
        try:
            # Injected factories (tests) give a fresh model per turn; ours is kept per session.
            model = state.model(make_model) if model_factory is None else make_model(prefs)
        except ModelNotConfigured as exc:
            gr.Warning(str(exc))
            state.turns.pop()
            yield page_values(state)
            return
        agent = Agent(
            model,
            tools,
            settings=env,
            language=prefs.language,
            style=prefs.style,
            max_steps=int(prefs.max_steps),
            temperature=float(prefs.temperature),
            image_detail=prefs.image_detail,
        )
        shown = 0.0
        async with contextlib.aclosing(agent.run(text, good, session)) as events:
            async for event in events:
                record.events.append(event)
                record.view.apply(event)
                now = time.monotonic()
                # Text deltas arrive faster than anyone reads; showing them at most every
                # STREAM_INTERVAL keeps the page fluid and the server free for other sessions.
                # Every other event is shown at once, and the next update carries what waited.
                if event.type in _DELTAS and now - shown < STREAM_INTERVAL:
                    continue
                if record.view.done:
                    state.write_trace(record)
                shown = now
                yield page_values(state)

    async def chat(message: dict | None, state: PageState | None) -> AsyncIterator[tuple]:
        state = state or new_state()
        message = message or {}
        text = str(message.get("text") or "")
        files = [_file_path(f) for f in message.get("files") or []]
        async for update in run_turn(state, text, files):
            yield update

    async def run_example(message: dict | None, state: PageState | None) -> AsyncIterator[tuple]:
        # An example is a new request, not the answer to a question the agent left open.
        state = state or new_state()
        state.session.task = None
        async for update in chat(message, state):
            yield update

    async def retry(state: PageState | None) -> AsyncIterator[tuple]:
        state = state or new_state()
        if not state.turns:
            yield page_values(state)
            return
        last = state.turns.pop()
        session = state.session
        session.task = last.task_before
        del session.history[last.history_len :]
        async for update in run_turn(state, last.text, last.refs):
            yield update

    def stop(state: PageState | None) -> tuple:
        state = state or new_state()
        if state.turns and not state.turns[-1].view.done:
            record = state.turns[-1]
            record.view.stop()
            # The cancelled turn left no history; its task starts over from before it.
            state.session.task = record.task_before
            state.write_trace(record)
        return (*page_values(state), download_update(state))

    def clear(state: PageState | None) -> tuple:
        state = state or new_state()
        state.reset()
        return (*page_values(state), None, download_update(state))

    def set_pref(name: str):
        def handler(value: Any, state: PageState | None) -> tuple:
            state = state or new_state()
            setattr(state.prefs, name, value if value is not None else getattr(prefs0, name))
            return state, banner_update(state.prefs)

        return handler

    def take_message(message: dict | None, state: PageState | None) -> tuple:
        """Move the typed message out of the input, so the input empties at once while the
        turn runs from the copy; if the turn cannot start, the words stay to send again."""
        if refusal(env, message, state.prefs.language if state else prefs0.language):
            return gr.skip(), message  # the turn says why; the words stay in the input
        try:
            if state is not None and model_factory is None:
                state.model(make_model)
            else:
                make_model(state.prefs if state else prefs0)
        except ModelNotConfigured:
            return gr.skip(), message
        return None, message

    def banner_update(prefs: Prefs):
        return gr.Markdown(visible=prefs.source == "offline")

    with gr.Blocks(title="Multimodal ReAct agent", fill_width=True) as demo:
        state = gr.State(None, delete_callback=lambda s: s.close() if s else None)
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
                    stop_btn=True,
                    autofocus=True,
                )
                with gr.Row(elem_id="controls"):
                    stop_btn = gr.Button(I18N("stop"), elem_id="stop", variant="stop", size="sm")
                    retry_btn = gr.Button(I18N("retry"), elem_id="retry", size="sm")
                    clear_btn = gr.Button(I18N("clear"), elem_id="clear", size="sm")
                    download = gr.DownloadButton(
                        I18N("download"), elem_id="download", interactive=False, size="sm"
                    )
                examples = gr.Examples(
                    examples=example_values(),
                    example_labels=[label for label, _ in EXAMPLES],
                    inputs=[box],
                    label=I18N("examples"),
                    cache_examples=False,
                    api_visibility="private",
                    elem_id="examples",
                    examples_per_page=len(EXAMPLES),
                )
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
        with gr.Accordion(I18N("settings"), open=False, elem_id="settings"):
            with gr.Row():
                source = gr.Radio(
                    [(I18N("source_offline"), "offline"), (I18N("source_openai"), "openai")],
                    value=prefs0.source,
                    label=I18N("source"),
                    elem_id="source",
                )
                base_url = gr.Textbox(
                    prefs0.base_url,
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
                    ["auto", "low", "high"], value=prefs0.image_detail, label=I18N("detail")
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

        outputs = [chatbot, trace, state, status]
        turn = {"outputs": outputs, "concurrency_limit": TURNS_AT_ONCE, "show_progress": "hidden"}
        quiet = {"api_visibility": "private", "show_progress": "hidden"}
        # The page sends a turn in two steps, as Gradio's ChatInterface does: take the message
        # out of the input (which then empties at once), then run the turn from the copy. An
        # input that is still the input of a running event would keep its text until the end.
        taken = gr.State(None)
        take = {"fn": take_message, "inputs": [box, state], "outputs": [box, taken]}
        submitted = box.submit(**take, queue=False, **quiet).then(
            chat, [taken, state], api_name="send", api_visibility="private", **turn
        )
        from_example = examples.load_input_event.then(**take, queue=False, **quiet).then(
            run_example, [taken, state], api_visibility="private", **turn
        )
        # Scripted QA calls `/chat` with the message itself; it runs the same turn.
        api_trigger = gr.Button(visible=False, elem_id="api-chat")
        from_api = api_trigger.click(chat, [box, state], api_name="chat", **turn)
        retried = retry_btn.click(retry, [state], api_visibility="private", **turn)
        running = [submitted, from_example, retried, from_api]
        for event in running:
            event.then(download_update, [state], download, queue=False, **quiet)
        for trigger in (stop_btn.click, box.stop):
            trigger(stop, [state], [*outputs, download], cancels=running, queue=False, **quiet)
        clear_btn.click(clear, [state], [*outputs, box, download], cancels=running, **quiet)
        settings = {
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
        for name, component in settings.items():
            component.change(
                set_pref(name),
                [component, state],
                [state, banner],
                api_visibility="private",
                show_progress="hidden",
                queue=False,
            )
    # Turns mostly wait on their model: many sessions may wait at once (Gradio's default is 1).
    demo.queue(default_concurrency_limit=TURNS_AT_ONCE)
    return demo


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


def _file_path(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("path") or item.get("name") or "")
    return str(item)


EXAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("Read the text on a sign", {"text": "What does this sign say?", "files": ["sign.png"]}),
    (
        "Zoom into small print, then read it",
        {
            "text": "Zoom into the bottom right corner and read the text there",
            "files": ["label.png"],
        },
    ),
    ("A calculation", {"text": "What is 12.5% of 2480 plus 37?", "files": []}),
    ("Convert 5 miles (asks for the unit)", {"text": "convert 5 miles", "files": []}),
    ("中文：北京现在几点？", {"text": "北京现在几点？", "files": []}),
    ("中文：现在几点了？（会追问城市）", {"text": "现在几点了？", "files": []}),
    ("A question no tool can answer", {"text": "Who will win the next World Cup?", "files": []}),
]


def example_values() -> list[list[dict[str, Any]]]:
    return [
        [{"text": value["text"], "files": [str(EXAMPLES_DIR / f) for f in value["files"]]}]
        for _, value in EXAMPLES
    ]


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
        "allowed_paths": [str(ASSETS), str(sessions_root())],
        "i18n": I18N,
        "theme": THEME,
        "css_paths": [str(ASSETS / "style.css")],
        "footer_links": ["api", "gradio"],
    }


def warm_up(tools: list[Any]) -> None:
    """Load the tools' slow parts (the OCR models) before the first person needs them."""
    for tool in tools:
        try:
            tool.warm_up()
        except Exception:
            log.warning("warming up %s failed; it will load on first use", tool.name, exc_info=True)


def main() -> None:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"))
    env = Settings()
    from tools import default_tools

    tools = default_tools()
    threading.Thread(target=warm_up, args=(tools,), name="warm-up", daemon=True).start()
    demo = build_demo(env=env, tools=tools)
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
        **launch_options(env),
    )


if __name__ == "__main__":
    main()
