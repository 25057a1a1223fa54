"""Undo for Clear and Delete: for a few seconds after either, the page says what it did and
offers to take it back ("Conversation cleared. Undo clear"; "Deleted “Receipt total”. Undo
delete").

Clear keeps the conversation on the server a moment (`PageState.set_aside`: its turns and
trace, the agent's memory, its images, a call waiting for approval) while the browser's copy
goes; Undo makes it the page's again, drawn in the page's language, and sends it whole to the
browser. Delete has the browser keep the conversation under a mark (`assets/history.js`,
`trash`); Undo puts it back in the list. Either way the browser's list changes as it does
after a save, so another tab's list follows, and a reload after an undo shows what came back.

Each Clear and Delete keeps its own undo: several deletes are undone one by one, the latest
first, and a Clear stays undoable after a Delete (or a second Clear of the emptied page). Every
offer still standing runs UNDO_SECONDS from the latest Clear, Delete or Undo, so actions taken
one after another can all be taken back. A Clear's offer ends also as soon as the tab goes on (a
message sent, another conversation opened or started), and every offer with the page: what a
reload finds cleared or deleted stays so. While an offer stands, a timer on the page ticks
(`tick`) to take it away when it ends and let go of what was kept.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import gradio as gr

from ..labels import t
from ..page.state import PageState
from ..page.words import redraw

if TYPE_CHECKING:
    from .handlers import History
    from .kept import Kept

UNDO_SECONDS = 8.0
# An undo is still taken this long after the offer has left the page: the click may have been
# on its way.
GRACE_SECONDS = 2.0
# How often the timer ticks while an offer stands.
TICK_SECONDS = 1.0


class Undo:
    """The handlers of the two Undo buttons and of the timer; `history` is the panel's."""

    def __init__(self, history: History) -> None:
        self.history = history

    @staticmethod
    def _cleared(state: PageState, kept: Kept, now: float, grace: float = 0.0) -> bool:
        """Whether Clear can still be undone: in time, and nothing new in the tab since."""
        aside = state.aside
        if aside is None or now - aside.at >= UNDO_SECONDS + grace:
            return False
        return not state.turns and kept.pending is None

    @staticmethod
    def _deleted(kept: Kept, now: float, grace: float = 0.0) -> list[dict[str, Any]]:
        """The deleted conversations that can still be brought back, the latest last."""
        return [entry for entry, at in kept.deleted if now - at < UNDO_SECONDS + grace]

    def _renew(self, state: PageState, kept: Kept, now: float) -> None:
        """Every offer still standing runs UNDO_SECONDS from `now`."""
        if self._cleared(state, kept, now) and state.aside is not None:
            state.aside.at = now
        kept.deleted = [(e, now if now - at < UNDO_SECONDS else at) for e, at in kept.deleted]

    @staticmethod
    def _said(deleted: list[dict[str, Any]], language: str) -> str:
        """What the delete's offer says: the latest deleted, which its Undo brings back."""
        if not deleted:
            return ""
        entry, more = deleted[-1], len(deleted) - 1
        title = entry.get("title") or entry["id"]
        if more:
            return t("conversations_deleted", language).format(title=title, n=more)
        return t("conversation_deleted", language).format(title=title)

    def offer(self, state: PageState | None) -> tuple:
        """After Clear or Delete: clear's offer, delete's and what it says, and the timer."""
        if not isinstance(state, PageState):
            return gr.skip(), gr.skip(), gr.skip(), gr.skip()
        kept, now = self.history.kept(state), time.monotonic()
        self._renew(state, kept, now)
        cleared, deleted = self._cleared(state, kept, now), self._deleted(kept, now)
        timer = gr.Timer(TICK_SECONDS, active=cleared or bool(deleted))
        said = self._said(deleted, state.prefs.language)
        return gr.update(visible=cleared), gr.update(visible=bool(deleted)), said, timer

    def tick(self, state: PageState | None) -> tuple:
        """The changes for the browser, clear's offer, delete's, the timer: an offer that has
        ended leaves the page, and what it kept goes once its grace has passed too."""
        if not isinstance(state, PageState):
            return (
                gr.skip(),
                gr.update(visible=False),
                gr.update(visible=False),
                gr.Timer(active=False),
            )
        kept, now = self.history.kept(state), time.monotonic()
        if not self._cleared(state, kept, now, GRACE_SECONDS):
            state.drop_aside()
        ops = kept.purge(before=now - UNDO_SECONDS - GRACE_SECONDS)
        cleared, deleted = self._cleared(state, kept, now), self._deleted(kept, now)
        waiting = state.aside is not None or bool(kept.deleted)
        return (
            kept.patch(ops) if ops else gr.skip(),
            gr.skip() if cleared else gr.update(visible=False),
            gr.skip() if deleted else gr.update(visible=False),
            gr.skip() if waiting else gr.Timer(active=False),
        )

    def undo_clear(self, state: PageState | None) -> tuple:
        """Undo Clear: the conversation as it was, on the page and in the browser, drawn in
        the page's language (it may have changed since). Outputs: the panel's whole
        (`History._whole`), then clear's offer."""
        history = self.history
        state = history.page.use(state)
        kept, now = history.kept(state), time.monotonic()
        if not self._cleared(state, kept, now, GRACE_SECONDS):
            state.drop_aside()
            gr.Warning(t("undo_clear_gone", state.prefs.language))
            return (*history._whole(state, [], False), gr.update(visible=False))
        saved_at = state.aside.saved_at if state.aside is not None else None
        self._renew(state, kept, now)  # a delete's offer stands as long again
        state.take_back()
        redraw(state, state.prefs.language)
        kept.forget(state.conversation_id)  # the browser holds nothing of it: sent whole
        ops: list[dict[str, Any]] = [{"op": "current", "id": state.conversation_id}]
        ops += kept.changes(state, now=saved_at)
        return (*history._whole(state, ops, False), gr.update(visible=False))

    def undo_delete(self, state: PageState | None) -> tuple:
        """Undo Delete: the conversation last deleted back in the list; the offer stays for
        one deleted before it. Outputs: the changes for the browser, the list, delete's
        offer and what it says."""
        history = self.history
        state = history.page.use(state)
        kept, now = history.kept(state), time.monotonic()
        undone = kept.untrash() if self._deleted(kept, now, GRACE_SECONDS) else None
        if undone is None:
            ops = kept.purge()
            gr.Warning(t("undo_delete_gone", state.prefs.language))
            hidden = gr.update(visible=False)
            return (*history._stored(state, ops, again=False), hidden, gr.skip())
        self._renew(state, kept, now)  # the others, and a clear's, stand as long again
        deleted = self._deleted(kept, now)
        said = self._said(deleted, state.prefs.language)
        return (*history._stored(state, [undone]), gr.update(visible=bool(deleted)), said)
