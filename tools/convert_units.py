"""`convert_units`: a quantity from one unit to another, with `pint`.

All three arguments are required and have no defaults: when the person leaves one out, the agent
asks for it rather than guessing. Everyday spellings (symbols, plurals, Chinese unit names) go
through a small alias table before pint reads them.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from typing import Any

from pydantic import Field, field_validator

from tools.base import StrictArgs, Tool, ToolContext, ToolInputError, ToolResult
from tools.phrases import fill_slot, normalise, reply_value, split_pair

MAX_UNIT_CHARS = 40
UNIT_EXAMPLES = "km, mile, m, cm, ft, inch, kg, lb, g, °C, °F, K, liter, gallon, km/h, mph"

# Lower-cased spelling -> a name pint knows. Chinese names have no spaces, so the extractor also
# uses this table to find where one unit ends and the next word begins.
ALIASES: dict[str, str] = {
    "°c": "degC",
    "℃": "degC",
    "c": "degC",
    "celsius": "degC",
    "centigrade": "degC",
    "degrees celsius": "degC",
    "degree celsius": "degC",
    "摄氏度": "degC",
    "摄氏": "degC",
    "°f": "degF",
    "℉": "degF",
    "f": "degF",
    "fahrenheit": "degF",
    "degrees fahrenheit": "degF",
    "degree fahrenheit": "degF",
    "华氏度": "degF",
    "华氏": "degF",
    "开尔文": "kelvin",
    "公里": "km",
    "千米": "km",
    "kilometres": "km",
    "kilometre": "km",
    "kms": "km",
    "英里": "mile",
    "mi": "mile",
    "米": "m",
    "厘米": "cm",
    "毫米": "mm",
    "微米": "um",
    "英尺": "foot",
    "尺": "foot",
    "英寸": "inch",
    "寸": "inch",
    "码": "yard",
    "海里": "nautical_mile",
    "nautical miles": "nautical_mile",
    "nautical mile": "nautical_mile",
    "公斤": "kg",
    "千克": "kg",
    "克": "g",
    "毫克": "mg",
    "吨": "metric_ton",
    "tonnes": "metric_ton",
    "磅": "lb",
    "lbs": "lb",
    "盎司": "oz",
    "斤": "jin",
    "升": "liter",
    "公升": "liter",
    "毫升": "ml",
    "litres": "liter",
    "litre": "liter",
    "加仑": "gallon",
    "gallons": "gallon",
    "fl oz": "fluid_ounce",
    "fluid ounces": "fluid_ounce",
    "fluid ounce": "fluid_ounce",
    "品脱": "pint",
    "杯": "cup",
    "平方米": "m**2",
    "平方公里": "km**2",
    "平方千米": "km**2",
    "平方英尺": "ft**2",
    "公顷": "hectare",
    "英亩": "acre",
    "亩": "mu",
    "立方米": "m**3",
    "square meters": "m**2",
    "square metres": "m**2",
    "square feet": "ft**2",
    "square kilometers": "km**2",
    "square kilometres": "km**2",
    "square miles": "mile**2",
    "公里每小时": "km/hour",
    "公里/小时": "km/hour",
    "千米每小时": "km/hour",
    "kph": "km/hour",
    "米每秒": "m/s",
    "英里每小时": "mile/hour",
    "miles per hour": "mile/hour",
    "kilometers per hour": "km/hour",
    "kilometres per hour": "km/hour",
    "节": "knot",
    "小时": "hour",
    "分钟": "minute",
    "秒": "second",
    "天": "day",
    "周": "week",
    "毫秒": "ms",
    "千瓦": "kW",
    "瓦": "W",
    "千瓦时": "kWh",
    "焦耳": "J",
    "千焦": "kJ",
    "卡路里": "calorie",
    "大卡": "kcal",
    "千卡": "kcal",
    "马力": "hp",
    "帕": "Pa",
    "千帕": "kPa",
    "标准大气压": "atm",
    "字节": "byte",
    "千字节": "kB",
    "兆字节": "MB",
    "吉字节": "GB",
}
_EXTRA_DEFINITIONS = ("jin = 0.5 * kilogram", "mu = 10000 / 15 * meter ** 2")
_UNIT_CHARS = re.compile(r"^[\w\s°℃℉/*^·²³µ.-]*$")


@functools.cache
def registry() -> Any:
    """The pint registry, built on first use: building it takes a noticeable moment."""
    import pint

    units = pint.UnitRegistry()
    for definition in _EXTRA_DEFINITIONS:
        units.define(definition)
    return units


def resolve_unit(text: str) -> Any:
    """The pint unit for a person's spelling; ToolInputError listing examples otherwise."""
    spelled = str(text).strip()
    unknown = ToolInputError(
        f"Unknown unit {spelled[:MAX_UNIT_CHARS]!r}; use a unit name or symbol such as "
        f"{UNIT_EXAMPLES}."
    )
    if not spelled or len(spelled) > MAX_UNIT_CHARS or not _UNIT_CHARS.match(spelled):
        raise unknown
    # Exponents beyond cubes only serve to overflow the conversion factor.
    if re.search(r"\d\d|\.\.", spelled) or re.search(r"[4-9]", spelled):
        raise unknown
    name = ALIASES.get(spelled.lower(), spelled)
    # pint reads a space as multiplication, so "°F in celsius" would parse; words must be joined.
    candidates = [name.replace("°", "deg").replace(" ", "_")]
    if not re.search(r"\s", name):
        candidates.append(name)
    for candidate in candidates:
        try:
            unit = registry().parse_units(candidate)
            break
        except Exception:
            continue
    else:
        raise unknown
    if unit.dimensionless:
        raise unknown
    return unit


