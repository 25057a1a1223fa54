"""The page's words: the trace panel's labels, and the page text kept in assets/ui_text.json.

The page text reaches the browser through Gradio's I18n and follows the browser's language; the
trace labels and the status line are made on the server and follow the session's language,
which starts as the browser's (`browser_language`) and changes with the Language setting.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.config import Language
from agent.models.offline import NAME as OFFLINE_NAME
from agent.tokens import Tokens

LABELS: dict[str, dict[str, Any]] = {
    "en": {
        "turn": "Turn {n}",
        "model": "Model",
        "offline": "offline demo model",
        "images": "Images",
        "thinking": "Thinking…",
        "silent": "Waiting for the model · {s} s",
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
        "approval": "Approval needed",
        "decision": {
            "approve": "Approved",
            "edit": "Approved with edits",
            "deny": "Denied",
            "cancel": "Dropped for a new message",
        },
        "always": "Always allowed in this conversation from now on.",
        "by_policy": "Decided by the run's approval policy.",
        "protocol": {"react": "ReAct text", "native": "native tool calls"},
        # How images go to the model (Settings' Images to the model, and what it showed).
        "vision": {
            "on": "images always sent",
            "off": "images not sent",
            "text": "text only: tools look at images",
            "sees": "takes images",
        },
        "error": "Error",
        "calls": ("{calls} model call", "{calls} model calls"),
        "tool_calls": ("{calls} tool call", "{calls} tool calls"),
        "ms": "{ms} ms",
        "seconds": "{seconds} s",
        "minutes": "{minutes} min {seconds} s",
        "stopped": "Stopped",
        "stopped_text": "Stopped before it finished.",
        "transcript": "Conversation",
        "you": "You",
        "answer": "Answer",
        # Punctuation differs too: Chinese text takes full-width colons and brackets.
        "named": "{}: {}",
        "field": "**{}:** {}",
        "aside": " ({})",
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
        "silent": "等待模型回应 · {s} 秒",
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
        "approval": "需要批准",
        "decision": {
            "approve": "已批准",
            "edit": "已按修改批准",
            "deny": "已拒绝",
            "cancel": "因新消息而取消",
        },
        "always": "本对话中此后总是允许。",
        "by_policy": "由本次运行的批准策略决定。",
        "protocol": {"react": "ReAct 文本", "native": "原生工具调用"},
        "vision": {
            "on": "总是发送图片",
            "off": "不发送图片",
            "text": "只接受文字：由工具查看图片",
            "sees": "能接收图片",
        },
        "error": "错误",
        "calls": ("{calls} 次模型调用", "{calls} 次模型调用"),
        "tool_calls": ("{calls} 次工具调用", "{calls} 次工具调用"),
        "ms": "{ms} 毫秒",
        "seconds": "{seconds} 秒",
        "minutes": "{minutes} 分 {seconds} 秒",
        "stopped": "已停止",
        "stopped_text": "在完成前被停止。",
        "transcript": "对话记录",
        "you": "你",
        "answer": "回答",
        "named": "{}：{}",
        # Bold ends before the full-width colon: after one, Markdown would not end it.
        "field": "**{}**：{}",
        "aside": "（{}）",
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


def language_key(language: str | None) -> Language:
    """ "zh" for any way of naming Chinese (zh, zh-CN, zh_TW), else "en"."""
    return "zh" if str(language or "").lower().startswith("zh") else "en"


def t(key: str, language: str) -> str:
    return UI_TEXT[language_key(language)][key]


def words(language: str) -> dict[str, Any]:
    """The trace labels in `language`."""
    return LABELS[language_key(language)]


# Between the parts of one line (the status line, a finished turn's summary).
SEPARATOR = " · "


def calls_text(calls: int, language: str, kind: str = "calls") -> str:
    """ "1 model call", "3 model calls", "3 次模型调用"; `kind` "tool_calls" for tools."""
    one, many = words(language)[kind]
    return (one if calls == 1 else many).format(calls=calls)


def duration_text(seconds: float, language: str) -> str:
    """The page's one way of writing a duration: "60 ms", "0.1 s", "2.4 s", "1 min 5 s"."""
    w = words(language)
    seconds = max(0.0, float(seconds))
    if seconds < 0.095:
        return w["ms"].format(ms=round(seconds * 1000))
    if seconds < 59.95:
        return w["seconds"].format(seconds=f"{seconds:.1f}")
    minutes, rest = divmod(round(seconds), 60)
    return w["minutes"].format(minutes=minutes, seconds=rest)


