"""The page's saved conversations: kept in the browser, restored on load, listed to reopen.

The browser keeps them in its own storage, from the page's script (`assets/history.js`); the
format is `ui.conversations.stored`'s. The server sends the page's changes to it through a
hidden textbox (`saved`), whose change the script applies: as a message leaves the input, as
its turn starts and each of the turn's steps ends (a reload during the turn keeps what it did,
the turn shown as stopped), after the turn, Stop, Clear and a change of settings. Each carries
only what is new in the page's own conversation. The browser sends up, through another
(`browser`), only what the server needs: as the page loads, this tab's conversation and the
list of the others; to open one, that one. "New conversation" puts the current one among the
others (newest first) and starts afresh. Clear and Delete can be undone for a few seconds
(`ui.conversations.undo`).

"Open a downloaded conversation" opens a zip of the chat's download button in the chat, to go
on with it (`ui.conversations.reopen`).

This module holds the panel's parts, its script and its wiring; what its events call is
`ui.conversations.handlers.History`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr

from ..listeners import Quiet
from ..page.state import PageState
from ..page.words import PageWords
from .handlers import History
from .reopen import Reopener
from .stored import FORMAT, MAX_BYTES, MAX_CONVERSATIONS, VERSION
from .undo import TICK_SECONDS, Undo

# The keys of the browser's storage begin with this (`ui.conversations.stored`).
STORAGE_PREFIX = "multimodal-react-agent/"
SCRIPT = Path(__file__).resolve().parents[2] / "assets" / "history.js"

_HISTORY = "window.agentHistory"
# What the browser sends as the page loads, to open a conversation, and with each save.
_LOAD_JS = f"(state, sent) => [state, {_HISTORY} ? {_HISTORY}.payload() : '']"
_OPEN_JS = (
    f"(choice, state, sent) => [choice, state, {_HISTORY} ? {_HISTORY}.conversation(choice) : '']"
)
_SAVE_JS = f"(state, sent) => [state, {_HISTORY} ? {_HISTORY}.lost() : '']"
_DELETE_JS = (
    f"(choice, state, sent) => "
    f"[choice, state, {_HISTORY} && {_HISTORY}.heldElsewhere(choice) ? 'held' : '']"
)
_APPLY_JS = f"(patch) => {{ if ({_HISTORY} && patch) {_HISTORY}.apply(patch); }}"
_LIST_JS = f"(choice, state, sent) => [choice, state, {_HISTORY} ? {_HISTORY}.index() : '']"
# A button no one sees: the page's script presses it when another tab changed the list.
REFRESH_ID = "history-refresh"


def script_settings() -> dict[str, Any]:
    """What the page's script is given: the keys' prefix, the format, the list's length."""
    return {
        "prefix": STORAGE_PREFIX,
        "format": FORMAT,
        "version": VERSION,
        "maxConversations": MAX_CONVERSATIONS,
        "maxBytes": MAX_BYTES,
        "refreshId": REFRESH_ID,
    }


def history_script() -> str:
    """The page's script that keeps the conversations (`assets/history.js`), with its
    settings; run once as the page loads."""
    source = SCRIPT.read_text(encoding="utf-8").strip()
    return f"() => (\n{source}\n)({json.dumps(script_settings())})"


def remember_sent(js: str) -> str:
    """`js`, the browser code of an event that sends the input's message (its first value),
    with the message kept in the tab until the server says it took it: a reload before then
    still has it."""
    return (
        f"(...values) => {{ if ({_HISTORY}) {_HISTORY}.sending(values[0]); "
        f"return ({js})(...values); }}"
    )


def history_parts(i18n: Any, words: PageWords) -> SimpleNamespace:
    """The list of past conversations (in an accordion), and the two hidden textboxes the
    server and the browser's storage talk through; the "New conversation" button is with the
    chat's other buttons (`new_button`)."""
    with gr.Accordion(i18n("conversations"), open=False, elem_id="conversations"):
        listed = gr.Radio(
            [],
            value=None,
            label=i18n("conversations"),
            info=i18n("conversations_info"),
            elem_id="past-conversations",
        )
        with gr.Row():
            open_btn = gr.Button(i18n("open_conversation"), elem_id="open-conversation", size="sm")
            delete_btn = gr.Button(
                i18n("delete_conversation"), elem_id="delete-conversation", size="sm"
            )
        # A conversation the chat's download button saved, opened to go on with it.
        reopen_btn = gr.UploadButton(
            i18n("reopen_conversation"),
            file_types=[".zip"],
            file_count="single",
            elem_id="reopen-conversation",
            size="sm",
        )
        # What it says (which conversation) is the server's, in the page's language.
        undo_delete, undo_delete_said, undo_delete_btn = _undo_row(
            "", i18n("undo_delete"), "undo-delete"
        )
        words.add(undo_delete_btn, value="undo_delete")
    # Ticks while Clear or Delete can be undone (`ui.conversations.undo`).
    undo_timer = gr.Timer(TICK_SECONDS, active=False)
    saved = gr.Textbox(visible=False, elem_id="history-saved")
    browser = gr.Textbox(visible=False, elem_id="history-browser")
    refresh = gr.Button(visible="hidden", elem_id=REFRESH_ID, size="sm")
    return SimpleNamespace(
        listed=listed,
        open_btn=open_btn,
        delete_btn=delete_btn,
        reopen_btn=reopen_btn,
        saved=saved,
        browser=browser,
        refresh=refresh,
        undo_delete=undo_delete,
        undo_delete_said=undo_delete_said,
        undo_delete_btn=undo_delete_btn,
        undo_timer=undo_timer,
    )


