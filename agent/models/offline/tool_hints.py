"""What the offline model knows about each tool, keyed by the tool's name.

The offline model does not understand language: for each tool it knows the phrases that ask for
it (regular expressions, matched case-insensitively; English and Chinese side by side) and its
stage (tools that make an image for others, a zoom or an edit, go first when several fit: stage
0). It reads a tool's arguments from the person's words with the tool's own `extract` (the one
the task dialogue reads replies with), unless the entry gives one of its own. A tool that is not
here is one the offline model never picks; a tool works with it by one entry in `HINTS` (or one
`register` call), never by a field of the tool. A plugin's manifest declares its phrases, and
they are read from there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tools.number_words import CHINESE_PATTERN, ENGLISH_PATTERN
from tools.unit_names import CHINESE_UNITS

# (text, image ids, what the task already knows) -> the arguments found in the text.
Extractor = Callable[[str, Sequence[str], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ToolHints:
    en: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()
    stage: int = 1
    # None: the tool's own `extract`.
    extract: Extractor | None = None
    # What the tool does for the plans that look at images: "text" reads what is written in
    # one (the plan when no tool was asked for), "codes" decodes QR codes and barcodes.
    role: str = ""
    # What an image is (`tools.image_refs` content: receipt, sign, code...) the tool can tell.
    shows: tuple[str, ...] = ()

    @property
    def triggers(self) -> tuple[str, ...]:
        return (*self.en, *self.zh)


_COMMON_UNITS = (
    r"(?:km|kilomet(?:er|re)s?|miles?|kg|pounds?|lbs?|feet|foot|meters?|metres?|inch(?:es)?"
    r"|liters?|litres?|gallons?|ounces?|grams?|celsius|fahrenheit)\b"
)
_UNIT_SYMBOLS = (
    r"(?:km|m|cm|mm|mi|ft|yd|in|kg|g|mg|lbs?|oz|l|ml|gal|mph|kph|km/h|m/s|kn|°[cf]|[cfk]|kwh|j"
    r"|kj|cal|kcal|b|kb|mb|gb|tb|s|min|h|hr)\b"
)

HINTS: dict[str, ToolHints] = {
    "read_text": ToolHints(
        en=(
            r"\bread\b.*\b(?:small |fine )?print\b",
            r"\bOCR\b",
            r"\bread (?:the |this |out |all )?(?:text|words?|sign|label|writing|it|what)",
            r"\btranscribe",
            r"\bread (?:out |me )?(?:the|this|that|my|it)\b",
            r"\b(?:extract|copy|get|pull) (?:out )?(?:the |all )?(?:the )?(?:text|words|writing)",
            r"\btext\b",
            r"\bwritten\b",
            r"what does .* say",
            r"what do(?:es)? (?:it|they|the \w+) say",
        ),
        zh=(
            r"识别.*文字|文字识别|识字",
            r"文字",
            r"文本",
            r"写了什么",
            r"写的什么",
            r"写着什么",
            r"上面写",
            r"(?:读|念)(?:一下|一读|读|出来?|取)",
            r"(?:再|然后|并|后)(?:读|念)",
        ),
        role="text",
        shows=("receipt", "sign", "label"),
    ),
    "scan_code": ToolHints(
        en=(
            r"\bQR\b",
            r"\bscan\b",
            r"qr ?code",
            r"bar ?code",
            r"\bEAN\b",
            r"\bUPC\b",
            r"data ?matrix",
            # "read the barcode", "what does the QR code say": reading a code is scanning it,
            # whatever the words for reading text around it.
            r"\b(?:read|decode|what does)\b[^.?!\n]{0,30}?(?:\bqr|bar ?code|data ?matrix)",
            r"(?:\bqr|bar ?code)[^.?!\n]{0,20}?\b(?:says?|means?|contains?)\b",
        ),
        zh=(
            r"二维码",
            r"条形码",
            r"条码",
            r"扫码",
            r"扫一扫",
            r"(?:读|念|识别|解码)[^。？！\n]{0,6}?(?:二维码|条形码|条码)",
        ),
        role="codes",
        shows=("code",),
    ),
    "image_info": ToolHints(
        en=(
            r"\bexif\b",
            r"\bmetadata\b",
            r"\bcamera\b",
            r"\blens\b",
            r"size of",
            r"\bresolution\b",
            r"\bdimensions?\b",
            r"how (?:big|large) is",
            r"when was .* taken",
            r"where was .* taken",
            r"\bGPS\b",
            r"\bdetails? (?:of|about|on|for) (?:the |this |that |my )?(?:\w+ )?"
            r"(?:image|photo|picture|pic|img)",
            r"\binfo(?:rmation)? (?:of|about|on|for) (?:the |this |that |my )?(?:\w+ )?"
            r"(?:image|photo|picture|pic|img)",
            r"\b(?:image|photo|picture|pic|img|file) (?:info(?:rmation)?|details|size|metadata)\b",
            r"\bwhat size\b",
            r"\bhow (?:big|large)\b",
        ),
        zh=(
            # No \b: "照片的EXIF" has no word boundary before EXIF.
            r"exif",
            r"(?:图片|图像|照片|这张图)的?(?:基本|详细)?信息",
            r"(?:图片|图像|照片|图)(?:有)?多大|多大的?(?:图片|图像|照片)|(?:图片|图像|照片)的?大小",
            r"文件大小",
            r"拍摄",
            r"分辨率",
            r"尺寸",
            r"相机",
        ),
        shows=("photo",),
    ),
    "zoom": ToolHints(
        en=(r"\bzoom", r"\benlarge", r"\bmagnify", r"small print", r"close[- ]?up", r"look closer"),
        zh=(r"放大", r"局部", r"特写", r"看清"),
        stage=0,
    ),
    "image_edit": ToolHints(
        en=(
            r"\brotat",
            r"\bflip",
            r"\bmirror",
            r"gr[ae]y\s*-?scale",
            r"black[- ]and[- ]white",
            r"\bsharpen",
            r"\bcontrast\b",
            r"upside down",
            r"\b(?:make|turn|convert|change)\b.{0,20}"
            r"\b(?:gr[ae]y|monochrome|black[- ]and[- ]white)\b",
            r"\b(?:make|turn)\b.{0,20}\bsharper\b",
        ),
        zh=(
            r"旋转",
            r"翻转",
            r"镜像",
            r"灰度",
            r"黑白",
            r"锐化",
            r"对比度",
            r"倒过来",
            r"(?:变成|改成|转成|弄成|调成).{0,4}(?:灰|黑白)",
        ),
        stage=0,
    ),
    "colors": ToolHints(
        en=(r"\bcolou?rs?\b", r"\bpalette\b", r"\bhex (?:code|value)s?\b"),
        zh=(r"颜色", r"色彩", r"主色", r"配色", r"色调"),
    ),
    "calculator": ToolHints(
        en=(
            r"\bcalculat",
            r"\bcompute\b",
            r"\bsquare root\b",
            r"\bsqrt\b",
            r"\d\s*[+*/×÷^]\s*\d",
            r"\d\s*(?:plus|minus|times|divided by|multiplied by)\s*\d",
            r"\d\s*%\s*of\s*\d",
        ),
        zh=(
            r"计算",
            r"(?<!换)算一下",  # not "换算一下", which is a unit conversion
            r"平方根",
            r"百分之",
            r"\d\s*的\s*\d+(?:\.\d+)?\s*%",
            r"\d\s*%\s*的\s*\d",
            r"\d\s*(?:加|减|乘以|乘|除以)\s*\d",
        ),
    ),
    "convert_units": ToolHints(
        en=(
            r"\bconvert\s+-?\d",
            r"\bconvert\b\D*\d.*\b(?:to|into|in)\b",  # \D*, not .*: linear in the text
            r"\bhow many\s+\w+(?:\s+\w+)?\s+(?:is|are|in)\s+(?:a|an|one|-?\d)",
            r"\d\s*(?:°\s*[cf]\b|℃|℉|degrees?\s+(?:celsius|fahrenheit))",
            r"\b(?:celsius|fahrenheit)\b",
            r"\d\s*[a-z°]{1,12}\s+(?:in|to)\s+" + _COMMON_UNITS,
            # "2 km in m", "5 km to mi": a unit's symbol on each side.
            r"\d\s*" + _UNIT_SYMBOLS + r"\s+(?:in|to|into)\s+" + _UNIT_SYMBOLS + r"\W*$",
            r"\bconvert\s+(?:from\s+)?" + _COMMON_UNITS + r".*\b(?:to|into|in)\b",
            # "convert five miles to km", "ten km in miles": an amount spelled out.
            r"\bconvert\s+" + ENGLISH_PATTERN + r"\s+" + _COMMON_UNITS,
            ENGLISH_PATTERN + r"\s+" + _COMMON_UNITS + r"\s+(?:in|to|into)\s+" + _COMMON_UNITS,
            r"\bhow (?:many|much)\b\D{0,40}\d\s*" + _COMMON_UNITS,
            # "calculate 5 miles": a quantity to work out is a conversion.
            r"\bcalculat\w*\s+-?\d+(?:\.\d+)?\s*" + _COMMON_UNITS,
            # A quantity alone ("5 miles", "5英里", "5 miles in"): the target unit is asked for.
            r"^\W*-?\d+(?:[.,]\d+)?\s*(?:" + _COMMON_UNITS + "|" + CHINESE_UNITS + r")\s*"
            r"(?:\b(?:in|to|into)\b)?\W*$",
        ),
        zh=(
            r"换算",
            # "5公里等于多少英里", "5 英里到底是多少公里", but not "3的平方根是多少": the
            # words after the number are a unit.
            r"(?:\d|" + CHINESE_PATTERN + r")\s*(?:" + CHINESE_UNITS + r")\s*(?:(?:到底|究竟)\s*)?"
            r"(?:等于|是|合|能换)多少",
            r"(?:摄氏|华氏)",
            r"单位转换",
            # "把3英里换成公里", "3英里转换成公里": a target unit after a conversion word.
            r"(?:换成|换算成|换算为|转换成|转换为|转成|转为|换为|折合成?)\s*"
            r"(?:" + CHINESE_UNITS + "|" + _COMMON_UNITS + ")",
            r"算\D{0,6}\d+(?:\.\d+)?\s*(?:" + CHINESE_UNITS + ")",
        ),
    ),
    "world_clock": ToolHints(
        en=(
            # Not "what time does it close?": that asks about opening hours, not the clock.
            r"\bwhat time\b(?!\s+(?:does|do|did|will|would|should|can|are)\b)",
            r"\bwhat(?:'s| is) the time\b",
            r"\btime (?:is it )?(?:now )?in\b",
            r"\bcurrent time\b",
            r"\blocal time\b",
            r"\btime ?zone\b",
        ),
        zh=(
            r"几点(?!.{0,4}(?:关|开|结束|营业|闭馆|出发|到达|起飞|下班|上班|发车|登机))",
            r"现在.{0,6}时间",
            r"当地时间",
            r"时区",
            r"时差",
        ),
    ),
}

_NONE = ToolHints()


def register(name: str, hints: ToolHints) -> None:
    """Teach the offline model the tool called `name` (a later entry replaces an earlier)."""
    HINTS[name] = hints


def unregister(name: str) -> None:
    HINTS.pop(name, None)


def hints_for(tool: Any) -> ToolHints:
    """The tool's entry; for a plugin, what its manifest declares; else nothing to go by."""
    hints = HINTS.get(getattr(tool, "name", ""))
    if hints is not None:
        return hints
    manifest = getattr(tool, "manifest", None)
    if manifest is not None and hasattr(manifest, "triggers"):
        return _plugin_hints(tool)
    return _NONE


def _plugin_hints(tool: Any) -> ToolHints:
    return ToolHints(en=tuple(tool.manifest.triggers))


def with_role(tools: dict[str, Any], role: str) -> str | None:
    """The name of the tool among `tools` that does `role` ("text", "codes")."""
    return next((name for name, tool in tools.items() if hints_for(tool).role == role), None)


def probe_for(content: str | None, tools: dict[str, Any]) -> str | None:
    """The name of the tool among `tools` that tells whether an image shows `content`."""
    if not content:
        return None
    return next((name for name, tool in tools.items() if content in hints_for(tool).shows), None)


def extract(tool: Any, text: str, image_ids: Any, known: dict[str, Any]) -> dict[str, Any]:
    """The tool's arguments found in `text`; an extractor's mistake costs an argument, never
    the reply."""
    reader = hints_for(tool).extract or getattr(tool, "extract", None)
    if reader is None:
        return {}
    try:
        found = reader(text, image_ids, dict(known))
    except Exception:
        return {}
    return {k: v for k, v in (found or {}).items() if v is not None}
