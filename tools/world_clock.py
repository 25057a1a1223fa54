"""`world_clock`: the time now in a city or IANA time zone (`zoneinfo`, data from `tzdata`).

`place` is required: "what time is it?" says nothing about where, so the agent asks. The current
instant comes from the module-level `now()` or the `clock` given to the tool, so tests can fix it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from pydantic import Field

from tools.base import StrictArgs, Tool, ToolContext, ToolInputError, ToolResult, language_of
from tools.phrases import normalise, reply_value
from tools.words import both


def now() -> datetime:
    return datetime.now(UTC)


# (names people use, zone). English names are matched case-insensitively on word boundaries.
_CITIES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("beijing", "peking", "北京"), "Asia/Shanghai"),
    (("shanghai", "上海"), "Asia/Shanghai"),
    (("guangzhou", "广州"), "Asia/Shanghai"),
    (("shenzhen", "深圳"), "Asia/Shanghai"),
    (("chengdu", "成都"), "Asia/Shanghai"),
    (("hangzhou", "杭州"), "Asia/Shanghai"),
    (("wuhan", "武汉"), "Asia/Shanghai"),
    (("xi'an", "xian", "西安"), "Asia/Shanghai"),
    (("chongqing", "重庆"), "Asia/Shanghai"),
    (("nanjing", "南京"), "Asia/Shanghai"),
    (("tianjin", "天津"), "Asia/Shanghai"),
    (("china", "中国"), "Asia/Shanghai"),
    (("hong kong", "香港"), "Asia/Hong_Kong"),
    (("macau", "macao", "澳门"), "Asia/Macau"),
    (("taipei", "台北", "taiwan", "台湾"), "Asia/Taipei"),
    (("tokyo", "东京", "japan", "日本"), "Asia/Tokyo"),
    (("osaka", "大阪"), "Asia/Tokyo"),
    (("seoul", "首尔", "汉城", "korea", "韩国"), "Asia/Seoul"),
    (("pyongyang", "平壤"), "Asia/Pyongyang"),
    (("singapore", "新加坡"), "Asia/Singapore"),
    (("kuala lumpur", "吉隆坡", "malaysia", "马来西亚"), "Asia/Kuala_Lumpur"),
    (("bangkok", "曼谷", "thailand", "泰国"), "Asia/Bangkok"),
    (
        ("hanoi", "河内", "ho chi minh city", "saigon", "胡志明市", "vietnam", "越南"),
        "Asia/Ho_Chi_Minh",
    ),
    (("jakarta", "雅加达", "indonesia", "印度尼西亚"), "Asia/Jakarta"),
    (("manila", "马尼拉", "philippines", "菲律宾"), "Asia/Manila"),
    (
        ("new delhi", "delhi", "新德里", "mumbai", "孟买", "bangalore", "india", "印度"),
        "Asia/Kolkata",
    ),
    (("kathmandu", "加德满都"), "Asia/Kathmandu"),
    (("dhaka", "达卡"), "Asia/Dhaka"),
    (("karachi", "卡拉奇", "pakistan", "巴基斯坦"), "Asia/Karachi"),
    (("dubai", "迪拜", "abu dhabi", "阿布扎比"), "Asia/Dubai"),
    (("doha", "多哈"), "Asia/Qatar"),
    (("riyadh", "利雅得", "saudi arabia", "沙特"), "Asia/Riyadh"),
    (("tehran", "德黑兰", "iran", "伊朗"), "Asia/Tehran"),
    (("jerusalem", "耶路撒冷", "tel aviv", "特拉维夫", "israel", "以色列"), "Asia/Jerusalem"),
    (("istanbul", "伊斯坦布尔", "turkey", "土耳其"), "Europe/Istanbul"),
    (("moscow", "莫斯科", "russia", "俄罗斯"), "Europe/Moscow"),
    (("london", "伦敦", "uk", "england", "英国"), "Europe/London"),
    (("dublin", "都柏林", "ireland", "爱尔兰"), "Europe/Dublin"),
    (("lisbon", "里斯本", "portugal", "葡萄牙"), "Europe/Lisbon"),
    (("paris", "巴黎", "france", "法国"), "Europe/Paris"),
    (
        ("berlin", "柏林", "munich", "慕尼黑", "frankfurt", "法兰克福", "germany", "德国"),
        "Europe/Berlin",
    ),
    (("madrid", "马德里", "barcelona", "巴塞罗那", "spain", "西班牙"), "Europe/Madrid"),
    (("rome", "罗马", "milan", "米兰", "italy", "意大利"), "Europe/Rome"),
    (("amsterdam", "阿姆斯特丹", "netherlands", "荷兰"), "Europe/Amsterdam"),
    (("brussels", "布鲁塞尔", "belgium", "比利时"), "Europe/Brussels"),
    (("zurich", "苏黎世", "geneva", "日内瓦", "switzerland", "瑞士"), "Europe/Zurich"),
    (("vienna", "维也纳", "austria", "奥地利"), "Europe/Vienna"),
    (("prague", "布拉格"), "Europe/Prague"),
    (("warsaw", "华沙", "poland", "波兰"), "Europe/Warsaw"),
    (("stockholm", "斯德哥尔摩", "sweden", "瑞典"), "Europe/Stockholm"),
    (("oslo", "奥斯陆", "norway", "挪威"), "Europe/Oslo"),
    (("copenhagen", "哥本哈根", "denmark", "丹麦"), "Europe/Copenhagen"),
    (("helsinki", "赫尔辛基", "finland", "芬兰"), "Europe/Helsinki"),
    (("athens", "雅典", "greece", "希腊"), "Europe/Athens"),
    (("kyiv", "kiev", "基辅", "ukraine", "乌克兰"), "Europe/Kyiv"),
    (("cairo", "开罗", "egypt", "埃及"), "Africa/Cairo"),
    (("nairobi", "内罗毕", "kenya", "肯尼亚"), "Africa/Nairobi"),
    (("lagos", "拉各斯", "nigeria", "尼日利亚"), "Africa/Lagos"),
    (
        ("johannesburg", "约翰内斯堡", "cape town", "开普敦", "south africa", "南非"),
        "Africa/Johannesburg",
    ),
    (("casablanca", "卡萨布兰卡", "morocco", "摩洛哥"), "Africa/Casablanca"),
    (
        ("new york", "nyc", "纽约", "washington", "华盛顿", "boston", "波士顿", "miami", "迈阿密"),
        "America/New_York",
    ),
    (("toronto", "多伦多", "montreal", "蒙特利尔"), "America/Toronto"),
    (("chicago", "芝加哥", "houston", "休斯顿", "dallas", "达拉斯"), "America/Chicago"),
    (("denver", "丹佛"), "America/Denver"),
    (("phoenix", "菲尼克斯"), "America/Phoenix"),
    (
        (
            "los angeles",
            "la",
            "洛杉矶",
            "san francisco",
            "旧金山",
            "seattle",
            "西雅图",
            "las vegas",
            "拉斯维加斯",
            "silicon valley",
            "硅谷",
        ),
        "America/Los_Angeles",
    ),
    (("vancouver", "温哥华"), "America/Vancouver"),
    (("anchorage", "安克雷奇"), "America/Anchorage"),
    (("honolulu", "檀香山", "hawaii", "夏威夷"), "Pacific/Honolulu"),
    (("mexico city", "墨西哥城", "mexico", "墨西哥"), "America/Mexico_City"),
    (
        ("sao paulo", "são paulo", "圣保罗", "rio de janeiro", "里约热内卢", "brazil", "巴西"),
        "America/Sao_Paulo",
    ),
    (("buenos aires", "布宜诺斯艾利斯", "argentina", "阿根廷"), "America/Argentina/Buenos_Aires"),
    (("lima", "利马", "peru", "秘鲁"), "America/Lima"),
    (("bogota", "波哥大", "colombia", "哥伦比亚"), "America/Bogota"),
    (("santiago", "圣地亚哥", "chile", "智利"), "America/Santiago"),
    (("sydney", "悉尼"), "Australia/Sydney"),
    (("melbourne", "墨尔本"), "Australia/Melbourne"),
    (("brisbane", "布里斯班"), "Australia/Brisbane"),
    (("perth", "珀斯"), "Australia/Perth"),
    (("auckland", "奥克兰", "new zealand", "新西兰"), "Pacific/Auckland"),
    (("utc", "gmt", "协调世界时", "格林尼治"), "UTC"),
)

CITY_ZONES: dict[str, str] = {name: zone for names, zone in _CITIES for name in names}


@functools.cache
def _zones_by_city() -> dict[str, str]:
    """The last part of every IANA zone ("lisbon" for Europe/Lisbon), for cities not listed."""
    zones: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        if "/" in zone and not zone.startswith(("Etc/", "SystemV/", "US/")):
            zones.setdefault(zone.rsplit("/", 1)[1].replace("_", " ").lower(), zone)
    return zones


@functools.cache
def _zone_names() -> dict[str, str]:
    return {zone.lower(): zone for zone in available_timezones()}


def resolve_place(place: str) -> str:
    """The IANA zone for a city, country or zone name; ToolInputError suggesting the form."""
    spelled = " ".join(str(place).split())
    key = spelled.lower()
    zone = (
        CITY_ZONES.get(key) or _zone_names().get(key.replace(" ", "_")) or _zones_by_city().get(key)
    )
    if zone is None:
        raise ToolInputError(
            f"Unknown place {spelled[:60]!r}; give a major city (e.g. Tokyo, 纽约) or an IANA "
            "time zone such as Europe/Paris or America/New_York."
        )
    return zone


class WorldClockArgs(StrictArgs):
    place: str = Field(
        description=(
            "A city, country or IANA time zone, e.g. Tokyo, 北京, New York, Europe/Paris, UTC."
        ),
        min_length=1,
        max_length=80,
        json_schema_extra={"ask": both("tools.world_clock.ask.place")},
    )


_ENGLISH_NAMES = sorted((n for n in CITY_ZONES if n.isascii()), key=len, reverse=True)
_CHINESE_NAMES = sorted((n for n in CITY_ZONES if not n.isascii()), key=len, reverse=True)
# "la" and "uk" are too short to trust in running English text; they still resolve as a place.
_ENGLISH_PATTERN = re.compile(
    r"\b("
    + "|".join(re.escape(n) for n in _ENGLISH_NAMES if len(n) > 2 or n in ("utc", "gmt", "nyc"))
    + r")\b",
    re.IGNORECASE,
)
_SHORT_NAMES = re.compile(r"\b(LA|UK)\b")
_IANA_PATTERN = re.compile(r"\b[A-Z][A-Za-z_]+(?:/[A-Za-z_+-]+){1,2}\b")
_IN_PLACE = re.compile(r"\b(?:in|at|for)\s+([A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)?)")


class WorldClock(Tool[WorldClockArgs]):
    name = "world_clock"
    quick = True
    description = (
        "The current local date and time in a city or IANA time zone, with its UTC offset."
    )
    Args = WorldClockArgs

    def __init__(self, clock: Callable[[], datetime] | None = None) -> None:
        self._clock = clock

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        text = normalise(text)
        for name in _CHINESE_NAMES:
            if name in text:
                return {"place": name}
        for match in _IANA_PATTERN.finditer(text):
            if match.group(0).lower() in _zone_names():
                return {"place": _zone_names()[match.group(0).lower()]}
        match = _ENGLISH_PATTERN.search(text) or _SHORT_NAMES.search(text)
        if match:
            return {"place": match.group(1)}
        for match in _IN_PLACE.finditer(text):
            if match.group(1).lower() in _zones_by_city():
                return {"place": match.group(1)}
        # A reply such as "in reykjavik please" or "I meant Lima": the place inside the phrase.
        bare = reply_value(text).value
        if bare and len(bare) <= 40:
            try:
                resolve_place(bare)
            except ToolInputError:
                return {}
            return {"place": bare}
        return {}

    def run(self, args: WorldClockArgs, ctx: ToolContext) -> ToolResult:
        zone_name = resolve_place(args.place)
        instant = (self._clock or now)()
        if instant.tzinfo is None:
            instant = instant.replace(tzinfo=UTC)
        local = instant.astimezone(ZoneInfo(zone_name))
        offset = local.strftime("%z")
        offset = f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC"
        abbreviation = local.tzname() or ""
        # Zones without a name abbreviation report "+05"; the offset already says that.
        label = (
            offset
            if abbreviation[:1] in ("", "+", "-") or abbreviation == "UTC"
            else (f"{offset}, {abbreviation}")
        )
        text = _sentence(language_of(ctx), args.place, zone_name, local, label)
        return ToolResult(
            text=text,
            data={
                "place": args.place,
                "zone": zone_name,
                "local_time": local.isoformat(timespec="seconds"),
                "utc_offset": offset,
                "abbreviation": local.tzname(),
            },
        )


_WEEKDAYS_ZH = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")


def _sentence(language: str, place: str, zone: str, local: datetime, label: str) -> str:
    """The time as the person reads it; the zone and the offset stay as written everywhere."""
    if language == "zh":
        # A name in Latin letters keeps a space before the Chinese that follows it.
        where = f"{place} " if place == zone else f"{place}（{zone}）"
        day = _WEEKDAYS_ZH[local.weekday()]
        label = label.replace(", ", "，")
        return f"{where}现在是 {local:%H:%M}，{day}，{local:%Y-%m-%d}（{label}）。"
    where = place if place == zone else f"{place} ({zone})"
    return f"In {where} it is {local:%H:%M} on {local:%A, %Y-%m-%d} ({label})."