def joined(*parts: str) -> str:
    """Parts of one line with a separator between them and none at either end."""
    return SEPARATOR.join(p for p in parts if p and p.strip())


def model_name(model: str, offline: bool, language: str) -> str:
    """A model as the page names it: the offline demo model in the page's language, any other
    offline model with that said beside its name."""
    w = words(language)
    if offline and model == OFFLINE_NAME:
        return w["offline"]
    if offline and "offline" not in model.lower():
        return model + w["aside"].format(w["offline"])
    return model


def stats_text(calls: int, seconds: float, language: str, tokens: Tokens | None = None) -> str:
    """What a finished turn cost: "2 model calls · 1,234 tokens · 0.4 s", "2 次模型调用 ·
    1,234 个词元 · 0.4 秒"; "≈1,234 tokens" where any figure is estimated, and the cost when
    the price table prices every call."""
    counted = tokens_text(tokens, language) if tokens is not None else ""
    cost = cost_text(tokens, language) if tokens is not None else ""
    return joined(calls_text(calls, language), counted, cost, duration_text(seconds, language))


def tokens_text(tokens: Tokens, language: str) -> str:
    """ "1,234 tokens", "≈1,234 tokens", "约 1,234 个词元"; '' when nothing was counted."""
    if not tokens.total:
        return ""
    return t("tokens_about" if tokens.estimated else "tokens", language).format(
        n=f"{tokens.total:,}"
    )


def call_tokens_text(tokens: Tokens, language: str) -> str:
    """One model call's tokens for its trace step: "1,000 in, 234 out · 800 cached"."""
    if not tokens.total:
        return ""
    key = "tokens_io_about" if tokens.estimated else "tokens_io"
    counted = t(key, language).format(input=f"{tokens.input:,}", output=f"{tokens.output:,}")
    cached = t("tokens_cached", language).format(n=f"{tokens.cached:,}") if tokens.cached else ""
    return joined(counted, cached)


def cost_text(tokens: Tokens, language: str) -> str:
    """ "cost 0.0012" (in the price table's currency), "cost ≈0.0012" from estimated tokens;
    '' when not every call was priced."""
    if tokens.cost is None:
        return ""
    figure = cost_figure(tokens.cost)
    return t("cost_about" if tokens.estimated else "cost", language).format(cost=figure)


def cost_figure(cost: float) -> str:
    """A cost as the page writes it: four decimals below one, else two."""
    return f"{cost:.4f}" if cost < 1 else f"{cost:,.2f}"


def protocol_text(protocol: str | None, language: str) -> str:
    """The tool protocol in words ("native tool calls"); '' when none is known."""
    return words(language)["protocol"].get(protocol, protocol) if protocol else ""


def vision_text(state: str, language: str) -> str:
    """How images go to the model, in words ("text only: tools look at images"); '' when
    nothing is known yet."""
    return words(language)["vision"].get(state, "") if state else ""


def browser_language(accept_language: str | None) -> Language | None:
    """The session language for a browser's Accept-Language header: Chinese when the language
    the browser prefers is Chinese (zh, zh-CN, zh-TW...), else English, as Gradio's I18n picks
    the page text; None without a header (an API client), which keeps the default."""
    ranked = []
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        name, _, value = params.strip().partition("=")
        try:
            quality = float(value) if name.strip().lower() == "q" else 1.0
        except ValueError:
            quality = 0.0
        if tag.strip() and quality > 0:
            ranked.append((-quality, order, tag.strip()))
    return language_key(min(ranked)[2]) if ranked else None
