"""The web page: the agent in front of people. `python app.py` serves it.

It holds no agent logic. Each browser session gets its own `PageState` (conversation, images,
settings, turns); a turn runs `Agent.run` and turns its events into chat and trace updates
through `agent.trace_view`. The API endpoint `/chat` takes `{"text": ..., "files": [...]}`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import gradio as gr

from agent.config import DEFAULT_HF_MODEL, DEFAULT_OPENAI_MODEL, HF_ROUTER_URL, Settings
from agent.events import Notice, export_trace
from agent.images import ImageStore
from agent.intake import message_problem, prepare_images
from agent.runner import Agent
from agent.session import Session
from agent.trace_view import LABELS, TurnView, user_message

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent
ASSETS = ROOT / "assets"
EXAMPLES_DIR = ASSETS / "examples"


@dataclass
class Prefs:
    """One browser session's settings. The API key never leaves the server once typed."""

    source: str = "offline"
    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    temperature: float = 0.0
    max_steps: int = 8
    image_detail: str = "auto"
    language: str = "en"
    style: str = "react"


def default_prefs(env: Settings) -> Prefs:
    source = env.model_source()
    base_url = env.openai_base_url or (HF_ROUTER_URL if source == "hf" else "")
    model = env.model or {"openai": DEFAULT_OPENAI_MODEL, "hf": DEFAULT_HF_MODEL}.get(source, "")
    return Prefs(
        source="offline" if source == "offline" else "openai",
        base_url=base_url,
        model=model,
        temperature=env.temperature,
        max_steps=env.max_steps,
        image_detail=env.image_detail,
        language=env.language,
        style=env.prompt_style,
    )


class ModelNotConfigured(ValueError):
    """The settings ask for a hosted model but give no way to reach one."""


def server_key(env: Settings, base_url: str | None) -> str:
    """The environment's key, only for the endpoint it was configured for, never another."""
    if base_url and base_url.rstrip("/") == HF_ROUTER_URL and env.hf_token:
        return env.hf_token.get_secret_value()
    configured = (env.openai_base_url or "").rstrip("/") or None
    if env.openai_api_key and (base_url or None) == configured:
        return env.openai_api_key.get_secret_value()
    return ""


def default_model(prefs: Prefs, env: Settings):
    from agent.models import OfflineModel, OpenAIChatModel

    if prefs.source == "offline":
        return OfflineModel()
    base_url = prefs.base_url.strip().rstrip("/") or None
    key = prefs.api_key.strip() or server_key(env, base_url)
    if not key and not base_url:
        raise ModelNotConfigured(
            "The OpenAI-compatible model needs an API key or a base URL: add one in Settings, "
            "or choose the offline model."
        )
    return OpenAIChatModel(
        model=prefs.model.strip() or DEFAULT_OPENAI_MODEL,
        base_url=base_url,
        # No key is fine for local servers: the model sends the client a placeholder.
        api_key=key or None,
        timeout=env.model_timeout,
    )


@dataclass
class TurnRecord:
    text: str
    refs: list[Any]
    view: TurnView
    events: list[Any] = field(default_factory=list)
    task_before: Any = None
    history_len: int = 0


class PageState:
    """Everything one browser session owns. Made fresh per session; nothing is shared."""

    def __init__(self, prefs: Prefs, env: Settings) -> None:
        self.prefs = prefs
        self.env = env
        self.turns: list[TurnRecord] = []
        self.trace_file: str | None = None
        self._session: Session | None = None
        self._dir: str | None = None
        self._model: tuple[tuple, Any] | None = None

    def model(self, make: Callable[[Prefs], Any]) -> Any:
        """This session's hosted model, made again only when its settings change: building
        an HTTP client per turn costs real time. The key stays with the session."""
        p = self.prefs
        key = (p.source, p.base_url, p.model, p.api_key)
        if self._model is None or self._model[0] != key:
            self._model = (key, make(p))
        return self._model[1]

    @property
    def session(self) -> Session:
        # Made on first use: a Session holds a lock, which gr.State could not copy.
        if self._session is None:
            store = ImageStore(
                # Under the one folder the page may serve, so the trace can show tool images.
                root=tempfile.mkdtemp(prefix="session-", dir=sessions_root()),
                max_side=self.env.max_image_side,
                max_bytes=int(self.env.max_upload_mb * 1024 * 1024),
            )
            self._session = Session(images=store)
        return self._session

    @property
    def folder(self) -> Path:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="agent-page-")
        return Path(self._dir)

    def reset(self) -> None:
        self.close()
        self.turns = []
        self.trace_file = None

    def close(self) -> None:
        self._model = None
        if self._session is not None:
            shutil.rmtree(self._session.images.root, ignore_errors=True)
            self._session = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def write_trace(self, record: TurnRecord) -> str:
        run_id = next((e.run_id for e in record.events if e.type == "run_started"), "turn")
        path = self.folder / f"trace-{len(self.turns)}-{run_id}.json"
        path.write_bytes(export_trace(record.events))
        self.trace_file = str(path)
        return self.trace_file


