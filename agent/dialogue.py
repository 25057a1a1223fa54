"""Task state across turns: which tool is pending, what is known, what is still missing.

Known parameters are merged here, in code, from every source (the model's `known_params`, its
action inputs, the user's answers); the model is never trusted to copy them forward. Whether to
ask the user or call the tool is decided here too, from the tool's own pydantic model.
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from .prompts import PHRASES, language_key, phrase

MAX_QUESTIONS_PER_TASK = 3
MAX_INVALID_RETRIES = 2
# What a person says to drop the open task ("never mind, what time is it in London?").
CANCEL = re.compile(
    r"\b(never ?mind|forget it|cancel|stop that|no thanks)\b|算了|取消|不要了|不用了", re.IGNORECASE
)


class PendingTask(BaseModel):
    tool: str
    request: str
    known: dict[str, Any] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    questions: int = 0
    invalid_retries: int = 0
    transcript: list[str] = Field(default_factory=list)
    # A question the tool itself asked mid-call (an MCP elicitation), and the person's replies
    # so far; the next call of the tool is made with them (`ToolContext.replies`).
    tool_question: str = ""
    tool_replies: list[str] = Field(default_factory=list)
    # The language the question was asked in, which a short reply keeps, and how many turns
    # the person has spent on something else since (`agent.waiting`).
    language: str = ""
    turns_aside: int = 0


@dataclass(slots=True)
class Check:
    """The outcome of checking merged arguments against a tool's argument model."""

    args: Any = None
    missing: list[str] = field(default_factory=list)
    invalid: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.args is not None


def clean_params(value: Any) -> dict[str, Any]:
    """Whatever the model wrote as known_params or input, as a dict of filled values."""
    if not isinstance(value, Mapping):
        return {}
    return {
        str(k): v
        for k, v in value.items()
        if v is not None and not (isinstance(v, str) and not v.strip()) and v != [] and v != {}
    }