def _undo_row(said: Any, undo: Any, elem_id: str) -> tuple[gr.Row, gr.Markdown, gr.Button]:
    """What was done, and a button that says what it undoes; shown for a few seconds after
    it. Hidden as the page is drawn, so its words follow the language through `PageWords`
    (Gradio translates a part once, when it is first drawn)."""
    with gr.Row(visible=False, elem_id=elem_id, elem_classes="undo-row") as row:
        shown = gr.Markdown(said, elem_classes="undo-said")
        button = gr.Button(undo, elem_id=f"{elem_id}-button", size="sm", scale=0)
    return row, shown, button


def undo_clear_parts(i18n: Any, words: PageWords) -> SimpleNamespace:
    """Under the chat's buttons: "Conversation cleared." and its "Undo clear" button."""
    row, said, button = _undo_row(i18n("conversation_cleared"), i18n("undo_clear"), "undo-clear")
    words.add(said, value="conversation_cleared")
    words.add(button, value="undo_clear")
    return SimpleNamespace(undo_clear=row, undo_clear_btn=button)


def new_button(i18n: Any) -> gr.Button:
    return gr.Button(i18n("new_conversation"), elem_id="new-conversation", size="sm")


def wire_history(
    history: History,
    parts: SimpleNamespace,
    state: gr.State,
    settings: dict[str, Any],
    *,
    loaded: Any,
) -> list[Any]:
    """Wire the panel into the page; returns the events after which another conversation
    (or none) is on the page. `parts` is the chat tab's (`ui.layout.chat_tab`); `loaded` the
    page-load event that made the session's state. What follows a turn's end, Stop and a
    change of settings saves the conversation as it goes (`and_save`); the page's turns save
    themselves as they go, through `History.taking` and `History.saving`. The page's script
    (`history_script`) must run as the page loads. A new, opened or cleared conversation
    ends a running turn through its state, as Stop does, never by cancelling its event."""
    stored = [parts.saved, parts.listed]
    shown = [parts.chatbot, parts.trace, state, parts.status, parts.download]
    whole = [*shown, *stored, *settings.values()]
    quiet: Quiet = {"api_visibility": "private", "show_progress": "hidden"}
    # Each change the server sends is applied in the browser, by the page's script alone.
    parts.saved.change(None, [parts.saved], None, js=_APPLY_JS, queue=False, **quiet)
    up = [state, parts.browser]
    restored = loaded.then(history.load, up, whole, js=_LOAD_JS, **quiet)
    new = parts.new_btn.click(history.new, [state], whole, queue=False, **quiet)
    # Queued, unlike the quick changes around it: only a queued event's notices reach the
    # page ("open in another tab, so this is a copy", "pick one first").
    opened = parts.open_btn.click(history.open, [parts.listed, *up], whole, js=_OPEN_JS, **quiet)
    # Queued too: the file is read and its images checked off the event loop.
    reopen = Reopener(history).open
    reopened = parts.reopen_btn.upload(reopen, [parts.reopen_btn, state], whole, **quiet)
    deleting = [parts.listed, state, parts.browser]
    deleted = parts.delete_btn.click(history.delete, deleting, stored, js=_DELETE_JS, **quiet)
    parts.refresh.click(history.relist, deleting, [parts.listed], js=_LIST_JS, queue=False, **quiet)
    cleared = [parts.chatbot, parts.trace, state, parts.status, parts.box, parts.download]
    clear = parts.clear_btn.click(history.clear, [state], [*cleared, *stored], queue=False, **quiet)
    undone = _wire_undo(Undo(history), parts, state, whole, [clear, deleted])
    return [restored, new, opened, reopened, clear, undone]


def and_save(
    history: History,
    parts: SimpleNamespace,
    state: gr.State,
    step: Callable[[PageState | None], Any],
    outputs: list[Any],
) -> dict[str, Any]:
    """The arguments of a `.then` that runs `step(state)` for `outputs` and then saves the
    conversation in the browser (`History.save`), in one event: each event of the page costs
    the browser work in proportion to the page's parts, as it loads and on every turn, and a
    chain of two is also one more round trip before the page is still."""

    def then_saved(state: PageState | None, lost: Any = None) -> tuple:
        done = step(state)
        return (*(done if isinstance(done, tuple) else (done,)), *history.save(state, lost))

    return {
        "fn": then_saved,
        "inputs": [state, parts.browser],
        "outputs": [*outputs, parts.saved, parts.listed],
        "js": _SAVE_JS,
    }


def _wire_undo(
    undo: Undo, parts: SimpleNamespace, state: gr.State, whole: list[Any], done: list[Any]
) -> Any:
    """Clear's and Delete's offers to undo (`done` are their events); returns Undo Clear's
    event, after which the page shows another conversation."""
    quiet: Quiet = {"api_visibility": "private", "show_progress": "hidden"}
    offers = [parts.undo_clear, parts.undo_delete, parts.undo_delete_said, parts.undo_timer]
    for event in done:
        event.then(undo.offer, [state], offers, queue=False, **quiet)
    ticked = [parts.saved, parts.undo_clear, parts.undo_delete, parts.undo_timer]
    parts.undo_timer.tick(undo.tick, [state], ticked, queue=False, **quiet)
    # Queued, so that a refusal's notice reaches the page.
    undone = [*whole, parts.undo_clear]
    clicked = parts.undo_clear_btn.click(undo.undo_clear, [state], undone, **quiet)
    undelete = [parts.saved, parts.listed, parts.undo_delete, parts.undo_delete_said]
    parts.undo_delete_btn.click(undo.undo_delete, [state], undelete, **quiet)
    return clicked