# The page's own words, English and Chinese, kept beside the other assets.
UI_TEXT: dict[str, dict[str, str]] = json.loads((ASSETS / "ui_text.json").read_text("utf-8"))
# The page follows the browser's language; zh-CN and zh-TW browsers both get Chinese.
I18N = gr.I18n(**UI_TEXT, **{"zh-CN": UI_TEXT["zh"], "zh-TW": UI_TEXT["zh"]})


def t(key: str, language: str) -> str:
    return UI_TEXT.get(language, UI_TEXT["en"])[key]


# -- what the page shows ------------------------------------------------------------------------


def chat_messages(state: PageState) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for record in state.turns:
        messages.append(user_message(record.text, [ref.path for ref in record.refs]))
        view = record.view
        if view.answer:
            messages.append({"role": "assistant", "content": view.answer})
        elif not view.done:
            working = LABELS[state.prefs.language]["thinking"]
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "metadata": {"title": working, "status": "pending"},
                }
            )
    return messages


def trace_messages(state: PageState) -> list[dict[str, Any]]:
    """Every recent turn's steps; finished turns fold, except the latest, which stays open.
    The page sends the whole trace on every update, so older turns leave it (not the chat)."""
    messages = [m for record in state.turns[-TRACE_TURNS:] for m in record.view.messages]
    latest = state.turns[-1].view.turn_id if state.turns else None
    for index, message in enumerate(messages):
        meta, content = message["metadata"], message["content"]
        if meta.get("id") == latest and meta.get("status") == "done":
            # No status: Gradio shows the group open, without a spinner.
            meta = {k: v for k, v in meta.items() if k != "status"}
            message = {**message, "metadata": meta}
        if isinstance(content, list):
            # A folded step shows images only as Markdown, so tool images become links to
            # the session's own copies.
            message = {**message, "content": _markdown_with_images(content)}
        messages[index] = message
    return messages


def _markdown_with_images(content: list[Any]) -> str:
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("path"):
            path = Path(part["path"])
            parts.append(f"![{path.stem}](/gradio_api/file={quote(str(path))})")
        else:
            parts.append(str(part))
    return "\n\n".join(parts)


def status_text(state: PageState) -> str:
    if not state.turns:
        return ""
    view = state.turns[-1].view
    if view.stats_line:
        return view.stats_line
    if view.model:
        return f"{t('working', state.prefs.language)} · {view.model}"
    return t("working", state.prefs.language)


STREAM_INTERVAL = 0.05
TRACE_TURNS = 20
TURNS_AT_ONCE = 64
_DELTAS = {"model_delta", "answer_delta", "tool_progress"}


def page_update(state: PageState) -> tuple:
    """What a turn streams: only values, never component updates, because each component
    update makes Gradio rebuild that component's config on the event loop."""
    return chat_messages(state), trace_messages(state), state, status_text(state)


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
        yield page_update(state)
        try:
            # Injected factories (tests) give a fresh model per turn; ours is kept per session.
            model = state.model(make_model) if model_factory is None else make_model(prefs)
        except ModelNotConfigured as exc:
            gr.Warning(str(exc))
            state.turns.pop()
            yield page_update(state)
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
                yield page_update(state)

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
            yield page_update(state)
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
        return (*page_update(state), download_update(state))

    def clear(state: PageState | None) -> tuple:
        state = state or new_state()
        state.reset()
        return (*page_update(state), None, download_update(state))

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


@functools.cache
def sessions_root() -> Path:
    """One folder for every session's prepared images, each session in its own folder with a
    random name; the page serves this folder and assets/, nothing else of the disk."""
    return Path(tempfile.mkdtemp(prefix="agent-sessions-"))


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
