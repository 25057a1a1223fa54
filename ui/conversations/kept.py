"""What the server knows of the conversations one page's browser keeps (`Kept`), and the
changes it sends so that the browser holds the page's conversation as it is.

The server sends changes, never the whole (`Kept.changes`): for the page's own conversation,
its small fields and, for each of its lists (turns, history, images), how many items the
browser drops from the front, how many of the rest it keeps and the items that follow. The
list of past conversations is the browser's, merged entry by entry; each tab has its own
current conversation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import Any

from agent.session import Turn

from ..page.state import PageState, TurnRecord
from .export import turn_status
from .listed import entry_label
from .snapshot import image_data, meta_of, stored_prefs, title_of, turn_data
from .stored import MAX_CONVERSATIONS, size_of

# One conversation as the browser keeps it: its oldest turns go past this. Most browsers give
# a site 5 million characters, shared by every conversation (the page's script makes room).
CONVERSATION_BYTES = 1_000_000
# A conversation's small fields (`snapshot.meta_of`), sent whole when one of them changes.
META = ("title", "task", "approval", "allowed_tools", "folder", "prefs")


@dataclass
class _Held:
    """One list of the page's conversation as the browser holds it: for each item, what it
    stands for (compared by identity: a turn's record, a remembered turn, an image's ref), its
    version, its size as stored and, for a turn, how many events it has."""

    owners: list[Any] = field(default_factory=list)
    versions: list[Any] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    # For a turn, how many events the browser holds of it.
    lengths: list[int] = field(default_factory=list)

    def diff(self, owners: list[Any], versions: list[Any]) -> tuple[int, int, int]:
        """(cut, keep, start): the browser drops the first `cut` items it holds, keeps the
        next `keep`, and adds `owners[start:]`. The browser's items may begin later in
        `owners` (older ones were left out for size) or earlier (older ones have gone)."""
        if not self.owners or not owners:
            return len(self.owners), 0, 0
        begin = _position(owners, self.owners[0])
        if begin is not None:
            cut, start = 0, begin
        else:
            cut = _position(self.owners, owners[0])
            if cut is None:
                return len(self.owners), 0, 0
            start = 0
        keep, held = 0, len(self.owners) - cut
        while (
            keep < held
            and start + keep < len(owners)
            and self.owners[cut + keep] is owners[start + keep]
            and self.versions[cut + keep] == versions[start + keep]
        ):
            keep += 1
        return cut, keep, start + keep


def _position(items: list[Any], item: Any) -> int | None:
    return next((i for i, x in enumerate(items) if x is item), None)


class Pending:
    """The message taken whose turn has not started: a turn that has not got anywhere,
    numbered as its turn will be (`ui.turn_runner`), its uploads not yet prepared."""

    def __init__(self, number: int, text: str, uploads: list[str]) -> None:
        self.number = number
        self.text = text
        self.uploads = uploads

    def data(self) -> dict[str, Any]:
        turn = {"number": self.number, "text": self.text, "images": [], "status": "running"}
        return {**turn, "uploads": self.uploads}


@dataclass
class Kept:
    """What the server knows of one page's saved conversations (`PageState.saved`): the
    browser's list as it loaded, kept up to date with what this page saves; what the browser
    holds of the page's conversation; and the settings last sent."""

    index: list[dict[str, Any]] = field(default_factory=list)
    prefs: dict[str, Any] = field(default_factory=dict)
    conversation: str | None = None  # the conversation the lists below are of
    turns: _Held = field(default_factory=_Held)
    history: _Held = field(default_factory=_Held)
    images: _Held = field(default_factory=_Held)
    meta: dict[str, Any] | None = None
    # The browser may hold another copy than the lists say (nothing sent yet, or it lost its
    # place): the next change replaces its copy whole.
    whole: bool = True
    pending: Pending | None = None
    seq: int = 0  # each patch is numbered: the page applies each once, in order
    shown: list[tuple[str, str]] | None = None  # the list as the page last showed it
    zone: tzinfo | None = None  # the browser's time zone, for the list's times (`listed`)
    # The conversations deleted from the list, the latest last, each with when its offer to
    # undo began (`time.monotonic`), while the browser keeps them for an undo (`trash`).
    deleted: list[tuple[dict[str, Any], float]] = field(default_factory=list)

    def forget(self, conversation: str | None = None) -> None:
        """Nothing is known of what the browser holds of `conversation`."""
        self.conversation = conversation
        self.turns, self.history, self.images = _Held(), _Held(), _Held()
        self.meta, self.whole = None, True

    def past(
        self, current: str | None, language: str = "en", now: float | None = None
    ) -> list[tuple[str, str]]:
        """(label, id) of each saved conversation but the page's own, newest first; the label
        says its title, its turns and when it was last used (`listed`)."""
        now = time.time() if now is None else now
        return [
            (entry_label(e, language, self.zone, now), e["id"])
            for e in self.index
            if e["id"] != current
        ]

    def find(self, conversation_id: str | None) -> dict[str, Any] | None:
        return next((e for e in self.index if e["id"] == conversation_id), None)

    def remove(self, conversation_id: str) -> dict[str, Any]:
        """The browser is to forget the conversation `conversation_id`: the change that says
        so."""
        self.index = [e for e in self.index if e["id"] != conversation_id]
        if conversation_id == self.conversation:
            self.forget(conversation_id)
        return {"op": "drop", "id": conversation_id}

    def trash(self, conversation_id: str) -> list[dict[str, Any]]:
        """Delete `conversation_id` from the list, the browser keeping it a moment so that
        `untrash` can bring it back; those deleted before it can still be brought back too
        (the oldest goes for good past MAX_CONVERSATIONS of them)."""
        entry = self.find(conversation_id)
        self.index = [e for e in self.index if e["id"] != conversation_id]
        if entry is not None:
            self.deleted.append((entry, time.monotonic()))
        ops = [{"op": "purge", "id": e["id"]} for e, _ in self.deleted[:-MAX_CONVERSATIONS]]
        del self.deleted[:-MAX_CONVERSATIONS]
        return [*ops, {"op": "trash", "id": conversation_id}]

    def untrash(self) -> dict[str, Any] | None:
        """The conversation last deleted, back in the list: the change that says so."""
        if not self.deleted:
            return None
        entry, _ = self.deleted.pop()
        self.index = [entry, *(e for e in self.index if e["id"] != entry["id"])]
        self.index.sort(key=lambda e: e["saved_at"], reverse=True)
        del self.index[MAX_CONVERSATIONS:]
        return {"op": "untrash", "id": entry["id"]}

    def purge(self, before: float | None = None) -> list[dict[str, Any]]:
        """The deleted conversations go for good: those whose offer began before `before`
        (`time.monotonic`), or all of them."""
        gone = [e for e, at in self.deleted if before is None or at < before]
        self.deleted = [(e, at) for e, at in self.deleted if before is not None and at >= before]
        return [{"op": "purge", "id": e["id"]} for e in gone]

    def patch(self, ops: list[dict[str, Any]]) -> str:
        self.seq += 1
        return json.dumps({"seq": self.seq, "ops": ops}, ensure_ascii=False)

    def held(self, state: PageState, data: dict[str, Any]) -> None:
        """The browser holds `data`, which `state` was just restored from: the lists match
        it, but for a last turn that was under way when it was saved (it is stopped now, and
        its uploads are images) and the images that are gone."""
        self.forget(state.conversation_id)
        self.whole = False
        self.meta = {name: data.get(name) for name in META}
        stored = data.get("turns") or []
        for record, turn in zip(state.turns, stored, strict=True):
            same = turn.get("status") == turn_status(record) and not turn.get("uploads")
            self.turns.owners.append(record)
            self.turns.versions.append(_version(record) if same else None)
            self.turns.sizes.append(size_of(turn))
            self.turns.lengths.append(len(turn.get("events") or ()))
        for remembered, turn in zip(state.session.history, data.get("history") or [], strict=True):
            self.history.owners.append(remembered)
            self.history.versions.append(None)
            self.history.sizes.append(size_of(turn))
            self.history.lengths.append(0)
        refs = {(ref.id, Path(ref.path).name): ref for ref in state.session.images.refs()}
        for image in data.get("images") or []:
            self.images.owners.append(refs.get((image["id"], image["path"]), object()))
            self.images.versions.append(None)
            self.images.sizes.append(size_of(image))
            self.images.lengths.append(0)

    def changes(
        self, state: PageState, now: float | None = None, taken: bool = False
    ) -> list[dict[str, Any]]:
        """What the browser is to change so that it holds the page's conversation as it is
        now: nothing, a `put` of what is new in it, or a `drop` when it has no turns left.
        `taken` says the message just taken is in it (the page forgets its own copy)."""
        ops: list[dict[str, Any]] = []
        prefs = stored_prefs(state.prefs)
        if prefs != self.prefs:
            self.prefs = prefs
            ops.append({"op": "prefs", "prefs": prefs})
        if state.conversation_id != self.conversation:
            self.forget(state.conversation_id)
        pending = [self.pending] if self.pending is not None else []
        if not state.turns and not pending:
            if self.turns.owners:
                ops.append(self.remove(state.conversation_id))
            return ops
        put = self._put(state, pending, time.time() if now is None else now)
        if put is not None:
            put["taken"] = taken
            ops.append(put)
        return ops

    def _put(self, state: PageState, pending: list[Pending], now: float) -> dict[str, Any] | None:
        session = state.session
        records: list[Any] = [*state.turns, *pending]
        first = records[0]
        meta = meta_of(state, title_of(first.text, state.prefs.language))
        lists: dict[str, list[Any]] = {}
        new: dict[str, _Held] = {}
        # Each list: what of it the browser holds, its owners, their versions, one's item.
        tables: list[tuple[str, _Held, list[Any], list[Any] | None, _Item]] = [
            ("turns", self.turns, records, [_version(r) for r in records], _turn_item),
            ("history", self.history, session.history, [None] * len(session.history), _memory),
            ("images", self.images, session.images.refs(), None, image_data),
        ]
        for name, held, owners, versions, data in tables:
            versions = versions or [None] * len(owners)
            cut, keep, start = held.diff(owners, versions)
            items = [data(owner) for owner in owners[start:]]
            new[name] = _Held(
                held.owners[cut : cut + keep] + owners[start:],
                held.versions[cut : cut + keep] + versions[start:],
                held.sizes[cut : cut + keep] + [size_of(i) for i in items],
                held.lengths[cut : cut + keep] + [len(i.get("events") or ()) for i in items],
            )
            if items and cut + keep < len(held.owners) and held.owners[cut + keep] is owners[start]:
                items[0] = _continued(items[0], held.lengths[cut + keep])
            lists[name] = [cut, keep, items]
        if not self._fits(lists["turns"], new, size_of(meta)):
            return self.remove(state.conversation_id) if self.turns.owners else None
        held = {"turns": self.turns, "history": self.history, "images": self.images}
        same = all(
            cut == 0 and not items and keep == len(held[name].owners)
            for name, (cut, keep, items) in lists.items()
        )
        if same and meta == self.meta and not self.whole:
            return None
        put = {"op": "put", "id": state.conversation_id, "whole": self.whole, "lists": lists}
        # Of the small fields, those that changed (all of them for a copy made whole).
        known = {} if self.whole or self.meta is None else self.meta
        changed = {k: v for k, v in meta.items() if k not in known or known[k] != v}
        put["meta"] = {**changed, "saved_at": now}
        self.turns, self.history, self.images = new["turns"], new["history"], new["images"]
        self.meta, self.whole = meta, False
        entry = {"id": state.conversation_id, "title": meta["title"], "saved_at": now}
        entry["turns"] = len(self.turns.owners)
        self.index = [entry, *(e for e in self.index if e["id"] != entry["id"])]
        del self.index[MAX_CONVERSATIONS:]
        return put

    @staticmethod
    def _fits(turns: list[Any], new: dict[str, _Held], meta_size: int) -> bool:
        """Leave out the oldest turns while the conversation is larger than a browser keeps
        of one (`turns` is the change to the browser's turns, made in place); False if even
        its last turn does not fit."""
        held = new["turns"]
        total = meta_size + sum(sum(h.sizes) for h in new.values())
        while total > CONVERSATION_BYTES and held.owners:
            total -= held.sizes.pop(0)
            held.owners.pop(0)
            held.versions.pop(0)
            held.lengths.pop(0)
            if turns[1] > 0:
                turns[0] += 1
                turns[1] -= 1
            else:
                turns[2].pop(0)
        return bool(held.owners)


def _continued(turn: dict[str, Any], held: int) -> dict[str, Any]:
    """`turn`, of which the browser holds `held` events, as a change to its copy: the events
    it holds but the last (which may have grown, `joined`) stay, and the rest follow."""
    if held < 1 or "events" not in turn:
        return turn
    return {**turn, "events": turn["events"][held - 1 :], "events_from": held - 1}


# What the browser keeps of one owner (a turn, a remembered turn, an image).
_Item = Callable[[Any], dict[str, Any]]


def _version(record: TurnRecord | Pending) -> Any:
    if isinstance(record, Pending):
        return "pending"
    return (len(record.events), turn_status(record), len(record.refs), len(record.gone))


def _turn_item(record: TurnRecord | Pending) -> dict[str, Any]:
    return record.data() if isinstance(record, Pending) else turn_data(record)


def _memory(turn: Turn) -> dict[str, Any]:
    return turn.model_dump(mode="json")
