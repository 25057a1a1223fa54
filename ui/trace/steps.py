"""The trace panel's messages of one turn: the turn's own message, and each step a message
nested under it, found by its key.

A trace message is a chat-message dict (`role`, `content`, `metadata` with `title`, `id`,
`parent_id`, `status`, `duration`, `log`), the format a messages chatbot renders as foldable,
nestable steps; `ui.trace.view.TurnView` says what each event adds or changes.
"""

from __future__ import annotations

from typing import Any


class TraceSteps:
    """The messages of the turn `turn_id`, in order, and each by its key."""

    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self.messages: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        # Thought messages still pending, so closing them does not walk the whole trace.
        self._open_thoughts: list[dict[str, Any]] = []
        # Each call's content before its result, so a result replaces rather than piles up.
        self.call_heads: dict[str, str] = {}
        self._seq = 0

    def add(
        self,
        key: str,
        title: str,
        content: Any,
        *,
        status: str | None = "done",
        log: str | None = None,
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {"title": title, "id": key}
        if key != self.turn_id:
            meta.update(id=f"{self.turn_id}/{key}", parent_id=self.turn_id)
        if status:
            meta["status"] = status
        if log:
            meta["log"] = log
        message = {"role": "assistant", "content": content, "metadata": meta}
        self.messages.append(message)
        self.by_id[key] = message
        self.call_heads.pop(key, None)  # a call made again under its id starts afresh
        if key.startswith("thought-") and status == "pending":
            self._open_thoughts.append(message)
        return message

    def add_new(self, kind: str, title: str, content: Any) -> dict[str, Any]:
        """A finished message of `kind` under a key of its own, which nothing looks up again."""
        self._seq += 1
        return self.add(f"{kind}-{self._seq}", title, content)

    def close_thoughts(self) -> None:
        for message in self._open_thoughts:
            meta = message["metadata"]
            if meta.get("status") == "pending":
                meta["status"] = "done"
        self._open_thoughts.clear()

    def stop(self, stopped: str) -> None:
        """Mark what was still running as done, each step's log saying `stopped`, and the
        turn's own too."""
        for message in self.messages:
            meta = message["metadata"]
            if meta.get("status") == "pending":
                meta["status"] = "done"
                if meta.get("id") != self.turn_id:
                    meta["log"] = stopped
        self.by_id[self.turn_id]["metadata"]["log"] = stopped
