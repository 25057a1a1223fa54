"""The useful EXIF of an upload, read once at intake as plain JSON values.

The prepared copy carries no metadata (a photo's GPS position must not travel with it), so what
a person may want to know about the original is kept here instead. Keys are the EXIF tag names;
the position is `GPSLatitude` and `GPSLongitude` in signed decimal degrees (south and west are
negative) and `GPSAltitude` in metres. Anything missing, broken or implausible is left out.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from typing import Any

from PIL import ExifTags, Image

# Tag ids by the names they are reported under.
_BASE_TAGS = {"Make": 0x010F, "Model": 0x0110, "Orientation": 0x0112}
_EXIF_TAGS = {
    "LensModel": 0xA434,
    "DateTimeOriginal": 0x9003,
    "OffsetTimeOriginal": 0x9011,
    "ExposureTime": 0x829A,
    "FNumber": 0x829D,
    "ISOSpeedRatings": 0x8827,
    "FocalLength": 0x920A,
}
_GPS_LAT_REF, _GPS_LAT, _GPS_LON_REF, _GPS_LON, _GPS_ALT_REF, _GPS_ALT = 1, 2, 3, 4, 5, 6
# EXIF text comes from the file's author; keep it short enough to show and to log.
_MAX_TEXT = 120


def read_exif(image: Image.Image) -> dict[str, Any]:
    """The useful EXIF of `image` (opened, not necessarily decoded); `{}` if it has none."""
    found: dict[str, Any] = {}
    # A broken EXIF block must not cost the person their image, nor fill the log with warnings.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exif = image.getexif()
        except Exception:
            return {}
        _collect(found, exif, _BASE_TAGS)
        with contextlib.suppress(Exception):
            _collect(found, exif.get_ifd(ExifTags.IFD.Exif), _EXIF_TAGS)
        with contextlib.suppress(Exception):
            found.update(_gps(exif.get_ifd(ExifTags.IFD.GPSInfo)))
    return found


def _collect(found: dict[str, Any], ifd: Any, tags: dict[str, int]) -> None:
    for name, tag in tags.items():
        try:
            value = _plain(ifd.get(tag))
        except Exception:
            continue
        if value is not None and value != "":
            found[name] = value


def _plain(value: Any) -> Any:
    """A JSON-able value: text, int or finite float; a sequence gives its first usable item."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if isinstance(value, str):
        text = "".join(ch for ch in value if ch.isprintable()).strip()
        return text[:_MAX_TEXT]
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, tuple | list):
        return next((v for v in map(_plain, value) if v is not None), None)
    try:
        number = float(value)  # IFDRational and friends
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if not math.isfinite(number):
        return None
    return int(number) if number.is_integer() and abs(number) < 2**53 else round(number, 6)


def _gps(ifd: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    lat = _degrees(ifd.get(_GPS_LAT), ifd.get(_GPS_LAT_REF), "S", 90)
    lon = _degrees(ifd.get(_GPS_LON), ifd.get(_GPS_LON_REF), "W", 180)
    if lat is not None and lon is not None:
        out["GPSLatitude"] = lat
        out["GPSLongitude"] = lon
    altitude = _plain(ifd.get(_GPS_ALT))
    if isinstance(altitude, int | float):
        below_sea = _plain(ifd.get(_GPS_ALT_REF)) in (1, b"\x01", "\x01")
        out["GPSAltitude"] = round(-altitude if below_sea else float(altitude), 2)
    return out


def _degrees(dms: Any, ref: Any, negative: str, limit: float) -> float | None:
    if not isinstance(dms, tuple | list) or not 1 <= len(dms) <= 3:
        return None
    parts = [float(part) for part in dms]
    if not all(math.isfinite(part) and part >= 0 for part in parts):
        return None
    value = sum(part / 60**i for i, part in enumerate(parts))
    if value > limit:
        return None
    if isinstance(ref, bytes):
        ref = ref.decode("ascii", "replace")
    if isinstance(ref, str) and ref.strip("\x00 ").upper() == negative:
        value = -value
    return round(value, 6)
