"""`convert_units`: a quantity from one unit to another, with `pint`.

All three arguments are required and have no defaults: when the person leaves one out, the agent
asks for it rather than guessing. Everyday spellings (symbols, plurals, Chinese unit names) go
through a small alias table before pint reads them.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

from pydantic import Field, field_validator

from tools.base import StrictArgs, Tool, ToolContext, ToolInputError, ToolResult, language_of
from tools.number_words import with_digits
from tools.phrases import fill_slot, normalise, reply_value, split_pair
from tools.unit_names import ALIASES, CHINESE_ALIASES, CHINESE_UNITS, registry, resolve_unit
from tools.words import both, say

# Far beyond any everyday quantity, and far enough from the float limit that a conversion
# factor has room before the result overflows.
MAX_VALUE = 1e50
_MAX_SHOWN = "1e50"


def format_number(value: float) -> str:
    """Seven significant digits, as a person reads a conversion ("37.77778", "16.09344"), without
    an exponent for everyday sizes ("1000000"); the exact value is in the result's data."""
    size = abs(value)
    if not 1e-4 <= size < 1e15:
        return f"{value:.7g}"
    decimals = max(0, 6 - math.floor(math.log10(size)))
    text = f"{round(value, decimals):.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


_CJK = re.compile(r"[\u3400-\u9fff]")


@functools.cache
def _chinese_names() -> dict[str, str]:
    """pint's name of a unit -> the Chinese name people write, the first one the alias table
    gives for it (公里 rather than 千米)."""
    names: dict[str, str] = {}
    for alias in ALIASES:
        if _CJK.search(alias) and _is_unit(alias):
            names.setdefault(str(resolve_unit(alias)), alias)
    return names


def unit_name(unit: Any, language: str) -> str:
    """How a unit is written in a result: its Chinese name in Chinese when it has one, else
    its symbol (km, mi, °C)."""
    if language == "zh" and str(unit) in _chinese_names():
        return _chinese_names()[str(unit)]
    return f"{unit:~P}"


class ConvertArgs(StrictArgs):
    value: float = Field(
        description="The number to convert, e.g. 5.",
        json_schema_extra={"ask": both("tools.convert_units.ask.value")},
    )
    from_unit: str = Field(
        description="The unit of the value, e.g. miles, km, °C, kg, lb, liter, km/h.",
        json_schema_extra={"ask": both("tools.convert_units.ask.from_unit")},
    )
    to_unit: str = Field(
        description="The unit to convert to, e.g. km, °F, pound, gallon.",
        json_schema_extra={"ask": both("tools.convert_units.ask.to_unit")},
    )

    @field_validator("value")
    @classmethod
    def _ordinary_number(cls, value: float) -> float:
        if not math.isfinite(value) or abs(value) > MAX_VALUE:
            raise ValueError(
                f"The value must be a finite number between -{_MAX_SHOWN} and {_MAX_SHOWN}."
            )
        return value

    @field_validator("from_unit", "to_unit")
    @classmethod
    def _known_unit(cls, value: str) -> str:
        try:
            resolve_unit(value)
        except ToolInputError as error:
            raise ValueError(str(error)) from None
        return value


# "2,500" is two thousand five hundred, "2,5" two and a half; "1e3" a thousand.
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(-?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)(?:e[-+]?\d{1,3})?)"
    r"(?![\d])",
    re.IGNORECASE,
)
_THOUSANDS = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:e[-+]?\d+)?", re.IGNORECASE)
_TO_WORDS = re.compile(
    r"(?:\b(?:to|in|into|as)\b|->|→|等于多少|是多少|合多少|换算成|换算为|转换成|转换为|转成|换成"
    r"|多少|到|为)\s*",
    re.IGNORECASE,
)
# Words that ask for a conversion: after them a number is the value, whatever follows it.
_CONVERT = re.compile(r"\b(?:convert|conversion)\b|换算|转换|折合", re.IGNORECASE)
_TO_TRIES = 4
# A reply of one word, which reads as a try at naming a unit; the words that are no try.
_WORD = re.compile(r"[A-Za-z]{2,24}")
_TO_WORD_AT_END = re.compile(r"\b(?:to|into)\s+([A-Za-z]{2,24})[\s.!?]*$", re.IGNORECASE)
_WORD_AFTER = re.compile(r"\s*([A-Za-z]{2,24})\b")
_NOT_A_TRY = {"yes", "no", "ok", "okay", "sure", "hi", "hello", "hey", "thanks", "please", "what"}
_NOT_A_TRY |= {"why", "how", "idk", "dunno", "help", "of", "the", "and", "or", "in", "at", "is"}
_UNIT_WINDOW = 120
_HOW_MANY = re.compile(r"\bhow many\s+", re.IGNORECASE)