def format_number(value: float) -> str:
    return f"{value:.10g}"


class ConvertArgs(StrictArgs):
    value: float = Field(
        description="The number to convert, e.g. 5.",
        json_schema_extra={
            "ask": {"en": "What amount should I convert?", "zh": "要换算的数值是多少？"}
        },
    )
    from_unit: str = Field(
        description="The unit of the value, e.g. miles, km, °C, kg, lb, liter, km/h.",
        json_schema_extra={"ask": {"en": "Which unit is it in?", "zh": "原来的单位是什么？"}},
    )
    to_unit: str = Field(
        description="The unit to convert to, e.g. km, °F, pound, gallon.",
        json_schema_extra={
            "ask": {"en": "Which unit should I convert it to?", "zh": "要换算成什么单位？"}
        },
    )

    @field_validator("from_unit", "to_unit")
    @classmethod
    def _known_unit(cls, value: str) -> str:
        try:
            resolve_unit(value)
        except ToolInputError as error:
            raise ValueError(str(error)) from None
        return value


_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(-?\d+(?:[.,]\d+)?)(?![\d])")
_ENGLISH_UNIT = re.compile(r"[°℃℉]?\s*[a-zA-Zµ]+(?:[/*^][a-zA-Z0-9]+)*")
_TO_WORDS = re.compile(
    r"(?:\b(?:to|in|into|as)\b|等于多少|是多少|合多少|换算成|换算为|转换成|转换为|转成|换成|多少)\s*",
    re.IGNORECASE,
)
_HOW_MANY = re.compile(r"\bhow many\s+", re.IGNORECASE)
_CHINESE_ALIASES = sorted((a for a in ALIASES if not a.isascii()), key=len, reverse=True)
# "5公里等于多少英里" but not "3的平方根是多少": the words after the number must be a unit.
_CHINESE_QUESTION = (
    r"\d\s*(?:" + "|".join(map(re.escape, _CHINESE_ALIASES)) + r")\s*(?:等于|是|合|能换)多少"
)


def read_unit(text: str) -> tuple[str, int] | None:
    """A unit at the start of `text`, as written, and its length; the longest spelling wins."""
    text_stripped = text.lstrip()
    offset = len(text) - len(text_stripped)
    for alias in _CHINESE_ALIASES:
        if text_stripped.startswith(alias):
            return alias, offset + len(alias)
    words = re.match(
        r"([°℃℉]?[a-zA-Zµ]+(?:[/*^][a-zA-Z0-9]+)*)(?:\s+([a-zA-Z]+))?"
        r"(?:\s+([a-zA-Z]+))?",
        text_stripped,
    )
    if not words:
        return None
    parts = [p for p in words.groups() if p]
    # Try "miles per hour", then "nautical miles", then "miles".
    for count in range(len(parts), 0, -1):
        candidate = " ".join(parts[:count])
        try:
            resolve_unit(candidate)
        except ToolInputError:
            continue
        end = text_stripped.find(parts[count - 1]) + len(parts[count - 1])
        return candidate, offset + end
    return None


