"""A tool call whose arguments are complete and checked: what acting makes, approval holds
back or lets through, and the loop runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tools.base import Tool

from .dialogue import PendingTask
from .messages import NativeCall
from .react.parser import Step


@dataclass
class Ready:
    """A tool call whose arguments are complete and checked, waiting to run. The ReAct loop runs
    one at once; a native reply's several calls run together, then settle in call order."""

    tool: Tool
    task: PendingTask
    args: Any
    arguments: dict[str, Any]
    replay: str
    key: str
    step_no: int
    call: NativeCall | None = None
    call_id: str = ""  # set when the call was approved under this id
    step: Step | None = None
    # What the tool asked the person mid-call, and the replies it was given (`execute`).
    asked: str = ""
    replies: list[str] = field(default_factory=list)
