"""The page's saved conversations: kept in the browser, restored on load, listed to reopen.

The browser keeps them in its own storage, from the page's script (`assets/history.js`); the
format is `ui.history`'s. The server sends the page's changes to it through a hidden textbox
(`saved`), whose change the script applies: as a message leaves the input, as its turn
starts and each of the turn's steps ends (a reload during the turn keeps what it did, the turn
shown as stopped), after the turn, Stop, Clear and a change of settings. Each carries only
what is new in the page's own conversation. The browser sends up, through another
(`browser`), only what the server needs: as the page loads, this tab's conversation and the
list of the others; to open one, that one. "New conversation" puts the current one among the
others (newest first) and starts afresh.

The server keeps what it knows of the browser's copy (`PageState.saved`, a `ui.history.Kept`),
so a turn sends nothing up from the browser.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import gradio as gr

from .access import shown_url
from .history import (
    FORMAT,
    MAX_CONVERSATIONS,
    VERSION,
    Kept,
    Pending,
    prefs_of,
    read_conversation,
    read_listed,
    read_loaded,
    restore,
    with_pending,
)
from .labels import t
from .listeners import Quiet
from .page_state import PageState
from .page_values import page_values
from .turns import file_path

if TYPE_CHECKING:
    from .handlers import PageHandlers

# The keys of the browser's storage begin with this (`ui.history`).
STORAGE_PREFIX = "multimodal-react-agent/"
SCRIPT = Path(__file__).resolve().parent.parent / "assets" / "history.js"

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


def history_parts(i18n: Any) -> SimpleNamespace:
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
    saved = gr.Textbox(visible=False, elem_id="history-saved")
    browser = gr.Textbox(visible=False, elem_id="history-browser")
    refresh = gr.Button(visible="hidden", elem_id=REFRESH_ID, size="sm")
    return SimpleNamespace(
        listed=listed,
        open_btn=open_btn,
        delete_btn=delete_btn,
        saved=saved,
        browser=browser,
        refresh=refresh,
    )


def new_button(i18n: Any) -> gr.Button:
    return gr.Button(i18n("new_conversation"), elem_id="new-conversation", size="sm")


class History:
    """The handlers. `page` is the page's `PageHandlers`; `setting_names` the Settings fields
    in the order of the components they update."""

    def __init__(self, page: PageHandlers, setting_names: list[str]) -> None:
        self.page = page
        self.setting_names = setting_names

    # -- what each part of the page shows ------------------------------------------------------

    @staticmethod
    def kept(state: PageState) -> Kept:
        if not isinstance(state.saved, Kept):
            state.saved = Kept()
        return state.saved

    def _listed(self, state: PageState, again: bool = True) -> Any:
        """The list of the other conversations; unless `again`, only if it changed."""
        kept = self.kept(state)
        choices = kept.past(state.conversation_id)
        if not again and choices == kept.shown:
            return gr.skip()
        kept.shown = choices
        return gr.Radio(choices=choices, value=None)

    def relist(self, choice: str | None, state: PageState | None, sent: Any) -> Any:
        """Another tab changed the browser's list: show it again, the page's own
        conversation kept as this page knows it, the choice kept if it is still listed."""
        if state is None or not isinstance(state.saved, Kept):
            return gr.skip()
        entries = read_listed(sent)
        if entries is None:
            return gr.skip()
        kept = state.saved
        own = [e for e in kept.index if e["id"] == state.conversation_id]
        kept.index = own + [e for e in entries if e["id"] != state.conversation_id]
        del kept.index[MAX_CONVERSATIONS:]
        choices = kept.past(state.conversation_id)
        if choices == kept.shown:
            return gr.skip()
        kept.shown = choices
        still = choice if any(choice == i for _title, i in choices) else None
        return gr.Radio(choices=choices, value=still)

    def _stored(self, state: PageState, ops: list[dict], again: bool = True) -> tuple:
        """The changes for the browser (nothing if there are none), and the list."""
        patch = self.kept(state).patch(ops) if ops else gr.skip()
        return patch, self._listed(state, again)

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

    def _whole(self, state: PageState, ops: list[dict], settings: bool) -> tuple:
        """chat, trace, state, status, download, changes, list, *settings (shown again when
        `settings`)."""
        return (
            *page_values(state),
            self.page.download_update(state),
            *self._stored(state, ops),
            *self._settings(state, settings),
        )

    # -- the handlers --------------------------------------------------------------------------

    def load(self, state: PageState | None, sent: Any) -> tuple:
        """The page has loaded: restore this tab's conversation, with the message it had sent
        if the server had not said it took it, and list the others."""
        state = self.page.use(state, tell=False)
        loaded = read_loaded(sent)
        kept = self.kept(state)
        # A message sent before the page finished loading saved the page's own conversation
        # already: it stays in the list, which is otherwise the browser's.
        own = [e for e in kept.index if e["id"] == state.conversation_id]
        kept.index = own + [e for e in loaded.index if e["id"] != state.conversation_id]
        del kept.index[MAX_CONVERSATIONS:]
        kept.prefs = loaded.prefs
        ops = [kept.remove(i) for i in loaded.unreadable]
        problem = loaded.problem
        # ... and started a conversation of its own; the saved one stays in the list.
        sent_first = state.turns or state.messages_taken
        conversation = None if sent_first else loaded.current
        pending = loaded.pending
        taken = False
        if pending is not None and not sent_first and pending.id == loaded.current_id:
            conversation = with_pending(conversation, pending, state.conversation_id)
            taken = True
        elif pending is not None:
            ops.append({"op": "untaken"})
        restored = conversation is not None and self._open(state, conversation)
        if conversation is not None and not restored:
            problem = True
            ops.append(kept.remove(conversation["id"]))
        settings = restored
        if not restored and not state.turns and loaded.prefs:
            # No conversation yet: the settings chosen before the reload come back alone.
            self._set_prefs(state, loaded.prefs)
            settings = True
        if problem:
            gr.Warning(t("history_unreadable", state.prefs.language))
        ops.append({"op": "current", "id": state.conversation_id})
        ops += kept.changes(state, taken=taken and restored)
        if taken and not restored:
            ops.append({"op": "untaken"})
        return self._whole(state, ops, settings)

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
        self.kept(state).held(state, conversation)
        return True

    def taking(self, take: Callable[..., Awaitable[tuple]]) -> Callable[..., Awaitable[tuple]]:
        """The page's `take` (box, taken, state), with the changes for the browser as a
        fourth output: the message that leaves the input is in them, its uploaded files
        with it, so a reload before its turn has started keeps its words and its images
        (they are prepared as the conversation is restored, `ui.history.restore`)."""

        async def taken(
            message: Any, state: Any, pressed: Any = None, request: gr.Request | None = None
        ) -> tuple:
            box, message_taken, state = await take(message, state, pressed, request)
            kept = self.kept(state)
            # Held back (a turn runs) or refused, the message carries no turn number.
            if not isinstance(message_taken, dict) or "turn" not in message_taken:
                return box, message_taken, state, kept.patch([{"op": "untaken"}])
            state.messages_taken += 1
            text = str(message_taken.get("text") or "")
            files = [file_path(f) for f in message_taken.get("files") or []]
            kept.pending = Pending(len(state.turns) + 1, text, files)
            return box, message_taken, state, kept.patch(kept.changes(state, taken=True))

        return taken

    def saving(
        self, run: Callable[..., AsyncGenerator[tuple, None]]
    ) -> Callable[..., AsyncGenerator[tuple, None]]:
        """A turn of the page's (`run(message, state)` yields chat, trace, state, status),
        with the changes for the browser as a fifth output: saved when the turn starts and
        each time one of its steps is done, so a reload while it runs keeps what it has
        done, the turn shown as stopped (`ui.history.restore`). The save after it ends
        (`save`) has the rest."""

        async def turn(message: Any, state: Any) -> AsyncGenerator[tuple, None]:
            record, looked = None, 0  # the running turn, and how many of its events were seen
            # The message this turn runs, as it was saved when taken: the turn stands for it
            # once it has started, and it goes when the turn ends if it never did.
            taken = self.kept(state).pending if isinstance(state, PageState) else None
            updates = run(message, state)
            try:
                async for update in updates:
                    current = update[2] if isinstance(update[2], PageState) else None
                    latest = None
                    if current is not None and current.running and current.turns:
                        latest = current.turns[-1]
                    # A turn is saved as it starts, then when a step of it has ended since
                    # the last update: only those events are looked at, as a turn streams many.
                    changed = latest is not None and latest is not record
                    if latest is not None and latest is record:
                        changed = any(e.type in _STEP_ENDS for e in latest.events[looked:])
                    if latest is not None:
                        record, looked = latest, len(latest.events)
                    if changed and current is not None:
                        kept = self.kept(current)
                        if kept.pending is taken:
                            kept.pending = None
                        ops = kept.changes(current)
                        yield (*update, kept.patch(ops) if ops else gr.skip())
                    else:
                        yield (*update, gr.skip())
                # The turn has committed to the conversation by now (`agent.session`): what it
                # left (a question's pending task, the history) is saved at once, not by the
                # save after the turn, so a reload right after its last words keeps them.
                if record is not None and isinstance(state, PageState) and not state.running:
                    kept = self.kept(state)
                    ops = kept.changes(state)
                    if ops:
                        yield (*[gr.skip()] * 4, kept.patch(ops))
            finally:
                # Closed at once, and everything it relays with it: a turn left suspended
                # would commit its stopped record only when collected.
                await updates.aclose()
                if taken is not None and self.kept(state).pending is taken:
                    self.kept(state).pending = None

        return turn

    def save(self, state: PageState | None, lost: Any = None) -> tuple:
        """The changes for the browser, with the page's conversation as it is now. Nothing
        while a turn runs: the turn saves itself as its steps end (`saving`), and again when
        it ends. `lost` names a conversation the browser could not apply a change to: the
        next change sends it whole."""
        if state is None:
            return gr.skip(), gr.skip()
        kept = self.kept(state)
        if lost and lost == state.conversation_id:
            kept.forget(lost)
        if state.running:
            return gr.skip(), gr.skip()
        return self._stored(state, kept.changes(state), again=False)

    def new(self, state: PageState | None) -> tuple:
        """A fresh conversation; the one shown goes to the list."""
        state, ops = self._leave(state)
        return self._whole(state, ops, False)

    def open(self, choice: str | None, state: PageState | None, sent: Any = None) -> tuple:
        """Open the past conversation `choice`, which the browser sent (`sent`)."""
        state = self.page.use(state)
        language = state.prefs.language
        kept = self.kept(state)
        if not choice:
            gr.Warning(t("pick_conversation", language))
            return self._whole(state, [], False)
        if not sent:
            gr.Warning(t("conversation_missing", language))
            return self._whole(state, [kept.remove(choice)], False)
        conversation = read_conversation(sent)
        # Another tab has it on its page: the browser sent a copy under an id of its own,
        # which this tab goes on with, so neither tab's turns overwrite the other's.
        copied = conversation is not None and conversation.get("copy_of") == choice
        if conversation is not None and conversation["id"] != choice and not copied:
            conversation = None
        state, ops = self._leave(state)
        if conversation is None or not self._open(state, conversation):
            gr.Warning(t("history_unreadable", language))
            return self._whole(state, [*ops, kept.remove(choice)], False)
        if copied:
            kept.forget(state.conversation_id)  # the browser keeps nothing under its id yet
            gr.Info(t("conversation_copied", language))
        ops.append({"op": "current", "id": state.conversation_id})
        return self._whole(state, ops + kept.changes(state), True)

    def delete(self, choice: str | None, state: PageState | None, held: Any = None) -> tuple:
        """Delete the past conversation `choice`; not one another tab has on its page
        (`held`, from the browser), whose next save would bring it back half."""
        state = self.page.use(state)
        kept = self.kept(state)
        if not choice or kept.find(choice) is None or choice == state.conversation_id:
            gr.Warning(t("pick_conversation", state.prefs.language))
            return self._stored(state, [])
        if held == "held":
            gr.Warning(t("conversation_open_elsewhere", state.prefs.language))
            return self._stored(state, [])
        return self._stored(state, [kept.remove(choice)])

    def clear(self, state: PageState | None) -> tuple:
        """Clear: the conversation goes from the page and from the browser."""
        state = self.page.use(state)
        kept = self.kept(state)
        cleared = state.conversation_id
        values = self.page.clear(state)
        kept.pending = None
        ops = [kept.remove(cleared), {"op": "current", "id": state.conversation_id}]
        kept.forget(state.conversation_id)
        return (*values, *self._stored(state, ops))

    def _leave(self, state: PageState | None) -> tuple[PageState, list[dict]]:
        """Stop what runs, keep the conversation in the list, and start a fresh one (a reload
        then shows it); returns the changes for the browser."""
        state = self.page.use(state)
        self.page.halt(state)
        kept = self.kept(state)
        kept.pending = None
        ops = kept.changes(state)
        state.start_over()
        ops.append({"op": "current", "id": state.conversation_id})
        return state, ops


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
    themselves as they go, through `History.taking` and `History.saving`). The page's script
    (`history_script`) must run as the page loads. A new, opened or cleared conversation
    ends a running turn through its state, as Stop does, never by cancelling its event."""
    stored = [parts.saved, parts.listed]
    shown = [parts.chatbot, parts.trace, state, parts.status, parts.download]
    whole = [*shown, *stored, *settings.values()]
    quiet: Quiet = {"api_visibility": "private", "show_progress": "hidden"}
    # Each change the server sends is applied in the browser, by the page's script alone.
    parts.saved.change(None, [parts.saved], None, js=_APPLY_JS, queue=False, **quiet)
    up = [state, parts.browser]
    loaded.then(history.load, up, whole, js=_LOAD_JS, **quiet)
    for event in saves:
        event.then(history.save, up, stored, js=_SAVE_JS, queue=False, **quiet)
    new = parts.new_btn.click(history.new, [state], whole, queue=False, **quiet)
    opened = parts.open_btn.click(
        history.open, [parts.listed, *up], whole, js=_OPEN_JS, queue=False, **quiet
    )
    deleting = [parts.listed, state, parts.browser]
    parts.delete_btn.click(history.delete, deleting, stored, js=_DELETE_JS, **quiet)
    parts.refresh.click(history.relist, deleting, [parts.listed], js=_LIST_JS, queue=False, **quiet)
    cleared = [parts.chatbot, parts.trace, state, parts.status, parts.box, parts.download]
    clear = parts.clear_btn.click(history.clear, [state], [*cleared, *stored], queue=False, **quiet)
    return [loaded, new, opened, clear]
