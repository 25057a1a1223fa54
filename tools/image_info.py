"""What is known about an image: its size, format and mode, and the EXIF that matters."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from PIL import ExifTags
from pydantic import Field

from tools import words
from tools.base import StrictArgs, Tool, ToolContext, ToolResult, image_id_from, language_of

# EXIF text is written by whoever made the file; keep it short and printable.
MAX_TEXT = 80

_NAME_BY_TAG = {**ExifTags.TAGS}
_GPS_NAME_BY_TAG = {**ExifTags.GPSTAGS}
_ISO_NAMES = ("ISOSpeedRatings", "PhotographicSensitivity", "ISO")


class ImageInfoArgs(StrictArgs):
    image_id: str = Field(description="Which image to describe, e.g. img_1.")


def _tag_name(key: Any, names: dict[int, str]) -> str:
    if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
        return names.get(int(key), str(key))
    return str(key)


def _flatten(exif: dict[str, Any]) -> dict[str, Any]:
    """One level of EXIF by tag name, whether keys are names or numbers and IFDs nested or not."""
    flat: dict[str, Any] = {}
    for key, value in exif.items():
        name = _tag_name(key, _NAME_BY_TAG)
        if isinstance(value, dict):
            names = _GPS_NAME_BY_TAG if name in ("GPSInfo", "GPS") else _NAME_BY_TAG
            for inner_key, inner in value.items():
                flat.setdefault(_tag_name(inner_key, names), inner)
        else:
            flat[name] = value
    return flat


def _number(value: Any) -> float | None:
    if isinstance(value, tuple | list):
        if len(value) == 2 and all(isinstance(v, int) for v in value):
            value = value[0] / value[1] if value[1] else None  # a raw (numerator, denominator)
        else:
            value = value[0] if value else None
    if isinstance(value, str) and "/" in value:
        top, _, bottom = value.partition("/")
        try:
            value = float(top) / float(bottom)
        except (ValueError, ZeroDivisionError):
            return None
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number) else None


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    text = "".join(ch for ch in str(value) if ch.isprintable()).strip()
    return text[:MAX_TEXT]


def _coordinate(value: Any, ref: Any, negative: str, limit: float) -> float | None:
    """Signed decimal degrees from decimal or (degrees, minutes, seconds) and an N/S/E/W ref."""
    if (
        isinstance(value, tuple | list)
        and len(value) in (2, 3)
        and not (len(value) == 2 and all(isinstance(v, int) for v in value))
    ):
        read = [_number(v) for v in value]
        parts = [p for p in read if p is not None and p >= 0]  # `_number` gives no NaN
        if len(parts) < len(read):
            return None
        number = sum(p / 60**i for i, p in enumerate(parts))
    else:
        number = _number(value)
    if number is None:
        return None
    if _text(ref).strip("\x00 ").upper() == negative:
        number = -abs(number)
    return round(number, 6) if abs(number) <= limit else None


def _exposure(seconds: float) -> str:
    if 0 < seconds < 1:
        return f"1/{round(1 / seconds)} s"
    return f"{seconds:g} s"


def _date(value: Any) -> str:
    text = _text(value)
    match = re.fullmatch(r"(\d{4})[:\-](\d{2})[:\-](\d{2})[ T](\d{2}:\d{2}:\d{2}).*", text)
    return f"{match[1]}-{match[2]}-{match[3]} {match[4]}" if match else text


def summarise_exif(exif: dict[str, Any] | None) -> dict[str, Any]:
    """The EXIF a person asks about, as plain values; anything missing or broken is left out."""
    flat = _flatten(exif or {})
    found: dict[str, Any] = {}
    make, model = _text(flat.get("Make", "")), _text(flat.get("Model", ""))
    if model and make and not model.lower().startswith(make.lower().split()[0]):
        model = f"{make} {model}"
    if model or make:
        found["camera"] = model or make
    lens = _text(flat.get("LensModel", "")) or _text(flat.get("LensMake", ""))
    if lens:
        found["lens"] = lens
    taken = flat.get("DateTimeOriginal") or flat.get("DateTimeDigitized") or flat.get("DateTime")
    if taken:
        found["taken"] = _date(taken)
        offset = _text(flat.get("OffsetTimeOriginal", ""))
        if offset:
            found["taken"] += f" {offset}"
    exposure = _number(flat.get("ExposureTime"))
    if exposure and exposure > 0:
        found["exposure_time"] = _exposure(exposure)
    f_number = _number(flat.get("FNumber"))
    if f_number and f_number > 0:
        found["f_number"] = f"f/{f_number:.2g}" if f_number < 10 else f"f/{f_number:.0f}"
    iso = next((_number(flat[n]) for n in _ISO_NAMES if flat.get(n) is not None), None)
    if iso and iso > 0:
        found["iso"] = int(iso)
    focal = _number(flat.get("FocalLength"))
    if focal and focal > 0:
        found["focal_length"] = f"{focal:g} mm"
    latitude = _coordinate(flat.get("GPSLatitude"), flat.get("GPSLatitudeRef"), "S", 90)
    longitude = _coordinate(flat.get("GPSLongitude"), flat.get("GPSLongitudeRef"), "W", 180)
    if latitude is not None and longitude is not None:
        gps: dict[str, float] = {"latitude": latitude, "longitude": longitude}
        altitude = _number(flat.get("GPSAltitude"))
        if altitude is not None:
            ref = flat.get("GPSAltitudeRef")
            below = _number(ref) == 1 or ref == b"\x01"
            gps["altitude_m"] = round(-abs(altitude) if below else altitude, 1)
        found["gps"] = gps
    return found


def _describe(info: dict[str, Any], exif: dict[str, Any], language: str = "en") -> str:
    w = words.words(language, "tools.image_info")
    size = f"{info['width']}x{info['height']}"
    mode = w["mode"].format(info["mode"]) if info.get("mode") else ""
    kind = ((info.get("format") or "") + mode).strip()
    text = w["size"].format(size=size, kind=w["kind"].format(kind=kind) if kind else "")
    prepared = (info["prepared_width"], info["prepared_height"])
    # A photo turned a quarter for its EXIF orientation is as large as it was, on its side.
    upright = (info["height"], info["width"]) if info.get("turned") in (5, 6, 7, 8) else None
    shown = f"{prepared[0]}x{prepared[1]}"
    if info.get("turned"):
        smaller = prepared != (upright or (info["width"], info["height"]))
        text += w["turned_downscaled" if smaller else "turned"].format(size=shown)
    elif prepared != (info["width"], info["height"]):
        text += w["downscaled"].format(size=shown)
    text += w["end"]
    if not exif:
        return text + w["no_exif"]
    parts = [w[key].format(exif[key]) for key in ("camera", "lens", "taken") if key in exif]
    settings = [exif[k] for k in ("exposure_time", "f_number", "focal_length") if k in exif]
    if "iso" in exif:
        settings.append(f"ISO {exif['iso']}")
    if settings:
        parts.append(w["exposure"].format(w["list"].join(settings)))
    if "gps" in exif:
        gps = exif["gps"]
        where = w["gps"].format(**gps)
        if "altitude_m" in gps:
            where += w["altitude"].format(altitude=gps["altitude_m"])
        parts.append(where)
    else:
        parts.append(w["no_gps"])
    return text + w["exif"].format(parts=w["parts"].join(parts))


class ImageInfo(Tool[ImageInfoArgs]):
    name = "image_info"
    description = (
        "Facts about an image file: its size in pixels, format and colour mode, and the camera "
        "metadata (EXIF) if present: camera and lens, date and time taken, exposure settings and "
        "the GPS position in decimal degrees."
    )
    Args = ImageInfoArgs
    uses_images = True

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        return image_id_from(text, image_ids, known)

    def run(self, args: ImageInfoArgs, ctx: ToolContext) -> ToolResult:
        image = ctx.open_image(args.image_id)
        try:
            meta: dict[str, Any] = ctx.image_meta(args.image_id)
        except AttributeError:  # a store that keeps no metadata: the pixels still tell the size
            meta = {}
        info = {
            "width": meta.get("original_width") or image.width,
            "height": meta.get("original_height") or image.height,
            "format": meta.get("original_format") or None,
            "mode": meta.get("original_mode") or image.mode,
            "prepared_width": image.width,
            "prepared_height": image.height,
        }
        if not info["format"] and meta.get("media_type"):
            info["prepared_format"] = str(meta["media_type"]).split("/")[-1].upper()
        raw = meta.get("exif") if isinstance(meta.get("exif"), dict) else None
        exif = summarise_exif(raw)
        turn = _number(_flatten(raw or {}).get("Orientation"))
        if turn and 2 <= turn <= 8:  # 1 is upright already
            info["turned"] = int(turn)
        data = {"image_id": args.image_id, **info, "exif": exif}
        if meta.get("source_name"):
            data["file_name"] = _text(meta["source_name"])
        return ToolResult(text=_describe(info, exif, language_of(ctx)), data=data)