def read_unit(text: str) -> tuple[str, int] | None:
    """A unit at the start of `text`, as written, and its length; the longest spelling wins."""
    text_stripped = text.lstrip()
    offset = len(text) - len(text_stripped)
    for alias in CHINESE_ALIASES:
        if text_stripped.startswith(alias):
            return alias, offset + len(alias)
    words = re.match(
        # Exponents are read whole, so that "m**9**9" is refused rather than read as "m".
        r"([°℃℉]?[a-zA-Zµ]+(?:(?:\*\*|[/*^·])[-+]?[a-zA-Z0-9]+|[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)*)"
        r"(?:\s+([a-zA-Z]+))?"
        r"(?:\s+([a-zA-Z]+))?",
        text_stripped,
    )
    if not words:
        return None
    parts = [p for p in words.groups() if p]
    # Try "miles per hour", then "nautical miles", then "miles".
    for count in range(len(parts), 0, -1):
        candidate = _spelled_unit(" ".join(parts[:count]))
        if candidate is None:
            continue
        end = text_stripped.find(parts[count - 1]) + len(parts[count - 1])
        return candidate, offset + end
    return None


# What a number may be followed by and still be the value to convert: a connector ("5 to km",
# "5 换成公里"), or a unit, or nothing.
_FILLERS = frozenset({"please", "pls", "thanks", "thank", "now", "for", "from", "请", "吧"})
_THING = re.compile(r"\s*(?:[^\W\d_]+|[\u4e00-\u9fff]+)")


def _number(written: str) -> float:
    if _THOUSANDS.fullmatch(written):
        return float(written.replace(",", ""))
    return float(written.replace(",", "."))


def _counts_something_else(after: str) -> bool:
    """Whether the words right after a number name things that are not a unit ("3 cats",
    "3只猫"), so the number is not a value to convert."""
    thing = _THING.match(after)
    if not thing or thing[0].strip().lower() in _FILLERS or read_unit(after) is not None:
        return False
    return not _TO_WORDS.match(after.lstrip())


def _is_unit(text: str) -> bool:
    try:
        resolve_unit(text)
    except ToolInputError:
        return False
    return True


def _spelled_unit(text: str) -> str | None:
    """`text` as a unit spelling that resolves; shouting ("KM", "MILES") is read in lower case."""
    return next((s for s in (text, text.lower()) if s and _is_unit(s)), None)


def _unknown_word(text: str, known: dict[str, Any]) -> str:
    """The word a request gave for a unit it still lacks: "blargs" in "convert 5 blargs to
    km" or in "convert 5 km to blargs"; empty when there is none."""
    number = _NUMBER.search(text[:_UNIT_WINDOW]) if "from_unit" not in known else None
    if number and (after := _WORD_AFTER.match(text, number.end(), _UNIT_WINDOW)):
        return after.group(1)
    if "to_unit" not in known and (target := _TO_WORD_AT_END.search(text[-_UNIT_WINDOW:])):
        return target.group(1)
    return ""


def _units_in_reply(text: str, known: dict[str, Any]) -> dict[str, Any]:
    """Units in a reply to "which unit?": "to kilometers", "from miles", "miles to km", "用公里"."""
    reply = reply_value(text)
    pair = split_pair(reply.value)
    if pair and all(map(_spelled_unit, pair)):
        return {"from_unit": _spelled_unit(pair[0]), "to_unit": _spelled_unit(pair[1])}
    unit = _spelled_unit(reply.value)
    for slot in ("from_unit", "to_unit"):
        if unit and known.get(slot) == unit:
            # One unit is one answer: "km" to "which units?" fills one of the two, once,
            # however often the reply is read.
            return {slot: unit}
    found = fill_slot(reply, unit, ("from_unit", "to_unit"), known) if unit else {}
    # "celsius" for 5 miles answers nothing: the question is asked again, not a call made
    # that can only fail.
    other = {"from_unit": known.get("to_unit"), "to_unit": known.get("from_unit")}
    return {k: v for k, v in found.items() if _same_kind(str(v), str(other.get(k) or ""))}


# What a unit measures, by pint's dimensions; anything else is named by its dimensions.
_KINDS = {
    "[length]": "length",
    "[mass]": "mass",
    "[temperature]": "temperature",
    "[time]": "time",
    "[length] ** 2": "area",
    "[length] ** 3": "volume",
    "[length] / [time]": "speed",
    "[mass] * [length] ** 2 / [time] ** 2": "energy",
    "[mass] * [length] ** 2 / [time] ** 3": "power",
    "[mass] / [length] / [time] ** 2": "pressure",
}


