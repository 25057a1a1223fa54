"""A browser's storage, with the page's own script in it (`assets/history.js`, run by Node),
for tests that call the page's handlers directly: what a handler sends the page is applied as
the page applies it, and what the page sends up is what its script builds.

    with BrowserStorage() as browser:
        tab = browser.tab("one")
        tab.apply(patch)             # a handler's changes for the browser (gr.skip() is none)
        panel.load(state, tab.payload())
        browser.kept(tab)            # what the tab's conversation and the list look like now
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ui.conversations.panel import SCRIPT, STORAGE_PREFIX, script_settings

HARNESS = Path(__file__).with_name("history_browser.js")
INDEX = STORAGE_PREFIX + "index"
CONVERSATION = STORAGE_PREFIX + "c/"
CURRENT = STORAGE_PREFIX + "current"
PENDING = STORAGE_PREFIX + "pending"


class BrowserStorage:
    """One browser: a localStorage shared by its tabs (of `limit` characters), and a
    sessionStorage each."""

    def __init__(self, limit: int = 5_000_000) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.skip("Node is not installed")
        self._node = subprocess.Popen(
            [node, str(HARNESS), str(SCRIPT), json.dumps(script_settings()), str(limit)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def __enter__(self) -> BrowserStorage:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._node.poll() is None:
            self._node.stdin.close()
            self._node.wait(timeout=10)

    def send(self, command: dict[str, Any]) -> Any:
        assert self._node.stdin is not None and self._node.stdout is not None
        self._node.stdin.write(json.dumps(command, ensure_ascii=False) + "\n")
        self._node.stdin.flush()
        answer = json.loads(self._node.stdout.readline())
        if "error" in answer:
            raise AssertionError(f"the page's script failed: {answer['error']}")
        return answer["ok"]

    def tab(self, name: str = "tab") -> Tab:
        return Tab(self, name)

    def local(self) -> dict[str, str]:
        return self.send({"cmd": "dump"})["local"]

    def set(self, key: str, value: str | None) -> None:
        self.send({"cmd": "set", "key": key, "value": value})

    def kept(self, tab: Tab) -> dict[str, Any]:
        """What the browser keeps, as one value: the tab's current conversation's id, every
        conversation in the list's order (newest first), and the page's settings."""
        local = self.local()
        index = json.loads(local.get(INDEX, "null")) or {"conversations": []}
        conversations = [
            json.loads(local[CONVERSATION + e["id"]])
            for e in index["conversations"]
            if CONVERSATION + e["id"] in local
        ]
        current = self.send({"cmd": "dump"})["sessions"].get(tab.name, {}).get(CURRENT)
        return {"current": current, "conversations": conversations, "prefs": index.get("prefs")}


class Tab:
    """One tab of the browser, with the page's script loaded."""

    def __init__(self, browser: BrowserStorage, name: str) -> None:
        self.browser = browser
        self.name = name
        browser.send({"cmd": "reload", "tab": name})

    def _call(self, cmd: str, *args: Any) -> Any:
        return self.browser.send({"cmd": cmd, "tab": self.name, "args": list(args)})

    def apply(self, patch: Any) -> None:
        """Apply a handler's output for the browser (a `gr.skip()` is nothing)."""
        if isinstance(patch, str):
            self._call("apply", patch)

    def payload(self) -> str:
        return self._call("payload")

    def index(self) -> str:
        return self._call("index")

    def conversation(self, conversation_id: str) -> str:
        return self._call("conversation", conversation_id)

    def sending(self, message: dict[str, Any]) -> None:
        files = [{"path": str(f)} for f in message.get("files") or []]
        self._call("sending", {"text": message.get("text") or "", "files": files})

    def lost(self) -> str:
        return self._call("lost")

    def held_elsewhere(self, conversation_id: str) -> bool:
        return self._call("heldElsewhere", conversation_id)

    def reload(self) -> None:
        self.browser.send({"cmd": "reload", "tab": self.name})
