"""The page's saved conversations: kept in the browser, restored on load, listed to reopen.

As Gradio's ChatInterface does with `save_history`, the conversations live in one
`gr.BrowserState` (the browser's localStorage); the value's format is `ui.history`'s. The page
restores its current conversation when it loads, saves it as a message leaves the input, as
its turn starts and each of the turn's steps ends (a reload during the turn keeps what it did,
the turn shown as stopped), after the turn, Stop, Clear and a change of settings, and lists
the others (newest first) to open or delete. "New conversation" puts the current one among
them and starts afresh.

The server keeps the last value it read or wrote (`PageState.saved`), so a turn sends nothing
up from the browser; only the page load reads it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import gradio as gr

from .access import shown_url
from .history import (
    drop,
    find,
    past,
    prefs_of,
    put,
    read,
    restore,
    snapshot,
    stored_prefs,
    valid_prefs,
)
from .labels import t
from .page_state import PageState
from .page_values import page_values

STORAGE_KEY = "multimodal-react-agent-history"
# Gradio encrypts a BrowserState with a secret it sends to every page in the page's config, so
# the secret hides nothing from the browser that holds the value; a fixed one keeps the saved
# conversations readable after the server restarts, when a random one would lose them all.
SECRET = "multimodal-react-agent-history-v1"
# Gradio hands a stored value that does not decrypt or parse to the page as no value at all;
# what was there but did not read is told apart by the key still being in localStorage.
_LOAD_JS = f"""(state, saved) => {{
  const there = localStorage.getItem({json.dumps(STORAGE_KEY)}) !== null;
  return [state, saved === null && there ? {{"unreadable": true}} : saved];
}}"""


def history_parts(i18n: Any) -> SimpleNamespace:
    """The list of past conversations (in an accordion) and the browser's copy of them; the
    "New conversation" button is with the chat's other buttons (`new_button`)."""
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
    saved = gr.BrowserState(None, storage_key=STORAGE_KEY, secret=SECRET)
    return SimpleNamespace(listed=listed, open_btn=open_btn, delete_btn=delete_btn, saved=saved)


def new_button(i18n: Any) -> gr.Button:
    return gr.Button(i18n("new_conversation"), elem_id="new-conversation", size="sm")


