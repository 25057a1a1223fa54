"""The OCR engine's replies as recorded from the real engine, for tests where reading is not what
is tested: a reading the agent, the page or a scenario asks for then costs no model time.

Built inside OCR worker processes by name ("tests.support.recorded_ocr:Recorded"). An image is
known by its pixels and the call's settings; an image not in `ocr_replies.json` (a new test, other
fonts on another machine) is read by the real engine, so a test never sees a made-up reply. With
`OCR_RECORD=FOLDER` each such reading is also written to FOLDER (one file per worker), and
`python -m tests.support.recorded_ocr FOLDER` adds them to the recorded replies.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

REPLIES = Path(__file__).with_name("ocr_replies.json")


def key(image: Any, settings: dict[str, Any]) -> str:
    pixels = image.convert("RGB")
    digest = hashlib.sha256(f"{pixels.size}".encode())
    digest.update(pixels.tobytes())
    digest.update(json.dumps(settings, sort_keys=True).encode())
    return digest.hexdigest()


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, list | tuple):
        return [_rounded(item) for item in value]
    return value


class Recorded:
    """Answers a known image with the real engine's reply to it; reads any other for real."""

    def __init__(self, **settings: Any) -> None:
        self._settings = settings
        self._real: Any = None
        self._known: dict[str, Any] = (
            json.loads(REPLIES.read_text(encoding="utf-8")) if REPLIES.exists() else {}
        )

    def __call__(self, image: Any, **call: Any) -> Any:
        found_key = key(image, {**self._settings, **call})
        if found_key in self._known:
            return self._known[found_key]
        if self._real is None:
            from tools.ocr.engine import Engine

            self._real = Engine(**self._settings)
        found = _rounded(self._real(image, **call))
        # The same image again (another language, a follow-up) costs no second reading.
        self._known[found_key] = found
        folder = os.environ.get("OCR_RECORD")
        if folder:
            with open(Path(folder) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as out:
                out.write(json.dumps([found_key, found]) + "\n")
        return found


def merge(folder: Path) -> int:
    """Add the readings recorded in `folder` to the recorded replies; how many were new."""
    known = json.loads(REPLIES.read_text(encoding="utf-8")) if REPLIES.exists() else {}
    before = len(known)
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            found_key, found = json.loads(line)
            known[found_key] = found
    REPLIES.write_text(json.dumps(known, sort_keys=True, separators=(",", ":")) + "\n")
    return len(known) - before


if __name__ == "__main__":
    print(f"{merge(Path(sys.argv[1]))} new replies in {REPLIES}")
