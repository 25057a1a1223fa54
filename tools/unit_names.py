"""Everyday spellings of units (symbols, plurals, Chinese names), the names pint knows, and
how a spelling becomes a pint unit within bounds."""

from __future__ import annotations

import functools
import re
from typing import Any

from tools.base import ToolInputError

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
# The Chinese names, longest first ("摄氏度" before "摄氏"), and as a pattern: they stand
# without spaces around them, so a reader looks for them by name.
CHINESE_ALIASES = sorted((a for a in ALIASES if not a.isascii()), key=len, reverse=True)
CHINESE_UNITS = "|".join(map(re.escape, CHINESE_ALIASES))


MAX_UNIT_CHARS = 40
# pint evaluates exponents as Python numbers, so "m^3^3^3^3" (3**7625597484987) would run for
# ever; unit text is checked against these bounds before pint sees it.
MAX_UNIT_PARTS = 4
MAX_EXPONENT = 3
UNIT_EXAMPLES = "km, mile, m, cm, ft, inch, kg, lb, g, °C, °F, K, liter, gallon, km/h, mph"

_EXTRA_DEFINITIONS = ("jin = 0.5 * kilogram", "mu = 10000 / 15 * meter ** 2")
_UNIT_TOKEN = re.compile(
    r"\s*(?:(?P<word>(?:[°℃℉]|[^\W\d_⁰¹²³⁴⁵⁶⁷⁸⁹])+(?:_[^\W\d_⁰¹²³⁴⁵⁶⁷⁸⁹]+)*)"
    r"|(?P<power>(?:\^|\*\*)\s*[-+]?\d+(?:\.\d+)?|⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
    r"|(?P<op>[*/·]))"
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_EXPONENT_HINT = (
    f" (a unit takes at most one exponent, a whole number from -{MAX_EXPONENT} to "
    f"{MAX_EXPONENT}, as in m^2 or s^-1)"
)


def unit_shape_problem(spelled: str) -> str | None:
    """Why `spelled` is not a plain unit expression (words joined by * / or spaces, each with at
    most one small whole exponent), as a hint for the error message; None when it is one."""
    if len(spelled) > MAX_UNIT_CHARS:
        return f" (longer than {MAX_UNIT_CHARS} characters)"
    parts, previous, position = 0, "op", 0
    while position < len(spelled):
        token = _UNIT_TOKEN.match(spelled, position)
        if token is None:
            return ""
        position, kind = token.end(), token.lastgroup
        if kind == "word":
            parts += 1
            if parts > MAX_UNIT_PARTS:
                return f" (at most {MAX_UNIT_PARTS} units combined, as in km/h or kW*h)"
        elif kind == "power":
            number = token.group("power").lstrip("^*").strip().translate(_SUPERSCRIPTS)
            # After an exponent or an operator, another exponent is a power tower or nonsense.
            whole = re.fullmatch(r"[-+]?\d+", number)
            if previous != "word" or not whole or abs(int(number)) > MAX_EXPONENT:
                return _EXPONENT_HINT
        elif previous == "op":
            return ""
        previous = str(kind)
    return "" if previous == "op" else None


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

    def unknown(hint: str = "") -> ToolInputError:
        return ToolInputError(
            f"Unknown unit {spelled[:MAX_UNIT_CHARS]!r}{hint}; use a unit name or symbol such as "
            f"{UNIT_EXAMPLES}."
        )

    problem = unit_shape_problem(spelled)
    if problem is not None:
        raise unknown(problem)
    name = ALIASES.get(spelled.lower(), spelled)
    if unit_shape_problem(name) is not None:
        raise unknown()
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
        raise unknown()
    if unit.dimensionless or _false_friend(name):
        raise unknown()
    return unit


# Units that pint finds inside everyday words with a prefix before them: "cats" reads as
# centi-technical-atmospheres, "hats", "mats" and "rats" likewise, "units" as micro-nits.
_FALSE_FRIENDS = frozenset({"technical_atmosphere", "nit"})


def _false_friend(name: str) -> bool:
    """Whether `name` is one word that pint reads only as a prefix on a false friend."""
    if not name.isalpha():
        return False
    readings = registry().parse_unit_name(name)
    return bool(readings) and all(
        prefix and unit in _FALSE_FRIENDS for prefix, unit, _suffix in readings
    )
