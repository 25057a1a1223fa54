"""The web page: the agent in front of people. `python app.py` serves it.

This module puts the page together and wires it. Its parts are `ui.layout`; what its inputs
and buttons do is `ui.handlers.PageHandlers`; each browser session's state is
`ui.page.state.PageState`; events become chat and trace values in `ui.trace.view` and
`ui.page.values`. The API endpoint `/chat` takes `{"text": ..., "files": [...]}`.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr

from agent.config import (
    HF_ROUTER_URL,
    ModelNotConfigured,
    Settings,
    server_key,
)
from agent.tracing.log_redaction import install as install_log_redaction
from ui import approval_panel, process_folders
from ui.a11y import a11y_settings
from ui.conversations.handlers import History
from ui.conversations.panel import and_save, history_script, remember_sent, wire_history
from ui.examples import EXAMPLES, EXAMPLES_DIR, example_values
from ui.handlers import PageHandlers
from ui.labels import UI_TEXT
from ui.language import aria_settings, on_page_load
from ui.layout import I18N, THEME, chat_tab, settings_panel
from ui.notices import tell_mcp_notices
from ui.page.script import LANGUAGE_JS, page_script
from ui.page.state import (
    PageState,
    Prefs,
    default_model,
    default_prefs,
    sessions_root,
    traces_root,
)
from ui.page.words import PageWords, language_settings, relabel_handler
from ui.phone import opening_settings, wire_phone
from ui.saved_scenarios import panel as saved_scenarios
from ui.scenarios_tab.components import add_scenarios_tab
from ui.script_api import add_script_endpoints
from ui.server import Page
from ui.toasts import toast_settings

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
        words = PageWords()  # what the Language setting says again in the other language
        words.add(gr.Markdown(I18N("header"), elem_id="header"), value="header")
        banner = gr.Markdown(
            I18N("banner_offline"), elem_id="banner", visible=prefs0.source == "offline"
        )
        words.add(banner, value="banner_offline")
        with gr.Tabs(elem_id="tabs"):
            with gr.Tab(I18N("tab_chat"), id="chat-tab", elem_id="chat-tab") as tab:
                words.add(tab, label="tab_chat")
                parts = chat_tab(prefs0, words)
                chatbot, box, trace, status = parts.chatbot, parts.box, parts.trace, parts.status
                stop_btn, retry_btn = parts.stop_btn, parts.retry_btn
                download, examples = parts.download, parts.examples
            with gr.Tab(I18N("tab_scenarios"), id="scenarios-tab", elem_id="scenarios-tab") as tab:
                words.add(tab, label="tab_scenarios")
                run_list = add_scenarios_tab(page, state, I18N, words)
        settings, notice = settings_panel(prefs0, words)
        # Save as scenario: the chat's conversation, edited, into the Scenarios tab's run list.
        saved_scenarios.wire(
            parts.save_btn, parts.saving, page, state, run_list.saved, run_list.saved_list
        )

        outputs = [chatbot, trace, state, status]
        turn = {"outputs": outputs, "concurrency_limit": TURNS_AT_ONCE, "show_progress": "hidden"}
        quiet = {"api_visibility": "private", "show_progress": "hidden"}
        # The page sends a turn in two steps, as Gradio's ChatInterface does: take the message
        # out of the input (which then empties at once), then run the turn from the copy. An
        # input that is still the input of a running event would keep its text until the end.
        # While a turn runs, a message is not taken: it stays in the input, and a toast says
        # why (from an event of its own, as the turn's next step is still pending).
        taken = gr.State(None)
        # The browser counts its own Stop presses and sends the count with every send, Retry
        # and Stop: two clicks a moment apart reach the server in either order, and the counts
        # still tell which came first (ui.handlers.PageHandlers.stop).
        presses = gr.Number(0, visible=False)
        count_sent = "(...values) => [...values.slice(0, -1), window.agentStops || 0]"
        count_stop = "(s, n) => [s, (window.agentStops = (window.agentStops || 0) + 1)]"
        # The message taken, and each step of its turn, is saved in the browser as it goes
        # (ui.conversations.panel), so a reload mid-turn keeps it; the browser keeps the message
        # itself from the moment it is sent until the server says it took it.
        history = History(page, list(settings))
        demo.load(None, js=history_script())  # before the page's load reads the storage
        take = {
            "fn": history.taking(page.take),
            "inputs": [box, state, presses],
            "outputs": [box, taken, state, parts.saved],
            "js": remember_sent(count_sent),
        }
        tell = {"fn": page.tell_held, "inputs": [taken, state], "outputs": None, **quiet}
        took = box.submit(**take, queue=False, **quiet)
        took.then(**tell)
        saving = {**turn, "outputs": [*outputs, parts.saved]}
        submitted = took.then(
            history.saving(page.send),
            [taken, state],
            api_name="send",
            api_visibility="private",
            **saving,
        )
        from_examples = []
        # An example is taken from its own hidden input, so the person's draft stays; the
        # real input shows the stop square (and Stop turns red) as for a typed message.
        take_typed = history.taking(page.take)

        async def take_shown(
            message: Any, state: Any, pressed: Any = None, request: gr.Request | None = None
        ) -> tuple:
            out = await take_typed(message, state, pressed, request)
            return (*out, page.stop_square(True) if page.starts_turn(out[1]) else gr.skip())

        take_example = {**take, "fn": take_shown, "inputs": [parts.example_box, state, presses]}
        take_example["outputs"] = [parts.example_box, taken, state, parts.saved, box]
        tell_example = {**tell, "fn": page.tell_held_example}
        for example_set in examples:
            took = example_set.load_input_event.then(**take_example, queue=False, **quiet)
            took.then(**tell_example)
            from_examples.append(
                took.then(
                    history.saving(page.run_example),
                    [taken, state],
                    api_visibility="private",
                    **saving,
                )
            )
        # Scripted QA calls `/chat` with the message itself; it runs the same turn.
        api_trigger = gr.Button(visible=False, elem_id="api-chat")
        from_api = api_trigger.click(page.chat, [box, state], api_name="chat", **turn)
        # Retry takes the count of Stop presses first, not queued, as sending does.
        retry_stops = gr.State(None)
        took_retry = retry_btn.click(
            page.take_retry,
            [state, presses],
            [box, retry_stops],
            js=count_sent,
            queue=False,
            **quiet,
        )
        took_retry.then(page.tell_held_retry, [retry_stops, state], None, **quiet)
        retried = took_retry.then(
            page.retry, [state, retry_stops], api_visibility="private", **turn
        )
        running = [submitted, *from_examples, retried, from_api]
        panel = parts.approval  # a call waiting for approval: ui.approval_panel
        running += approval_panel.wire(panel, page, state, turn, box)
        # Scripts get `/ask` (the same turn, as named JSON) and `/reset`: ui.script_api.
        running.append(add_script_endpoints(page, box, state, cancels=running))
        shown = {"fn": approval_panel.refresh, "inputs": [state]}
        shown["outputs"] = approval_panel.outputs(panel)
        # What follows a turn is one event, not a chain: the download and the input, the
        # approval panel, the conversation saved in the browser (ui.conversations.panel).
        after = [download, box, *shown["outputs"]]

        def with_panel(step: Callable[[PageState | None], tuple]) -> Callable[..., tuple]:
            return lambda state: (*step(state), *approval_panel.refresh(state))

        ended = and_save(history, parts, state, with_panel(page.turn_ended), after)
        for event in running:
            event.then(**ended, queue=False, **quiet)
        # Stop ends the turn through its state, not by cancelling the turn's event: a
        # cancelled event sends nothing more, so an update it had under way could land after
        # Stop's and leave the page saying "Working…". The turn ends at once and says stopped.
        for trigger in (stop_btn.click, box.stop):
            stopping = trigger(
                page.stop,
                [state, presses],
                [*outputs, download],
                js=count_stop,
                queue=False,
                **quiet,
            )
            stopped = and_save(history, parts, state, with_panel(page.stopped), after)
            stopping.then(**stopped, queue=False, **quiet)
        unqueued = {"queue": False, **quiet}
        for name, component in settings.items():
            changed = component.change(
                page.set_pref(name),
                [component, state],
                [state, banner],
                api_visibility="private",
                show_progress="hidden",
                queue=False,
            )
            # What is wrong with a field shows under the fields once the person leaves it
            # (a toast would need a queued event, and would say it on every keystroke).
            notice_again = page.settings_notice(again=True)
            changed.then(**and_save(history, parts, state, notice_again, [notice]), **unqueued)
            if isinstance(component, gr.Textbox):
                for left in (component.blur, component.submit):
                    left(page.settings_notice(), [state], [notice], **unqueued)
        # The session starts in its browser's language; the whole page follows the setting.
        example_sets = [example_set.dataset for example_set in examples]
        language = settings["language"]
        load = on_page_load(page.new_state, prefs0.language)
        loaded = demo.load(load, [state], [state, language, *example_sets], queue=False, **quiet)
        # Clear, New conversation and the saved conversations: ui.conversations.panel.
        swapped = wire_history(history, parts, state, settings, loaded=loaded)
        for event in swapped:
            event.then(**shown, queue=False, **quiet)
        relabel = relabel_handler(page, words)
        language.change(relabel, [language, state], [*outputs, *words.components], **quiet).then(
            page.settings_notice(again=True), [state], [notice], **unqueued
        )
        run_list.follow_language(language)  # the Scenarios tab's results, in the new language
        titles = (UI_TEXT["zh"]["title"], UI_TEXT["en"]["title"])
        language.change(None, [language], None, js=LANGUAGE_JS, queue=False, **quiet)
        scripts = {
            "a11y": a11y_settings(),
            "aria": aria_settings(UI_TEXT["zh"]["title"]),
            "toasts": toast_settings(page.env.max_upload_mb),
            "opening": opening_settings(),
            "language": language_settings(*titles),
        }
        demo.load(None, js=page_script(scripts))  # assets/page/, once
        demo.load(tell_mcp_notices, None, None, **quiet)  # MCP servers that failed to start
        wire_phone(parts, [box.submit, *(e.load_input_event.then for e in examples)])
        if page.env.mcp_server:
            from ui.mcp_endpoints import add_mcp_endpoints

            add_mcp_endpoints(demo, page)  # the tools and ask_agent, for MCP clients
    demo.queue(default_concurrency_limit=TURNS_AT_ONCE)
    return demo


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
    install_log_redaction(handlers=True)  # no secret in any line the log writes
    # SIGTERM stops the server as Ctrl+C does, and its temp folders go with it.
    with process_folders.running():
        from tools import default_tools

        # Both of the process's folders (and their lock files) from the start, not at the
        # first trace: what the server has on disk while idle stays the same.
        traces_root()
        tools = default_tools(env.tool_settings())
        threading.Thread(target=warm_up, args=(tools,), name="warm-up", daemon=True).start()
        demo = build_demo(env=env, tools=tools)
        demo.launch(server_name=env.server_name, server_port=env.server_port, **launch_options(env))


if __name__ == "__main__":
    main()
    # Stopped, its folders gone: the interpreter's last garbage collection would walk every
    # object Gradio and the page made, most of the time from SIGTERM to exit (seconds on a
    # busy machine); what is left is freed as the process ends.
    gc.freeze()
