"""The scenario file format, and reading files of it with errors that name the line.

A file holds one scenario or a list of them, in YAML or JSON. Image paths are relative to the
file. Anything the format does not know is refused, so a misspelt expectation never passes
silently by checking nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails

from agent.config import ApprovalPolicy, Language, Style

from .lines import TooLarge, line_of, load_yaml
from .patterns import PatternError, compile_pattern

SUFFIXES = (".yaml", ".yml", ".json")
# A file may come from anyone who can open the page: its size is checked before it is read,
# and what it holds once parsed before anything walks it. The shipped suites are a few
# kilobytes and a few hundred values each.
MAX_FILE_BYTES = 256 * 1024
MAX_VALUES = 20_000
Outcome = Literal["answer", "ask", "end", "error"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Expect(_Strict):
    """What one turn must do. Only `outcome` is required; the rest check what is stated."""

    outcome: Outcome
    asks_for: list[str] | None = None
    tools: list[str] | None = None
    args: dict[str, dict[str, Any]] | None = None
    answer_matches: str | None = None
    answer_contains: list[str] | None = None

    @field_validator("answer_matches")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                compile_pattern(value)
            except PatternError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("answer_contains", "asks_for", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _asks_only_when_asking(self) -> Expect:
        if self.asks_for is not None and self.outcome != "ask":
            raise ValueError("asks_for needs outcome: ask")
        return self


class TurnSpec(_Strict):
    user: str
    images: list[str] = Field(default_factory=list)
    expect: Expect


class Scenario(_Strict):
    name: str = Field(min_length=1)
    language: Language | None = None
    style: Style | None = None
    # Before a tool that acts on the outside world runs: the most the scenario asks for. On
    # the page the operator's AGENT_APPROVAL is the ceiling and, as nobody is there to be
    # asked, `ask` means `never` unless the operator's policy is `always`; the command line
    # (`python -m agent.scenarios`, whose operator chose the file) runs it as written.
    approval: ApprovalPolicy = "always"
    turns: list[TurnSpec] = Field(min_length=1)
    # Where it was read from: set by the loader, never written in a file.
    _file: str = PrivateAttr(default="")
    _line: int = PrivateAttr(default=0)

    @property
    def file(self) -> str:
        return self._file

    @property
    def line(self) -> int:
        return self._line

    def located(self, file: str, line: int) -> Scenario:
        self._file, self._line = file, line
        return self


class FileError(BaseModel):
    """A scenario file that cannot be used, with one line per problem."""

    file: str
    problems: list[str]

    @property
    def message(self) -> str:
        return "; ".join(self.problems)


def scenario_files(paths: list[str | Path]) -> tuple[list[Path], list[FileError]]:
    """Files named, and the scenario files directly inside directories named, sorted."""
    files: list[Path] = []
    errors: list[FileError] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in SUFFIXES)
            if not found:
                errors.append(FileError(file=str(path), problems=["no scenario files in it"]))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            errors.append(FileError(file=str(path), problems=["no such file or directory"]))
    return files, errors


def load_file(path: str | Path, find_images: bool = True) -> list[Scenario]:
    """Every scenario in the file, or `InvalidFile` listing what is wrong and where.

    `find_images=False` is for a file that arrived alone (an upload): the images it names are
    not looked for, so that it cannot ask whether a file exists on the server."""
    path = Path(path)
    where = str(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise InvalidFile(
                where, [f"{where}: is larger than {MAX_FILE_BYTES // 1024} KB, the limit"]
            )
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidFile(where, [f"{where}: cannot be read: {_reason(exc)}"]) from None
    try:
        data = load_yaml(text, MAX_VALUES)
    except TooLarge as exc:
        raise InvalidFile(where, [f"{where}: {exc}"]) from None
    except yaml.YAMLError as exc:
        if path.suffix.lower() != ".json":
            raise InvalidFile(where, [_yaml_problem(where, exc)]) from None
        # A .json file is told of as JSON: where JSON's own reader gave up.
        data = _json_or_problem(text, where)
        if isinstance(data, _Problem):
            raise InvalidFile(where, [data.text]) from None
    items = data if isinstance(data, list) else [data]
    if data is None or not items:
        raise InvalidFile(where, [f"{where}: holds no scenario"])
    scenarios: list[Scenario] = []
    problems: list[str] = []
    for index, item in enumerate(items):
        prefix = f"scenario {index + 1}: " if isinstance(data, list) else ""
        if not isinstance(item, dict):
            problems.append(f"{where}: {prefix}a scenario must be a mapping with name and turns")
            continue
        try:
            scenario = Scenario.model_validate(item)
        except ValidationError as exc:
            problems.extend(_problem(where, item, error, prefix) for error in exc.errors())
            continue
        if find_images:
            problems.extend(_missing_images(path, scenario, item))
        scenarios.append(scenario.located(where, getattr(item, "line", 0)))
    names = [s.name for s in scenarios]
    problems.extend(
        f"{_at(where, s.line)}: the name {s.name!r} is used twice"
        for i, s in enumerate(scenarios)
        if s.name in names[:i]
    )
    if problems:
        raise InvalidFile(where, problems)
    return scenarios


def image_paths(scenario: Scenario, turn: TurnSpec) -> list[Path]:
    base = Path(scenario.file).parent
    return [base / image for image in turn.images]


class InvalidFile(Exception):
    def __init__(self, file: str, problems: list[str]) -> None:
        super().__init__(f"{file}: " + "; ".join(problems))
        self.error = FileError(file=file, problems=problems)


def _missing_images(path: Path, scenario: Scenario, item: Any) -> list[str]:
    problems = []
    for number, turn in enumerate(scenario.turns):
        for index, image in enumerate(turn.images):
            if not (path.parent / image).is_file():
                line = line_of(item, ("turns", number, "images", index))
                problems.append(
                    f"{_at(str(path), line)}: turn {number + 1}: image {image!r} not found "
                    f"(looked for {path.parent / image})"
                )
    return problems


def _problem(where: str, item: Any, error: ErrorDetails, prefix: str) -> str:
    loc = tuple(error["loc"])
    line = line_of(item, loc)
    at = ".".join(str(p) for p in loc[:-1]) if loc else ""
    key = loc[-1] if loc else ""
    inside = f" in {_readable(at)}" if at else ""
    if error["type"] == "extra_forbidden":
        text = f"unknown key {key!r}{inside}"
    elif error["type"] == "missing":
        text = f"missing key {key!r}{inside}"
    else:
        text = f"{_readable('.'.join(str(p) for p in loc)) or 'value'}: {_message(error['msg'])}"
    return f"{_at(where, line)}: {prefix}{text}"


def _message(text: str) -> str:
    """Pydantic's message without the prefix it gives a validator's own sentence."""
    for prefix in ("Value error, ", "Assertion failed, "):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _readable(dotted: str) -> str:
    """`turns.1.expect.tools` reads as `turn 2 expect.tools`."""
    return re.sub(r"turns\.(\d+)\.?", lambda m: f"turn {int(m.group(1)) + 1} ", dotted).strip()


def _at(where: str, line: int | None) -> str:
    return f"{where}:{line}" if line else where


class _Problem:
    def __init__(self, text: str) -> None:
        self.text = text


def _json_or_problem(text: str, where: str) -> Any:
    """JSON that YAML cannot read (YAML refuses a few JSON escapes): read, without lines; or
    the problem that keeps it from being read. JSON has no aliases, and the size was checked;
    its nesting is checked as YAML's is."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _Problem(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}")
    except (ValueError, RecursionError):
        return _Problem(f"{where}: not valid JSON: it nests too deeply to read")
    values, depth = _json_shape(data)
    if depth > 32:
        return _Problem(f"{where}: nests {depth} levels deep, more than the 32 allowed")
    if values > MAX_VALUES:
        return _Problem(
            f"{where}: holds {values:,} values, more than the {MAX_VALUES:,} a scenario file may"
            " have"
        )
    return data


def _json_shape(data: Any) -> tuple[int, int]:
    """How many values `data` holds and how deep it nests."""
    values, deepest, stack = 0, 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        values += 1
        deepest = max(deepest, depth)
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return values, deepest


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "it is not UTF-8 text"
    return exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)


def _yaml_problem(where: str, exc: yaml.YAMLError) -> str:
    """Where the parser gave up, and what it was reading, from where that began: an
    unclosed quote is found at the end of the file, but it is the quote's line to mend."""
    mark = getattr(exc, "problem_mark", None)
    line = f":{mark.line + 1}" if mark is not None else ""
    reason = getattr(exc, "problem", None) or str(exc)
    context, begun = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and begun is not None and (mark is None or begun.line != mark.line):
        reason += f" ({context}, which began on line {begun.line + 1})"
    return f"{where}{line}: not valid YAML: {reason}"
