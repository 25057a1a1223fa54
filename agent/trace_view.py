"""Agent events -> what the page shows: trace-panel messages and the answer text.

Pure data, no gradio: a trace message is a chat-message dict (`role`, `content`, `metadata` with
`title`, `id`, `parent_id`, `status`, `duration`, `log`), the format a messages chatbot renders
as foldable, nestable steps. `TurnView.apply(event)` is the one place an event becomes a change
on the page; `render(events)` replays a whole turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "turn": "Turn {n}",
        "model": "Model",
        "offline": "offline demo model",
        "images": "Images",
        "thinking": "Thinking…",
        "thought": "Thought",
        "tool": "Tool",
        "running": "running…",
        "arguments": "Arguments",
        "result": "Result",
        "failed": "failed",
        "made_image": "Image {id} ({w}×{h})",
        "retry": "Retry",
        "notice": "Notice",
        "task": "Task",
        "known": "Known",
        "missing": "Missing",
        "nothing": "nothing",
        "asked": "Asked the user",
        "error": "Error",
        "stats": "{calls} model call(s) · {seconds:.1f} s",
        "calls": "{calls} model call(s)",
        "stopped": "Stopped",
        "stopped_text": "Stopped before it finished.",
        "status": {
            "collecting": "collecting",
            "calling": "calling",
            "done": "done",
            "cleared": "cleared",
            "ended": "ended",
        },
    },
    "zh": {
        "turn": "第 {n} 轮",
        "model": "模型",
        "offline": "离线演示模型",
        "images": "图片",
        "thinking": "思考中…",
        "thought": "思考",
        "tool": "工具",
        "running": "运行中…",
        "arguments": "参数",
        "result": "结果",
        "failed": "失败",
        "made_image": "图片 {id}（{w}×{h}）",
        "retry": "重试",
        "notice": "提示",
        "task": "任务",
        "known": "已知",
        "missing": "缺少",
        "nothing": "无",
        "asked": "向用户提问",
        "error": "错误",
        "stats": "{calls} 次模型调用 · {seconds:.1f} 秒",
        "calls": "{calls} 次模型调用",
        "stopped": "已停止",
        "stopped_text": "在完成前被停止。",
        "status": {
            "collecting": "收集参数",
            "calling": "调用中",
            "done": "完成",
            "cleared": "已清除",
            "ended": "已结束",
        },
    },
}

_ACTION_CUT = re.compile(r"\n?\s*(Action\s*Input|Action|Answer|Final Answer)\s*[:：]", re.I)
_THOUGHT_LABEL = re.compile(r"^\s*Thought\s*[:：]\s*", re.I)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _block(value: Any) -> str:
    return f"```json\n{_json(value)}\n```"


def streaming_thought(raw: str) -> str:
    """The Thought part of a step's text while it streams: no label, nothing from Action on."""
    match = _ACTION_CUT.search(raw)
    return _THOUGHT_LABEL.sub("", raw[: match.start()] if match else raw).strip()


