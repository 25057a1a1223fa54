"""The page's words: the trace panel's labels, and the page text kept in assets/ui_text.json."""

from __future__ import annotations

import json
from pathlib import Path

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

# The page's own words, English and Chinese, kept beside the other assets.
UI_TEXT: dict[str, dict[str, str]] = json.loads(
    (Path(__file__).resolve().parent.parent / "assets" / "ui_text.json").read_text("utf-8")
)


def t(key: str, language: str) -> str:
    return UI_TEXT.get(language, UI_TEXT["en"])[key]