def _kind(dims: str, language: str) -> str:
    key = _KINDS.get(dims)
    return say(language, f"tools.convert_units.kinds.{key}") if key else dims


def _same_kind(a: str, b: str) -> bool:
    """Whether units `a` and `b` measure the same thing (True when either is empty or does
    not read)."""
    if not a or not b:
        return True
    try:
        units = registry()
        return units.get_dimensionality(resolve_unit(a)) == units.get_dimensionality(
            resolve_unit(b)
        )
    except ToolInputError:
        return True


class ConvertUnits(Tool[ConvertArgs]):
    name = "convert_units"
    quick = True
    description = (
        "Convert a quantity between units (length, mass, temperature, volume, area, speed, "
        "time, energy, data size). All three arguments are required."
    )
    Args = ConvertArgs

    def warm_up(self) -> None:
        registry()

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        text = with_digits(normalise(text), CHINESE_UNITS)  # "five miles", "五英里"
        found: dict[str, Any] = {}
        number = _NUMBER.search(text)
        asked = number is not None and _CONVERT.search(text[: number.start()]) is not None
        if number and not asked and _counts_something_else(text[number.end() :]):
            number = None  # "I have 3 cats": a number of things, not of a unit
        if number:
            found["value"] = _number(number.group(1))
            after = text[number.end() :]
            unit = read_unit(after)
            if unit:
                found["from_unit"] = unit[0]
                after = after[unit[1] :]
            # The first "to" followed by a unit ("5 英里到底是多少公里" has a 到 before it),
            # among the first few, each read within a unit's length: a message of ten
            # thousand "to"s costs no more than a short one.
            for target in itertools.islice(_TO_WORDS.finditer(after), _TO_TRIES):
                to_unit = read_unit(after[target.end() : target.end() + _UNIT_WINDOW])
                if to_unit:
                    found["to_unit"] = to_unit[0]
                    break
        how_many = _HOW_MANY.search(text)
        if how_many and "to_unit" not in found:
            to_unit = read_unit(text[how_many.end() :])
            if to_unit:
                found["to_unit"] = to_unit[0]
        return found or _units_in_reply(text, known)

    def reply_problem(self, text: str, known: dict[str, Any], language: str) -> str | None:
        value = reply_value(normalise(text)).value
        unit = _spelled_unit(value)
        if unit is None:
            # One word that is no unit ("blargs", or "… to blargs" at a request's end): say
            # so, or the same question comes back as if it had not been heard.
            word = value if _WORD.fullmatch(value) else _unknown_word(text, known)
            if word and word.lower() not in _NOT_A_TRY and not _spelled_unit(word):
                return say(language, "tools.convert_units.unknown_unit", unit=word)
            return None
        other = known.get("from_unit") or known.get("to_unit")
        if not other or _same_kind(unit, str(other)):
            return None
        return say(language, "tools.convert_units.other_kind", unit=unit, other=other)

    def run(self, args: ConvertArgs, ctx: ToolContext) -> ToolResult:
        units = registry()
        source, target = resolve_unit(args.from_unit), resolve_unit(args.to_unit)
        try:
            converted = units.Quantity(args.value, source).to(target)
        except OverflowError:
            converted = None
        except Exception as error:
            dims = [str(units.get_dimensionality(u)) for u in (source, target)]
            if dims[0] != dims[1]:
                # Said in the turn's language, with everyday names for what each measures:
                # a model passes it on, and the offline model quotes it.
                language = language_of(ctx)
                raise ToolInputError(
                    say(
                        language,
                        "tools.convert_units.different_kinds",
                        unit=args.from_unit,
                        kind=_kind(dims[0], language),
                        other=args.to_unit,
                        other_kind=_kind(dims[1], language),
                    )
                ) from None
            raise ToolInputError(f"Could not convert: {error}.") from None
        magnitude = float(converted.magnitude) if converted is not None else math.inf
        if not math.isfinite(magnitude):
            raise ToolInputError(
                "The converted value is too large to represent; use a smaller value."
            )
        language = language_of(ctx)
        text = (
            f"{format_number(args.value)} {unit_name(source, language)} = "
            f"{format_number(magnitude)} {unit_name(target, language)}"
        )
        return ToolResult(
            text=text,
            data={
                "value": args.value,
                "from_unit": str(source),
                "to_unit": str(target),
                "result": magnitude,
            },
        )