class TurnView:
    """The trace messages and the answer of one turn, updated event by event.

    `messages` nest under one turn message (`id` `turn-<n>`), which stays open while the turn
    runs and folds when it finishes; each step folds when it is done, so the latest is in view.
    """

    def __init__(self, number: int = 1, language: str = "en", question: str = "") -> None:
        self.number = number
        self.words = LABELS.get(language, LABELS["en"])
        self.turn_id = f"turn-{number}"
        self.messages: list[dict[str, Any]] = []
        self.answer = ""
        self.final: Any = None
        self.model = ""
        self.offline = False
        self.stats: Any = None
        self.notices: list[str] = []
        self.images: list[Any] = []
        self._by_id: dict[str, dict[str, Any]] = {}
        self._raw: dict[int, str] = {}
        self._seq = 0
        title = self.words["turn"].format(n=number)
        if question:
            title += f": {_snippet(question)}"
        self._add(self.turn_id, title, "", status="pending", parent=False)

    # -- the mapping ------------------------------------------------------------------------------

    def apply(self, event: Any) -> None:
        w = self.words
        match event.type:
            case "run_started":
                self.model, self.offline = event.model, event.offline
                self.images = list(event.images)
                offline = f" ({w['offline']})" if _needs_label(event) else ""
                lines = [f"**{w['model']}:** {event.model}{offline}"]
                if event.images:
                    shown = ", ".join(f"{i.id} {i.width}×{i.height}" for i in event.images)
                    lines.append(f"**{w['images']}:** {shown}")
                turn = self._by_id[self.turn_id]
                turn["content"] = "\n\n".join(lines)
                turn["metadata"]["log"] = event.model
            case "notice":
                self.notices.append(event.message)
                self._add(self._next("notice"), w["notice"], event.message, status="done")
            case "model_delta":
                self._raw[event.step] = self._raw.get(event.step, "") + event.text
                thought = streaming_thought(self._raw[event.step])
                key = f"thought-{event.step}"
                if key in self._by_id:
                    self._by_id[key]["content"] = thought or w["thinking"]
                elif thought:
                    self._add(key, f"{w['thought']} {event.step}", thought, status="pending")
            case "thought":
                key = f"thought-{event.step}"
                if key not in self._by_id:
                    self._add(key, f"{w['thought']} {event.step}", "")
                message = self._by_id[key]
                message["content"] = event.text
                message["metadata"]["status"] = "done"
            case "tool_call":
                self._close_thoughts()
                content = f"**{w['arguments']}**\n{_block(event.arguments)}"
                self._add(
                    f"call-{event.call_id}",
                    f"{w['tool']}: {event.tool}",
                    content,
                    status="pending",
                    log=w["running"],
                )
            case "tool_progress":
                message = self._by_id.get(f"call-{event.call_id}")
                if message is not None:
                    message["metadata"]["log"] = event.message
            case "tool_result":
                self._tool_result(event)
            case "step_retry":
                title = f"{w['retry']} ({w['thought']} {event.step})"
                self._add(self._next("retry"), title, event.reason, status="done")
            case "task_state":
                self._task_state(event)
            case "ask_user":
                self.final = event
                self.answer = event.question
                self._add(self._next("ask"), w["asked"], event.question, status="done")
            case "answer_delta":
                self.answer += event.text
            case "answer":
                self.final = event
                self.answer = event.text
            case "error":
                self.final = event
                self.answer = event.message
                self._add(self._next("error"), w["error"], event.message, status="done")
            case "run_finished":
                self.stats = event
                self._close_thoughts()
                turn = self._by_id[self.turn_id]
                turn["metadata"].update(
                    status="done",
                    duration=round(event.duration, 2),
                    # The duration shows beside the title already.
                    log=f"{event.model} · " + w["calls"].format(calls=event.model_calls),
                )
            case _:
                pass

    def stop(self) -> None:
        """Mark what was still running as stopped (the person pressed Stop)."""
        w = self.words
        for message in self.messages:
            meta = message["metadata"]
            if meta.get("status") == "pending":
                meta["status"] = "done"
                if meta.get("id") != self.turn_id:
                    meta["log"] = w["stopped"]
        turn = self._by_id[self.turn_id]
        turn["metadata"]["log"] = w["stopped"]
        self._add(self._next("stopped"), w["stopped"], w["stopped_text"], status="done")
        if not self.answer:
            self.answer = w["stopped_text"]

    @property
    def done(self) -> bool:
        return self.final is not None

    @property
    def stats_line(self) -> str:
        """`model · N model call(s) · S s` once the turn has finished, else ''."""
        if self.stats is None:
            return ""
        s = self.stats
        label = f" ({self.words['offline']})" if _needs_label(s, self.offline) else ""
        stats = self.words["stats"].format(calls=s.model_calls, seconds=s.duration)
        return f"{s.model}{label} · {stats}"

    # -- helpers ----------------------------------------------------------------------------------

    def _tool_result(self, event: Any) -> None:
        w = self.words
        key = f"call-{event.call_id}"
        if key not in self._by_id:
            self._add(key, f"{w['tool']}: {event.tool}", "")
        message = self._by_id[key]
        label = w["result"] if event.ok else f"{w['result']} ({w['failed']})"
        text = event.text if event.ok else (event.error or event.text)
        body = f"{message['content']}\n\n**{label}**\n\n{text}".strip()
        paths = [i.path for i in event.images if i.path]
        message["content"] = [body, *({"path": p} for p in paths)] if paths else body
        message["metadata"].update(
            title=f"{w['tool']}: {event.tool}" + ("" if event.ok else f" ({w['failed']})"),
            status="done",
            duration=round(event.duration, 2),
            log="" if event.ok else w["failed"],
        )
        for image in event.images:
            self.images.append(image)

    def _task_state(self, event: Any) -> None:
        w = self.words
        key = "task"
        if key not in self._by_id and event.status in ("calling", "done"):
            # A tool called with everything it needs is shown by its own step; the task panel
            # is for a dialogue: something was missing, in this turn or an earlier one.
            return
        known = ", ".join(f"{k} = {v}" for k, v in event.known.items()) or w["nothing"]
        missing = ", ".join(event.missing) or w["nothing"]
        content = f"**{w['known']}:** {known}\n\n**{w['missing']}:** {missing}"
        title = f"{w['task']}: {event.tool or '—'}"
        status_word = w["status"].get(event.status, event.status)
        if key in self._by_id:
            message = self._by_id[key]
            message["content"] = content
            message["metadata"].update(title=title, log=status_word)
        else:
            self._add(key, title, content, status="done", log=status_word)

    def _close_thoughts(self) -> None:
        for message in self.messages:
            meta = message["metadata"]
            if "/thought-" in str(meta.get("id", "")) and meta.get("status") == "pending":
                meta["status"] = "done"

    def _next(self, kind: str) -> str:
        self._seq += 1
        return f"{kind}-{self._seq}"

    def _add(
        self,
        key: str,
        title: str,
        content: Any,
        *,
        status: str | None = "done",
        log: str | None = None,
        parent: bool = True,
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {"title": title, "id": f"{self.turn_id}/{key}"}
        if key == self.turn_id:
            meta["id"] = self.turn_id
        if parent:
            meta["parent_id"] = self.turn_id
        if status:
            meta["status"] = status
        if log:
            meta["log"] = log
        message = {"role": "assistant", "content": content, "metadata": meta}
        self.messages.append(message)
        self._by_id[key] = message
        return message


def _needs_label(event: Any, offline: bool | None = None) -> bool:
    """Whether the model's name needs 'offline' beside it to say so."""
    offline = getattr(event, "offline", False) if offline is None else offline
    return bool(offline) and "offline" not in event.model.lower()


def _snippet(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def user_message(text: str, image_paths: Iterable[str] = ()) -> dict[str, Any]:
    """The person's turn in the conversation: their words and their images as thumbnails."""
    content: list[Any] = [{"path": p} for p in image_paths]
    if text.strip():
        content.insert(0, text)
    return {"role": "user", "content": content or [""]}


def render(events: Iterable[Any], number: int = 1, language: str = "en", question: str = ""):
    """Replay a whole turn; returns the finished `TurnView`."""
    view = TurnView(number, language, question)
    for event in events:
        view.apply(event)
    return view