class History:
    """The handlers. `page` is the page's `PageHandlers`; `setting_names` the Settings fields
    in the order of the components they update."""

    def __init__(self, page: Any, setting_names: list[str]) -> None:
        self.page = page
        self.setting_names = setting_names

    # -- what each part of the page shows ------------------------------------------------------

    def _listed(self, state: PageState) -> Any:
        return gr.Radio(choices=past(state.saved, state.conversation_id), value=None)

    def _stored(self, state: PageState) -> tuple:
        return state.saved, self._listed(state)

    def _settings(self, state: PageState, restored: bool) -> list[Any]:
        if not restored:
            return [gr.skip()] * len(self.setting_names)
        prefs = state.prefs
        return [
            gr.skip()
            if name == "api_key"
            else shown_url(prefs.base_url)
            if name == "base_url"
            else getattr(prefs, name)
            for name in self.setting_names
        ]

    def _whole(self, state: PageState, restored: bool, settings: bool | None = None) -> tuple:
        """chat, trace, state, status, download, saved, list, *settings (shown again when
        `settings`, which is `restored` unless given)."""
        return (
            *page_values(state),
            self.page.download_update(state),
            *self._stored(state),
            *self._settings(state, restored if settings is None else settings),
        )

    # -- the handlers --------------------------------------------------------------------------

    def load(self, state: PageState | None, value: Any) -> tuple:
        """The page has loaded: restore the conversation the browser was last showing."""
        state = self.page.use(state, tell=False)
        saved, problem = read(value)
        state.saved = saved
        # A message sent before the page finished loading started a conversation of its own
        # (its words may be what the browser has just saved); the saved one stays in the list.
        sent = state.turns or state.messages_taken
        conversation = None if sent else find(saved, saved["current"])
        restored = conversation is not None and self._open(state, conversation)
        if conversation is not None and not restored:
            problem = True
            state.saved = drop(saved, conversation["id"])
        settings = restored
        if not restored and not state.turns and saved.get("prefs"):
            # No conversation yet: the settings chosen before the reload come back alone.
            self._set_prefs(state, valid_prefs(saved["prefs"]))
            settings = True
        if problem:
            gr.Warning(t("history_unreadable", state.prefs.language))
        self._keep(state)
        return self._whole(state, restored, settings)

    def _set_prefs(self, state: PageState, prefs: dict[str, Any]) -> None:
        for name, value in prefs.items():
            self.page.set_pref(name)(value, state)

    def _open(self, state: PageState, conversation: dict[str, Any]) -> bool:
        """Make `state` (fresh) the saved `conversation`, its settings first; False, and
        `state` still fresh, if it does not read."""
        self._set_prefs(state, prefs_of(conversation))
        try:
            restore(state, conversation)
        except ValueError:
            state.start_over()
            return False
        return True

    def taking(self, take: Callable[..., Awaitable[tuple]]) -> Callable[..., Awaitable[tuple]]:
        """The page's `take` (box, taken, state), with the browser's copy as a fourth output:
        the message that leaves the input is in it, so a reload before its turn has started
        keeps its words (its images are kept once it starts, by `saving`)."""

        async def taken(
            message: Any, state: Any, pressed: Any = None, request: gr.Request = None
        ) -> tuple:
            box, message_taken, state = await take(message, state, pressed, request)
            # Held back (a turn runs) or refused, the message carries no turn number.
            if not isinstance(message_taken, dict) or "turn" not in message_taken:
                return box, message_taken, state, gr.skip()
            state.messages_taken += 1
            self._keep(state, pending=str(message_taken.get("text") or ""))
            return box, message_taken, state, state.saved

        return taken

    def saving(self, run: Callable[..., AsyncIterator[tuple]]) -> Callable[..., AsyncIterator]:
        """A turn of the page's (`run(message, state)` yields chat, trace, state, status), with
        the browser's copy as a fifth output: saved when the turn starts and each time one of
        its steps is done, so a reload while it runs keeps what it has done, the turn shown
        as stopped (`ui.history.restore`). Its end saves it again, whole."""

        async def turn(message: Any, state: Any) -> AsyncIterator[tuple]:
            record, looked = None, 0  # the running turn, and how many of its events were seen
            async for update in run(message, state):
                current = update[2] if isinstance(update[2], PageState) else None
                running = current is not None and current.running and current.turns
                latest = current.turns[-1] if running else None
                # A turn is saved as it starts, then when a step of it has ended since the last
                # update: only those events are looked at, as a turn streams many.
                changed = latest is not None and latest is not record
                if latest is not None and latest is record:
                    changed = any(e.type in _STEP_ENDS for e in latest.events[looked:])
                if latest is not None:
                    record, looked = latest, len(latest.events)
                if changed:
                    self._keep(current)
                    yield (*update, current.saved)
                else:
                    yield (*update, gr.skip())

        return turn

    def save(self, state: PageState | None) -> tuple:
        """The browser's copy, with the page's conversation as it is now. Nothing while a
        turn runs: the turn saves itself as its steps end (`saving`), and again when it
        ends."""
        if state is None or state.running:
            return gr.skip(), gr.skip()
        self._keep(state)
        return self._stored(state)

    @staticmethod
    def _keep(state: PageState, pending: str | None = None) -> None:
        # The page's settings go in before `put`, which keeps the value within its size.
        saved = {**(state.saved or read(None)[0]), "prefs": stored_prefs(state.prefs)}
        state.saved = put(saved, snapshot(state, pending=pending), state.conversation_id)

    def new(self, state: PageState | None) -> tuple:
        """A fresh conversation; the one shown goes to the list."""
        state = self._leave(state)
        return self._whole(state, False)

    def open(self, choice: str | None, state: PageState | None) -> tuple:
        state = self.page.use(state)
        language = state.prefs.language
        conversation = find(state.saved, choice)
        if conversation is None:
            gr.Warning(t("pick_conversation" if not choice else "conversation_missing", language))
            return self._whole(state, False)
        state = self._leave(state)
        if not self._open(state, conversation):
            gr.Warning(t("history_unreadable", language))
            state.saved = drop(state.saved, conversation["id"])
            return self._whole(state, False)
        self._keep(state)
        return self._whole(state, True)

    def delete(self, choice: str | None, state: PageState | None) -> tuple:
        state = self.page.use(state)
        if not choice or find(state.saved, choice) is None:
            gr.Warning(t("pick_conversation", state.prefs.language))
            return self._stored(state)
        state.saved = drop(state.saved, choice)
        return self._stored(state)

    def clear(self, state: PageState | None) -> tuple:
        """Clear: the conversation goes from the page and from the browser."""
        state = self.page.use(state)
        cleared = state.conversation_id
        values = self.page.clear(state)
        state.saved = drop(state.saved or read(None)[0], cleared)
        return (*values, *self._stored(state))

    def _leave(self, state: PageState | None) -> PageState:
        """Stop what runs, keep the conversation in the list, and start a fresh one."""
        state = self.page.use(state)
        self.page.halt(state)
        self._keep(state)
        state.start_over()
        self._keep(state)  # a reload now shows the fresh conversation
        return state


# The events after which a running turn is saved again: those that end a step or a part of it
# (`History.saving`).
_STEP_ENDS = frozenset({"run_started", "model_call", "thought", "tool_result", "ask_user"})


def wire_history(
    history: History,
    parts: SimpleNamespace,
    state: gr.State,
    settings: dict[str, Any],
    *,
    loaded: Any,
    saves: list[Any],
) -> list[Any]:
    """Wire the panel into the page; returns the events after which another conversation
    (or none) is on the page. `parts` is the chat tab's (`ui.layout.chat_tab`); `loaded` the
    page-load event that made the session's state; `saves` the events after which the
    conversation is saved (a turn's end, Stop, a change of settings; the page's turns save
    themselves as they go, through `History.taking` and `History.saving`). A new, opened or
    cleared conversation ends a running turn through its state, as Stop does, never by
    cancelling its event."""
    stored = [parts.saved, parts.listed]
    shown = [parts.chatbot, parts.trace, state, parts.status, parts.download]
    whole = [*shown, *stored, *settings.values()]
    quiet = {"api_visibility": "private", "show_progress": "hidden"}
    loaded.then(history.load, [state, parts.saved], whole, js=_LOAD_JS, **quiet)
    for event in saves:
        event.then(history.save, [state], stored, queue=False, **quiet)
    new = parts.new_btn.click(history.new, [state], whole, queue=False, **quiet)
    opened = parts.open_btn.click(history.open, [parts.listed, state], whole, queue=False, **quiet)
    parts.delete_btn.click(history.delete, [parts.listed, state], stored, **quiet)
    cleared = [parts.chatbot, parts.trace, state, parts.status, parts.box, parts.download]
    clear = parts.clear_btn.click(history.clear, [state], [*cleared, *stored], queue=False, **quiet)
    return [loaded, new, opened, clear]
