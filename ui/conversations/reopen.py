"""Opening a downloaded conversation (the chat's zip) in the chat, to go on with it.

The file is read and its images checked as uploads off the event loop
(`agent.conversation_file.reopen`); what it holds becomes a conversation as the browser keeps
one (`ui.conversations.stored`) under a new id, and opens as a past conversation opens
(`History.open`): a turn running in the tab ends, the conversation shown goes to the list, the
opened one takes its place and the browser keeps it at once. The settings stay as they are.

A file that cannot be opened is one sentence saying why, and nothing changes: the conversation
shown, what the input holds and the settings stay. So is one larger than the browser keeps of a
conversation.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr

from agent.conversation_file.reader import UnreadableFile
from agent.conversation_file.reopen import RefusedImage, Reopened, reopen_conversation

from ..labels import t
from ..page.state import PageState, sessions_root
from ..turn_runner import file_path
from .kept import CONVERSATION_BYTES
from .snapshot import image_data, stored_prefs, title_of
from .stored import read_conversation, size_of

if TYPE_CHECKING:
    from .handlers import History

log = logging.getLogger(__name__)


def stored_form(opened: Reopened, conversation_id: str, folder: str) -> dict[str, Any]:
    """The opened conversation as the browser keeps one, its images' files in the session
    folder `folder` (`ui.conversations.restore` takes them from there)."""
    return {
        "id": conversation_id,
        "turns": opened.turns,
        "history": [turn.model_dump(mode="json") for turn in opened.history],
        "task": opened.task.model_dump(mode="json") if opened.task else None,
        "approval": opened.approval.model_dump(mode="json") if opened.approval else None,
        "images": [image_data(ref) for ref in opened.images],
        "folder": folder,
    }


def sentence(problem: UnreadableFile, language: str) -> str:
    """Why the file cannot be opened in the chat, in `language`."""
    if isinstance(problem, RefusedImage):
        if problem.rejected is None:
            return t("reopen_image_missing", language).format(id=problem.image_id)
        reason = problem.rejected.said(language)
        return t("reopen_bad_image", language).format(id=problem.image_id, reason=reason)
    if problem.reason == "not_conversation":
        return t("reopen_not_conversation", language)
    return t(f"viewer_{problem.reason}", language)


def kept_size(conversation: dict[str, Any], state: PageState) -> int:
    """How much of the browser's room for one conversation (`kept.CONVERSATION_BYTES`) the
    opened `conversation` takes, with the small fields it is kept with (`snapshot.meta_of`)."""
    turns = conversation["turns"]
    title = title_of(turns[0]["text"] if turns else "", state.prefs.language)
    meta = {"title": title, "allowed_tools": [], "prefs": stored_prefs(state.prefs)}
    return size_of({**conversation, **meta})


def _read(path: Path, folder: Path, state: PageState) -> dict[str, Any]:
    """The conversation in the file, as the browser will keep it; `UnreadableFile`. One the
    browser could not keep whole is refused: it would keep its latest turns only, and a
    reload would lose the first ones and number the next turn as one it has."""
    opened = reopen_conversation(path, folder, state.env)
    conversation = stored_form(opened, state.conversation_id, folder.name)
    size = kept_size(conversation, state)
    if size > CONVERSATION_BYTES:
        raise UnreadableFile("too_big", f"{size:,} bytes as the browser keeps it")
    if read_conversation(conversation) is None:
        raise UnreadableFile("not_conversation", "not a conversation as the page keeps one")
    return conversation


class Reopener:
    """The handler of "Open a downloaded conversation" (`ui.conversations.panel`)."""

    def __init__(self, history: History) -> None:
        self.history = history

    async def open(self, file: Any, state: PageState | None) -> tuple:
        """Open the uploaded `file` in the chat. Outputs as `History.open`'s."""
        unchanged = tuple(gr.skip() for _ in range(7 + len(self.history.setting_names)))
        state = self.history.page.use(state)
        language = state.prefs.language
        if not file:
            return unchanged
        path = Path(file_path(file))
        # A session folder of its own, named as the server names them: the browser's copy
        # of a conversation is restored from such a folder.
        folder = Path(tempfile.mkdtemp(prefix="session-", dir=sessions_root()))
        try:
            try:
                conversation = await asyncio.to_thread(_read, path, folder, state)
            except UnreadableFile as exc:
                log.info("a downloaded conversation could not be opened: %s", exc)
                gr.Warning(f"{path.name}: {sentence(exc, language)}")
                return unchanged
            return await asyncio.to_thread(self._take, state, conversation)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)

    def _take(self, state: PageState, conversation: dict[str, Any]) -> tuple:
        """Make the page's conversation the opened one, under the new id the page starts."""
        history = self.history
        state, ops = history._leave(state)
        conversation = {**conversation, "id": state.conversation_id}
        if not history._open(state, conversation):
            gr.Warning(t("reopen_not_conversation", state.prefs.language))
            return history._whole(state, ops, False)
        kept = history.kept(state)
        kept.forget(state.conversation_id)  # the browser keeps nothing under its id yet
        ops.append({"op": "current", "id": state.conversation_id})
        if left_out := _left_out(conversation):
            ids = ", ".join(left_out[:5]) + ("…" if len(left_out) > 5 else "")
            gr.Warning(t("reopen_left_out", state.prefs.language).format(ids=ids))
        return history._whole(state, ops + kept.changes(state), False)


def _left_out(conversation: dict[str, Any]) -> list[str]:
    """The ids of images the turns show that the file did not hold as it said it did."""
    held = {image.get("id") for image in conversation.get("images") or ()}
    named = (i for turn in conversation["turns"] for i in turn.get("images") or ())
    return [i for i in dict.fromkeys(named) if i not in held]
