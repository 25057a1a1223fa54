"""`conversation.md` in the page's download: the conversation as a person reads it, without
this app. The person's words, their images inline, each step's Thought, tool call (with its
arguments) and Observation (with the images the tool made), the notices, and how the turn
ended: the answer, the question asked, the call waiting for approval, the error, or stopped.
Made from the download's own JSON (`ui.conversations.export.conversation_data`), so both say
the same; images are the zip's own files, linked by their names inside it.
"""

from __future__ import annotations

import json
from typing import Any

from ..labels import words

# What the person and the model wrote is quoted, not taken as the transcript's own markup.
_FENCE = "~~~~"


def transcript(data: dict[str, Any]) -> str:
    """The conversation of `data` (the download's JSON) as Markdown, in its language."""
    turns = data.get("turns") or []
    files = {image["id"]: image["file"] for image in data.get("images") or []}
    language = _language(turns)
    w = words(language)
    lines = [f"# {w['transcript']}", ""]
    for turn in turns:
        lines += _turn(turn, files, w)
    return "\n".join(lines).rstrip() + "\n"


def _language(turns: list[dict[str, Any]]) -> str:
    for turn in turns:
        for event in turn.get("events") or []:
            if event.get("type") == "run_started":
                return str(event.get("language") or "en")
    return "en"


def _turn(turn: dict[str, Any], files: dict[str, str], w: dict[str, Any]) -> list[str]:
    lines = [f"## {w['turn'].format(n=turn.get('number', ''))}", ""]
    lines += [_label(w, w["you"]), "", _quoted(turn.get("text") or ""), ""]
    lines += _images(turn.get("images") or [], files)
    ended = False
    for event in turn.get("events") or []:
        said = _event(event, files, w)
        if said:
            lines += [*said, ""]
        ended = ended or event.get("type") in ("answer", "ask_user", "approval", "error")
    if not ended:
        lines += [f"*{w['stopped_text']}*", ""]
    return lines


def _label(w: dict[str, Any], label: str, rest: str = "") -> str:
    """A bold label and what follows it, with the language's colon ("**你**：")."""
    return w["field"].format(label, rest).rstrip()


def _event(event: dict[str, Any], files: dict[str, str], w: dict[str, Any]) -> list[str]:
    match event.get("type"):
        case "thought":
            label = _label(w, f"{w['thought']} {event.get('step', '')}")
            return [label, "", _quoted(event["text"])]
        case "tool_call":
            arguments = json.dumps(event.get("arguments") or {}, ensure_ascii=False, indent=2)
            title = w["named"].format(w["tool"], event.get("tool", ""))
            return [f"**{title}**", "", f"{_FENCE}json", arguments, _FENCE]
        case "tool_result":
            images = [image.get("id", "") for image in event.get("images") or []]
            body = [_label(w, w["result"]), "", _quoted(event.get("text") or "")]
            return [*body, "", *_images(images, files)] if images else body
        case "notice":
            return [_label(w, w["notice"], event.get("message", ""))]
        case "answer":
            return [_label(w, w["answer"]), "", _quoted(event.get("text") or "")]
        case "ask_user":
            return [_label(w, w["asked"]), "", _quoted(event.get("question") or "")]
        case "approval":
            title = w["named"].format(w["approval"], event.get("tool", ""))
            arguments = json.dumps(event.get("arguments") or {}, ensure_ascii=False, indent=2)
            return [f"**{title}**", "", f"{_FENCE}json", arguments, _FENCE]
        case "error":
            return [_label(w, w["error"], event.get("message", ""))]
    return []


def _images(ids: list[str], files: dict[str, str]) -> list[str]:
    shown = [f"![{i}]({files[i]})" for i in ids if i in files]
    shown += [f"*{i}*" for i in ids if i not in files]  # gone before the download was made
    return [*shown, ""] if shown else []


def _quoted(text: str) -> str:
    """`text` as a block quote: its lines stay as written, and no line of it can start a
    heading or close a fence of the transcript's own."""
    return "\n".join(f"> {line}" if line else ">" for line in str(text).split("\n"))
