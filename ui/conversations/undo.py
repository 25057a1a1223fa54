"""Undo for Clear and Delete: for a few seconds after either, the page says what it did and
offers to take it back ("Conversation cleared. Undo").

Clear keeps the conversation on the server a moment (`PageState.set_aside`: its turns and
trace, the agent's memory, its images, a call waiting for approval) while the browser's copy
goes; Undo makes it the page's again and sends it whole to the browser. Delete has the browser
keep the conversation under a mark (`assets/history.js`, `trash`); Undo puts it back in the
list. Either way the browser's list changes as it does after a save, so another tab's list
follows, and a reload after an undo shows what came back.

The offer ends after UNDO_SECONDS; a Clear's also as soon as the tab goes on (a message sent,
another conversation opened or started), and both with the page: what a reload finds cleared
or deleted stays so. While an offer stands, a timer on the page ticks (`tick`) to take it
away when it ends and let go of what was kept.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import gradio as gr

from ..labels import t
from ..page.state import PageState

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
    def _deleted(kept: Kept, now: float, grace: float = 0.0) -> bool:
        return kept.deleted is not None and now - kept.deleted[1] < UNDO_SECONDS + grace

    def offer(self, state: PageState | None) -> tuple:
        """After Clear or Delete: the offers that stand (clear's, delete's), and the timer."""
        if not isinstance(state, PageState):
            return gr.skip(), gr.skip(), gr.skip()
        kept, now = self.history.kept(state), time.monotonic()
        cleared, deleted = self._cleared(state, kept, now), self._deleted(kept, now)
        timer = gr.Timer(TICK_SECONDS, active=cleared or deleted)
        return gr.update(visible=cleared), gr.update(visible=deleted), timer

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
        ops = [] if self._deleted(kept, now, GRACE_SECONDS) else kept.purge()
        cleared, deleted = self._cleared(state, kept, now), self._deleted(kept, now)
        waiting = state.aside is not None or kept.deleted is not None
        return (
            kept.patch(ops) if ops else gr.skip(),
            gr.skip() if cleared else gr.update(visible=False),
            gr.skip() if deleted else gr.update(visible=False),
            gr.skip() if waiting else gr.Timer(active=False),
        )

    def undo_clear(self, state: PageState | None) -> tuple:
        """Undo Clear: the conversation as it was, on the page and in the browser. Outputs:
        the panel's whole (`History._whole`), then clear's offer."""
        history = self.history
        state = history.page.use(state)
        kept = history.kept(state)
        if not self._cleared(state, kept, time.monotonic(), GRACE_SECONDS):
            state.drop_aside()
            gr.Warning(t("undo_clear_gone", state.prefs.language))
            return (*history._whole(state, [], False), gr.update(visible=False))
        saved_at = state.aside.saved_at if state.aside is not None else None
        state.take_back()
        kept.forget(state.conversation_id)  # the browser holds nothing of it: sent whole
        ops: list[dict[str, Any]] = [{"op": "current", "id": state.conversation_id}]
        ops += kept.changes(state, now=saved_at)
        return (*history._whole(state, ops, False), gr.update(visible=False))

    def undo_delete(self, state: PageState | None) -> tuple:
        """Undo Delete: the conversation back in the list. Outputs: the changes for the
        browser, the list, delete's offer."""
        history = self.history
        state = history.page.use(state)
        kept = history.kept(state)
        undone = kept.untrash() if self._deleted(kept, time.monotonic(), GRACE_SECONDS) else None
        if undone is None:
            ops = kept.purge()
            gr.Warning(t("undo_delete_gone", state.prefs.language))
            return (*history._stored(state, ops, again=False), gr.update(visible=False))
        return (*history._stored(state, [undone]), gr.update(visible=False))