def _is_unit(text: str) -> bool:
    try:
        resolve_unit(text)
    except ToolInputError:
        return False
    return True


def _spelled_unit(text: str) -> str | None:
    """`text` as a unit spelling that resolves; shouting ("KM", "MILES") is read in lower case."""
    return next((s for s in (text, text.lower()) if s and _is_unit(s)), None)


def _units_in_reply(text: str, known: dict[str, Any]) -> dict[str, Any]:
    """Units in a reply to "which unit?": "to kilometers", "from miles", "miles to km", "用公里"."""
    reply = reply_value(text)
    pair = split_pair(reply.value)
    if pair and all(map(_spelled_unit, pair)):
        return {"from_unit": _spelled_unit(pair[0]), "to_unit": _spelled_unit(pair[1])}
    unit = _spelled_unit(reply.value)
    return fill_slot(reply, unit, ("from_unit", "to_unit"), known) if unit else {}


_COMMON_UNITS = (
    r"(?:km|kilomet(?:er|re)s?|miles?|kg|pounds?|lbs?|feet|foot|meters?|metres?|inch(?:es)?"
    r"|liters?|litres?|gallons?|ounces?|grams?|celsius|fahrenheit)\b"
)


class ConvertUnits(Tool):
    name = "convert_units"
    description = (
        "Convert a quantity between units (length, mass, temperature, volume, area, speed, "
        "time, energy, data size). All three arguments are required."
    )
    Args = ConvertArgs
    triggers = (
        r"\bconvert\s+-?\d",
        r"\bconvert\b.*\d.*\b(?:to|into|in)\b",
        r"\bhow many\s+\w+(?:\s+\w+)?\s+(?:is|are|in)\s+(?:a|an|one|-?\d)",
        r"\d\s*(?:°\s*[cf]\b|℃|℉|degrees?\s+(?:celsius|fahrenheit))",
        r"\b(?:celsius|fahrenheit)\b",
        r"\d\s*[a-z°]{1,12}\s+(?:in|to)\s+" + _COMMON_UNITS,
        r"\bconvert\s+(?:from\s+)?" + _COMMON_UNITS + r".*\b(?:to|into|in)\b",
        r"换算",
        _CHINESE_QUESTION,
        r"(?:摄氏|华氏)",
        r"单位转换",
    )

    def warm_up(self) -> None:
        registry()

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        text = normalise(text)
        found: dict[str, Any] = {}
        number = _NUMBER.search(text)
        if number:
            found["value"] = float(number.group(1).replace(",", "."))
            after = text[number.end() :]
            unit = read_unit(after)
            if unit:
                found["from_unit"] = unit[0]
                after = after[unit[1] :]
            target = _TO_WORDS.search(after)
            if target:
                to_unit = read_unit(after[target.end() :])
                if to_unit:
                    found["to_unit"] = to_unit[0]
        how_many = _HOW_MANY.search(text)
        if how_many and "to_unit" not in found:
            to_unit = read_unit(text[how_many.end() :])
            if to_unit:
                found["to_unit"] = to_unit[0]
        return found or _units_in_reply(text, known)

    def run(self, args: ConvertArgs, ctx: ToolContext) -> ToolResult:
        units = registry()
        source, target = resolve_unit(args.from_unit), resolve_unit(args.to_unit)
        try:
            converted = units.Quantity(args.value, source).to(target)
        except Exception as error:
            dims = [str(units.get_dimensionality(u)) for u in (source, target)]
            if dims[0] != dims[1]:
                raise ToolInputError(
                    f"Cannot convert {args.from_unit} ({dims[0]}) to {args.to_unit} ({dims[1]}): "
                    "they measure different things; choose units of the same kind."
                ) from None
            raise ToolInputError(f"Could not convert: {error}.") from None
        magnitude = float(converted.magnitude)
        if not math.isfinite(magnitude):
            raise ToolInputError(
                "The converted value is too large to represent; use a smaller value."
            )
        text = f"{format_number(args.value)} {source:~P} = {format_number(magnitude)} {target:~P}"
        return ToolResult(
            text=text,
            data={
                "value": args.value,
                "from_unit": str(source),
                "to_unit": str(target),
                "result": magnitude,
            },
        )
