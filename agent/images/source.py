"""What was uploaded, read within its byte bound, and why it is refused when it is: the one
exception the image intake raises, with a sentence for a person in either language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..refusals import refusal

# Files people drop by mistake, recognised by their first bytes so the refusal can say why.
_NOT_IMAGES = ((b"%PDF", "pdf"), (b"<svg", "svg"), (b"<?xml", "xml"))
_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1")


class ImageRejected(ValueError):
    """An upload that is not a usable image; the message is one sentence for a person, in
    English; `said(language)` is the same sentence in that language (`agent.refusals`)."""

    def __init__(self, kind: str, *, source: str = "", **facts: Any) -> None:
        super().__init__(refusal(kind, name=source, **facts))
        self.kind = kind
        self.source = source
        self.facts = facts

    def said(self, language: str) -> str:
        return refusal(self.kind, language, name=self.source, **self.facts)


def read_source(source: Any, max_bytes: int) -> tuple[bytes, str]:
    if isinstance(source, bytes | bytearray | memoryview):
        if len(source) > max_bytes:
            raise ImageRejected("too_big", **_sizes(len(source), max_bytes))
        data, name = bytes(source), ""
    elif isinstance(source, str | Path):
        path = Path(source)
        name = path.name or str(path)
        try:
            if not path.is_file():
                raise ImageRejected("missing", source=name)
            size = path.stat().st_size
            if size > max_bytes:
                raise ImageRejected("too_big", source=name, **_sizes(size, max_bytes))
            data = path.read_bytes()
        except OSError as exc:
            raise ImageRejected("unreadable_file", source=name) from exc
        if len(data) > max_bytes:  # it grew since stat
            raise ImageRejected("too_big", source=name, **_sizes(len(data), max_bytes))
    else:
        raise ImageRejected("not_a_source")
    if not data:
        raise ImageRejected("empty", source=name)
    return data, name


def _sizes(size: int, max_bytes: int) -> dict[str, str]:
    return {"size": amount(size), "limit": amount(max_bytes)}


def amount(size: float) -> str:
    if size >= 1e6:
        return f"{size / 1e6:.1f}".removesuffix(".0") + " MB"
    return f"{max(1, round(size / 1e3))} kB"


def not_an_image(data: bytes) -> str:
    """The kind of refusal for bytes Pillow cannot read: what they are, when that is known."""
    head = data[:64].lstrip()
    for magic, kind in _NOT_IMAGES:
        if head.startswith(magic):
            return kind
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "heic"
    return "not_an_image"
