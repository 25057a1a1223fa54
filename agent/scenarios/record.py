"""A conversation that happened, written down as a scenario that checks it happens again.

Each turn that finished becomes a scenario turn with the person's words and images and what
was seen, as expectations: how it ended, the parameters a question asked for, the tools called
(and the arguments of each tool's first call), and the numbers the answer gave. A turn that
asked for approval and the decision that followed are one turn of the scenario, run with the
approval the person gave. Stopped turns did not happen and are left out. Run at once against
the same model the scenario passes; run against another, it scores that one.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent.events import export_trace
from agent.images.intake import turn_language

OUTCOMES = {"answered": "answer", "asked": "ask", "ended": "end", "error": "error"}
# The answer's key values: amounts, times, dates, counts ("42.40", "09:40", "8.05").
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:/]\d+)*")
MAX_VALUES = 3
TITLE_CHARS = 40


@dataclass
class HeardTurn:
    """One turn as it happened: the person's words, the files of their images, how it ended
    (`answered`, `asked`, `ended`, `error`, `stopped`), and its events in the trace export
    format (none where only the reply was kept, as in a command-line session)."""

    text: str
    images: list[Path] = field(default_factory=list)
    status: str = "answered"
    events: list[dict[str, Any]] = field(default_factory=list)
    reply: str = ""


def record(turns: Sequence[HeardTurn], name: str = "") -> tuple[dict[str, Any], list[Path]]:
    """The scenario (as data for a YAML file) and the image files it names, in the order of
    their names `images/1.jpg`, `images/2.png`... (each with its file's own kind) relative
    to the file."""
    groups: list[list[HeardTurn]] = []
    decisions: set[str] = set()
    for turn in turns:
        if turn.status not in OUTCOMES:
            continue
        decided = _decisions(turn.events)
        decisions.update(decided)
        if decided and groups and _asked_approval(groups[-1][-1].events):
            groups[-1].append(turn)
        else:
            groups.append([turn])
    if not groups:
        raise ValueError("the conversation has no finished turn to record")
    written: list[dict[str, Any]] = []
    files: list[Path] = []
    for group in groups:
        first = group[0]
        entry: dict[str, Any] = {"user": first.text}
        names = []
        for path in first.images:
            files.append(path)
            names.append(f"images/{len(files)}{path.suffix.lower()}")
        if names:
            entry["images"] = names
        entry["expect"] = _expect(group)
        written.append(entry)
    text = written[0]["user"]
    scenario: dict[str, Any] = {
        "name": name or f"recorded: {text[:TITLE_CHARS]}".strip(),
        "language": turn_language(text, "en"),
    }
    if "deny" in decisions and not decisions & {"approve", "edit"}:
        scenario["approval"] = "never"
    scenario["turns"] = written
    return scenario, files


def _expect(group: list[HeardTurn]) -> dict[str, Any]:
    """What a turn (with the decision on its approval, if it asked for one) must do again."""
    last = group[-1]
    outcome = OUTCOMES[last.status]
    expect: dict[str, Any] = {"outcome": outcome}
    asked = [e for e in last.events if e.get("type") == "ask_user"]
    if outcome == "ask" and asked and asked[-1].get("missing"):
        expect["asks_for"] = list(asked[-1]["missing"])
    if outcome != "answer":
        return expect
    denied = any("deny" in _decisions(turn.events) for turn in group)
    if last.events and not denied:
        calls = [call for turn in group for call in _calls(turn.events)]
        expect["tools"] = [tool for tool, _ in calls]
        args = _first_args(calls)
        if args:
            expect["args"] = args
    values = _values(_answer(last))
    if values:
        expect["answer_contains"] = values
    return expect


def _calls(events: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (str(e.get("tool", "")), dict(e.get("arguments") or {}))
        for e in events
        if e.get("type") == "tool_call"
    ]


def _first_args(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Each tool's first call's plain arguments (text, numbers, true/false)."""
    args: dict[str, dict[str, Any]] = {}
    for tool, arguments in calls:
        plain = {k: v for k, v in arguments.items() if isinstance(v, str | int | float | bool)}
        if tool not in args and plain:
            args[tool] = plain
    return args


def _answer(turn: HeardTurn) -> str:
    answers = [e for e in turn.events if e.get("type") == "answer"]
    return str(answers[-1].get("text", "")) if answers else turn.reply


def _values(answer: str) -> list[str]:
    found: list[str] = []
    for value in _NUMBER.findall(answer):
        if value not in found and not re.fullmatch(r"img_?\d+", value):
            found.append(value)
    return found[:MAX_VALUES]


def _decisions(events: list[dict[str, Any]]) -> set[str]:
    return {
        str(e.get("decision"))
        for e in events
        if e.get("type") == "approval_decision" and e.get("by", "user") == "user"
    }


def _asked_approval(events: list[dict[str, Any]]) -> bool:
    return bool(events) and any(e.get("type") == "approval" for e in events[-3:])


def heard_from_session(path: str | Path) -> list[HeardTurn]:
    """The turns of a command-line session file (`python -m agent --session FILE`): words,
    images and how each ended; the file keeps no events, so no tools are stated."""
    from agent.session import images_folder, load_session

    session = load_session(path)
    # The files beside the session, not the copies its store makes (gone with the store).
    folder = images_folder(path)
    return [
        HeardTurn(
            text=turn.user_text,
            images=[folder / Path(session.images.get(i).path).name for i in turn.image_ids],
            status=turn.outcome,
            reply=turn.reply,
        )
        for turn in session.history
    ]


def heard_from_zip(path: str | Path, folder: str | Path) -> list[HeardTurn]:
    """The turns of a conversation downloaded from the page (its zip), read within the same
    bounds as the page's viewer; its images are unpacked into `folder`. A file that is not
    such a zip, or is larger than any the page writes, raises `UnreadableFile`."""
    from agent.conversation_file import load_conversation

    conversation = load_conversation(path, folder)
    return [
        HeardTurn(
            text=turn.text,
            images=[Path(image) for image in turn.images],
            status=turn.status,
            events=json.loads(export_trace(turn.events)),
        )
        for turn in conversation.turns
    ]


def write_scenario(scenario: dict[str, Any], files: Sequence[Path], out: str | Path) -> Path:
    """Write the scenario to `out` (YAML) and its images into `images/` beside it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    named = [name for turn in scenario["turns"] for name in turn.get("images", [])]
    for source, name in zip(files, named, strict=True):
        target = out.parent / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    out.write_text(scenario_yaml(scenario), encoding="utf-8")
    return out


def scenario_yaml(scenario: dict[str, Any]) -> str:
    return yaml.safe_dump(scenario, allow_unicode=True, sort_keys=False, width=100)