def merge(*sources: Any, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Later sources win. With `fields`, each source's keys are matched to the tool's fields
    first (`Expression` or `expression ` is `expression`), and unknown keys are dropped."""
    merged: dict[str, Any] = {}
    for source in sources:
        params = clean_params(source)
        if fields is not None:
            params = fit_to_fields(params, fields, merged)
        merged.update(params)
    return merged


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", str(name)).lower()


@functools.lru_cache(maxsize=256)
def _by_norm(names: tuple[str, ...]) -> dict[str, str]:
    return {_norm(name): name for name in names}


def fit_to_fields(
    params: dict[str, Any], fields: Mapping[str, Any], known: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Keys as the tool names them, and a lone `input` (what a bare-string Action Input or
    `tool("...")` becomes) put where the model meant it (see `_input_field`)."""
    fitted: dict[str, Any] = {}
    loose = None
    for key, value in params.items():
        if key in fields:
            fitted[key] = value
            continue
        loose = loose or _by_norm(tuple(fields))
        name = loose.get(_norm(key))
        if name is not None:
            fitted[name] = value
    if "input" in params and "input" not in fields:
        target = _input_field(fields, fitted, known or {})
        if target is not None:
            value = params["input"]
            if _takes_text(fields[target]) and _is_one_string_list(value):
                value = value[0]
            fitted[target] = value
    return fitted


def _input_field(
    fields: Mapping[str, Any], given: Mapping[str, Any], known: Mapping[str, Any]
) -> str | None:
    """The field a lone `input` fills: the one required field still empty; else the tool's
    only required field, even if known (a bare value sent again corrects it); else, for a tool
    with no required field, its only text field. None when it could be more than one."""
    required = [name for name, info in fields.items() if info.is_required()]
    open_fields = [name for name in required if name not in given]
    empty = [name for name in open_fields if name not in known]
    if len(empty) == 1:
        return empty[0]
    if len(required) == 1 and open_fields:
        return required[0]
    texts = [name for name, info in fields.items() if _takes_text(info) and name not in given]
    return texts[0] if not required and len(texts) == 1 else None


def _takes_text(info: Any) -> bool:
    annotation = getattr(info, "annotation", None)
    if annotation is str:
        return True
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return args == [str]


def _is_one_string_list(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 1 and isinstance(value[0], str)


def agrees(given: Mapping[str, Any], known: Mapping[str, Any]) -> bool:
    """Every value given is the one known (5, 5.0 and "5" agree; so do "KM" and "km")."""
    return all(key in known and same_value(value, known[key]) for key, value in given.items())


def same_value(a: Any, b: Any) -> bool:
    """5, 5.0 and "5" are the same value; so are "KM" and "km"."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a).strip().lower() == str(b).strip().lower()


def check(tool: Any, params: dict[str, Any]) -> Check:
    """Validate `params` with the tool's model; sort problems into missing and invalid."""
    try:
        return Check(args=tool.Args.model_validate(params))
    except ValidationError as exc:
        missing: list[str] = []
        invalid: dict[str, str] = {}
        for error in exc.errors():
            field = str(error["loc"][0]) if error["loc"] else ""
            if error["type"] == "missing":
                if field not in missing:
                    missing.append(field)
            else:
                invalid.setdefault(field or "input", error["msg"])
        return Check(missing=missing, invalid=invalid)


@functools.cache
def custom_validators(args: type) -> bool:
    """Whether a tool's argument model has validators of its own (which may parse, and so
    are checked off the event loop), beyond pydantic's bounded type checks."""
    decorators = getattr(args, "__pydantic_decorators__", None)
    if decorators is None:
        return True
    return any(
        getattr(decorators, kind)
        for kind in ("validators", "field_validators", "root_validators", "model_validators")
    )


def field_question(tool: Any, fields: list[str], language: str) -> str:
    """A question for the user, from each field's own `ask` text or else its description."""
    lang = language_key(language)
    asks = [_field_ask(tool.Args.model_fields.get(name), name, lang) for name in fields]
    if all(ask.endswith(("?", "？")) for ask in asks):
        return " ".join(asks)
    joiner = PHRASES[lang]["and"]
    return phrase(language, "ask_field", fields=joiner.join(a.rstrip("?？") for a in asks))


def _field_ask(info: Any, name: str, lang: str) -> str:
    extra = info.json_schema_extra if info is not None else None
    ask = extra.get("ask") if isinstance(extra, dict) else None
    if isinstance(ask, dict) and ask.get(lang):
        return str(ask[lang])
    desc = (info.description or "").strip() if info is not None else ""
    # The first clause of the description, without its examples.
    desc = re.split(r"\.\s|\s\(?e\.g\.|;", desc)[0].strip().rstrip(".") if desc else ""
    desc = desc or name.replace("_", " ")
    return desc[0].lower() + desc[1:] if lang == "en" else desc


def invalid_feedback(tool_name: str, invalid: dict[str, str], schema_hint: str = "") -> str:
    problems = "; ".join(f"{field}: {msg}" for field, msg in invalid.items())
    return (
        f"The arguments for {tool_name} are not valid ({problems}). "
        f"Fix them and call {tool_name} again.{schema_hint}"
    )


# -- decisions: what the loop does with an action, decided without a model ----------------------
# Plain dataclasses: several are made on every step, and they are never read from outside.


@dataclass(slots=True)
class End:
    """End the conversation with a goodbye."""

    phrase: str


@dataclass(slots=True)
class AskIntent:
    """Ask the user what they want; any pending task is dropped."""

    question: str


@dataclass(slots=True)
class NoTool:
    """No tool fits; the model answers from what it knows, or says it cannot."""

    intent: str


@dataclass(slots=True)
class UseTool:
    """Fill the tool's arguments (asking the user for what is missing) and call it."""

    tool: str
    given: dict[str, Any] = field(default_factory=dict)
    question: str = ""


@dataclass(slots=True)
class UnknownTool:
    name: str


ActionDecision = End | AskIntent | NoTool | UseTool | UnknownTool


def decide_action(
    name: str,
    tool_input: dict[str, Any],
    thought_data: Mapping[str, Any] | None,
    *,
    tools: Mapping[str, Any],
    pending: str | None,
    language: str,
) -> ActionDecision:
    """What an Action means: one of the four control actions of the task dialogue, or a tool."""
    if name == "end_conversation":
        return End(phrase=text_arg(tool_input, "end_phrase") or phrase(language, "end"))
    if name == "ASK_USER_FOR_INTENT":
        question = text_arg(tool_input, "question") or phrase(language, "ask_intent")
        return AskIntent(question=question)
    if name == "ASK_USER_FOR_REQUIRED_PARAMS":
        question = text_arg(tool_input, "question")
        target = str((thought_data or {}).get("tool_to_use_for_user") or "")
        tool = target if target in tools else pending if pending in tools else None
        if tool is None:
            return AskIntent(question=question or phrase(language, "ask_intent"))
        return UseTool(tool=tool, question=question)
    if name == "TOOL_OTHER":
        return NoTool(intent=text_arg(tool_input, "intent"))
    if name in tools:
        return UseTool(tool=name, given=tool_input)
    return UnknownTool(name=name)


@dataclass(slots=True)
class Retry:
    """Tell the model its arguments are invalid; it may fix them (bounded)."""

    feedback: str


@dataclass(slots=True)
class Ask:
    """Ask the user for the missing (or invalid) fields."""

    missing: list[str]


@dataclass(slots=True)
class GiveUp:
    """Asked too often: set the task aside and say what is still missing."""

    missing: list[str]


@dataclass(slots=True)
class Call:
    args: Any
    arguments: dict[str, Any]


ArgumentDecision = Retry | Ask | GiveUp | Call


def decide_arguments(tool: Any, task: PendingTask, checked: Check) -> ArgumentDecision:
    """Whether the merged arguments go to the tool, back to the model, or to the user."""
    if checked.invalid and task.invalid_retries < MAX_INVALID_RETRIES:
        return Retry(feedback=invalid_feedback(tool.name, checked.invalid))
    if not checked.ok:
        missing = list(dict.fromkeys([*checked.missing, *checked.invalid]))
        if task.questions >= MAX_QUESTIONS_PER_TASK:
            return GiveUp(missing=missing)
        return Ask(missing=missing)
    return Call(
        args=checked.args, arguments=checked.args.model_dump(mode="json", exclude_none=True)
    )


def text_arg(tool_input: Mapping[str, Any], key: str) -> str:
    """A control action's one text argument, under its name or as the lone value given."""
    value = tool_input.get(key)
    if value is None and len(tool_input) == 1:
        value = next(iter(tool_input.values()))
    return str(value).strip() if value not in (None, "") else ""
