"""The built-in offline model: no key, no network, deterministic.

It does not understand language. It reads the request's hints (the user's words, the tools, the
pending task, this turn's observations) and writes the same ReAct text a hosted model would,
streamed, so every other part of the agent runs unchanged. Tools choose themselves through their
declared trigger phrases and fill their arguments with their own extractors, so adding a tool
never means editing this file.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

from ..offload import Overdue, run_quick
from ..prompts import CONTROL_ACTIONS
from .base import ModelError, ModelRequest

NAME = "offline demo model"
MAX_CHAINED_TOOLS = 2

_END = re.compile(
    r"^\W*(bye|goodbye|good bye|see you|that'?s all|quit|exit|end|再见|拜拜|结束|没有了|不用了)\W*$",
    re.IGNORECASE,
)
_CANCEL = re.compile(
    r"\b(never ?mind|forget it|cancel|stop that)\b|算了|取消|不要了", re.IGNORECASE
)
_VAGUE = re.compile(
    r"^\W*(hi|hello|hey|help|help me|can you help( me)?|i need (some )?help|do something|"
    r"something|i have a question|你好|您好|帮帮我|帮我|帮个忙|我有个问题|在吗)\W*$",
    re.IGNORECASE,
)
_ERROR = re.compile(
    r"^(Error:|There is no tool|The arguments for|.* did not finish within|.* failed \()",
)

_TEXT = {
    "en": {
        "pick": "The request matches the {tool} tool.",
        "next": "The result has a new image; {tool} can look at it next.",
        "done": "I have what I need to answer.",
        "failed": "The tool could not do it.",
        "answer_failed": "I could not finish that: {observation}",
        "no_tool": "None of my tools fits this request.",
        "sorry": "Sorry, I cannot answer your query.",
        "sorry_image": "Sorry, I cannot answer that: as the offline demo model I cannot look at "
        "pictures by myself. I can read the text in an image, zoom into part of it, list its "
        "colours, scan QR codes or show the photo's details; ask for one of those, or connect a "
        "real model in Settings.",
        "vague": "I cannot tell what the user wants.",
        "intent": "What would you like me to do? For example: read the text in an image, zoom "
        "into part of it, convert units, calculate, or tell the time in a city.",
        "end_thought": "The user wants to end the conversation.",
        "end": "Goodbye! Come back any time.",
        "cancel_thought": "The user dropped the task.",
        "cancel": "OK, I've set that aside. What else can I do for you?",
    },
    "zh": {
        "pick": "这个请求适合使用 {tool} 工具。",
        "next": "结果中有一张新图片，接下来可以用 {tool} 查看。",
        "done": "我已经有足够的信息来回答。",
        "failed": "工具没能完成。",
        "answer_failed": "没能完成：{observation}",
        "no_tool": "我的工具都不适合这个请求。",
        "sorry": "抱歉，我无法回答您的问题。",
        "sorry_image": "抱歉，这个问题我回答不了：我是离线演示模型，自己看不懂图片。我可以识别图片中的文字、放大局部、列出颜色、扫描二维码或显示照片信息；请选择其中一项，或在设置中连接真实模型。",
        "vague": "我无法确定用户想做什么。",
        "intent": "请问您想让我做什么？例如：识别图片中的文字、放大图片局部、换算单位、计算，或查询某个城市的时间。",
        "end_thought": "用户想结束对话。",
        "end": "再见！欢迎随时再来。",
        "cancel_thought": "用户放弃了这个任务。",
        "cancel": "好的，这个任务先放下了。还有什么可以帮您？",
    },
}


class OfflineModel:
    """Deterministic stand-in for a hosted model; labelled offline wherever it answers."""

    offline = True

    def __init__(self, chunk_size: int = 12, delay: float = 0.0) -> None:
        self.name = NAME
        self.chunk_size = chunk_size
        self.delay = delay

    async def stream(self, request: ModelRequest) -> AsyncIterator[str]:
        # Trigger patterns and extractors run over the user's words: off the event loop, so a
        # hostile message slows one turn, not the server.
        try:
            text = await run_quick(self.reply, request, what="the offline model's reply")
        except Overdue as exc:
            raise ModelError(
                "The offline model could not work out a reply in time; try a shorter or "
                "simpler request.",
                kind="timeout",
            ) from exc
        for start in range(0, len(text), self.chunk_size):
            # Yield to the event loop so a page sees the reply arrive in pieces.
            await asyncio.sleep(self.delay)
            yield text[start : start + self.chunk_size]

    def reply(self, request: ModelRequest) -> str:
        lang = "zh" if request.language.startswith("zh") else "en"
        words = _TEXT[lang]
        if request.purpose == "final":
            return _final_text(request, words)
        if request.observations:
            return self._after_observation(request, words)
        question = request.question.strip()
        if _END.match(question):
            return _action(
                request, words["end_thought"], "end_conversation", {"end_phrase": words["end"]}
            )
        tools = {tool.name: tool for tool in request.tools}
        if request.pending_tool and _CANCEL.search(question):
            return f"Thought: {words['cancel_thought']}\nAnswer: {words['cancel']}"
        ranked = rank_tools(question, request.tools, bool(request.image_ids))
        pending = tools.get(request.pending_tool or "")
        if pending is not None and (not ranked or ranked[0] is pending):
            found = _extract(pending, question, request.image_ids, request.known)
            args = {**request.known, **found}
            return _action(request, words["pick"].format(tool=pending.name), pending.name, args)
        if ranked:
            tool = ranked[0]
            args = _extract(tool, question, request.image_ids, {})
            return _action(request, words["pick"].format(tool=tool.name), tool.name, args)
        if not question or _VAGUE.match(question):
            return _action(
                request, words["vague"], "ASK_USER_FOR_INTENT", {"question": words["intent"]}
            )
        return _action(request, words["no_tool"], "TOOL_OTHER", {"intent": question})

    def _after_observation(self, request: ModelRequest, words: dict[str, str]) -> str:
        last = request.observations[-1]
        if last.startswith("No tool fits"):
            sorry = words["sorry_image"] if request.image_ids else words["sorry"]
            return f"Thought: {words['no_tool']}\nAnswer: {sorry}"
        if _ERROR.match(last):
            return f"Thought: {words['failed']}\nAnswer: " + words["answer_failed"].format(
                observation=last
            )
        ranked = rank_tools(request.question, request.tools, bool(request.image_ids))
        called = len(request.observations)
        # Chain only when the last tool made a new image for the next tool to look at.
        new_image = bool(request.observation_images and request.observation_images[-1])
        if new_image and called < min(len(ranked), MAX_CHAINED_TOOLS):
            tool = ranked[called]
            args = _extract(tool, request.question, request.image_ids, {})
            return _action(request, words["next"].format(tool=tool.name), tool.name, args)
        return f"Thought: {words['done']}\nAnswer: {last}"


def rank_tools(question: str, tools: Sequence[Any], has_images: bool) -> list[Any]:
    """Tools whose triggers match, image-producing ones first, then by how many matched."""
    scored = []
    for order, tool in enumerate(tools):
        if getattr(tool, "uses_images", False) and not has_images:
            continue
        hits = sum(1 for pattern in getattr(tool, "triggers", ()) if _search(pattern, question))
        if hits:
            scored.append((getattr(tool, "stage", 1), -hits, order, tool))
    return [tool for *_, tool in sorted(scored, key=lambda item: item[:3])]


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text, re.IGNORECASE) is not None
    except re.error:
        return pattern.lower() in text.lower()


def _extract(tool: Any, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict:
    try:
        found = tool.extract(text, list(image_ids), dict(known))
    except Exception:
        return {}
    return {k: v for k, v in (found or {}).items() if v is not None}


def _action(request: ModelRequest, thought: str, tool: str, args: dict[str, Any]) -> str:
    if request.style == "plugin-task":
        target = tool if tool not in CONTROL_ACTIONS else (request.pending_tool or "")
        known = {**request.known, **args} if tool not in CONTROL_ACTIONS else dict(request.known)
        thought = json.dumps(
            {"content": thought, "tool_to_use_for_user": target, "known_params": known},
            ensure_ascii=False,
        )
    return (
        f"Thought: {thought}\nAction: {tool}\n"
        f"Action Input: {json.dumps(args, ensure_ascii=False, default=str)}"
    )


def _final_text(request: ModelRequest, words: dict[str, str]) -> str:
    observations = request.observations
    if not observations:
        return words["sorry"]
    last = observations[-1]
    if last.startswith("No tool fits"):
        return words["sorry_image"] if request.image_ids else words["sorry"]
    if _ERROR.match(last):
        return words["answer_failed"].format(observation=last)
    return last
