"""The saved conversations' handlers (`History`): restore this tab's conversation as the page
loads, save the page's changes as its turns go, and open, delete, start or clear one.

The server keeps what it knows of the browser's copy (`PageState.saved`, a
`ui.conversations.kept.Kept`), so a turn sends nothing up from the browser; the panel and its
wiring are `ui.conversations.panel`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import gradio as gr

from ..access import shown_url
from ..labels import t
from ..page.state import PageState
from ..page.values import page_values
from ..turn_runner import file_path
from .kept import Kept, Pending
from .listed import browser_zone
from .restore import restore
from .stored import (
    MAX_CONVERSATIONS,
    prefs_of,
    read_conversation,
    read_listed,
    read_loaded,
    with_pending,
)

if TYPE_CHECKING:
    from ..handlers import PageHandlers

# The events after which a running turn is saved again: those that end a step or a part of it
# (`History.saving`).
_STEP_ENDS = frozenset({"run_started", "model_call", "thought", "tool_result", "ask_user"})


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
        choices = kept.past(state.conversation_id, state.prefs.language)
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
        choices = kept.past(state.conversation_id, state.prefs.language)
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
        kept.zone = browser_zone(loaded.zone, loaded.offset)
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
        if settings:
            # What was wrong with the settings before the reload is said again under them
            # (a field's change says only what was said already).
            state.problems_shown = set(state.setting_problems)
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
        (they are prepared as the conversation is restored, `ui.conversations.restore`)."""

        async def taken(
            message: Any, state: Any, pressed: Any = None, request: gr.Request | None = None
        ) -> tuple:
            box, message_taken, state = await take(message, state, pressed, request)
            kept = self.kept(state)
            # Held back (a turn runs) or refused, the message carries no turn number.
            if not self.page.starts_turn(message_taken):
                return box, message_taken, state, kept.patch([{"op": "untaken"}])
            state.messages_taken += 1
            text = str(message_taken.get("text") or "")
            files = [file_path(f) for f in message_taken.get("files") or []]
            kept.pending = Pending(state.next_number(), text, files)
            return box, message_taken, state, kept.patch(kept.changes(state, taken=True))

        return taken

    def saving(
        self, run: Callable[..., AsyncGenerator[tuple, None]]
    ) -> Callable[..., AsyncGenerator[tuple, None]]:
        """A turn of the page's (`run(message, state)` yields chat, trace, state, status),
        with the changes for the browser as a fifth output: saved when the turn starts and
        each time one of its steps is done, so a reload while it runs keeps what it has
        done, the turn shown as stopped (`ui.conversations.restore`). The save after it ends
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
        """Delete the past conversation `choice`, undoably for a few seconds
        (`ui.conversations.undo`); not one another tab has on its page (`held`, from the
        browser), whose next save would bring it back half."""
        state = self.page.use(state)
        kept = self.kept(state)
        if not choice or kept.find(choice) is None or choice == state.conversation_id:
            gr.Warning(t("pick_conversation", state.prefs.language))
            return self._stored(state, [])
        if held == "held":
            gr.Warning(t("conversation_open_elsewhere", state.prefs.language))
            return self._stored(state, [])
        return self._stored(state, kept.trash(choice))

    def clear(self, state: PageState | None) -> tuple:
        """Clear: the conversation goes from the page and from the browser, the page keeping
        it a few seconds for an undo (`ui.conversations.undo`)."""
        state = self.page.use(state)
        kept = self.kept(state)
        cleared = state.conversation_id
        entry = kept.find(cleared)
        if kept.pending is not None:
            state.drop_aside()  # a message was sent since the Clear before: it has gone on
        values = self.page.clear(state, undoable=True)
        if state.aside is not None and entry is not None:
            state.aside.saved_at = entry["saved_at"]
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
