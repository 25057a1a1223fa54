"""A turn's intake: bound the message, then prepare its images off the event loop.

The bounds are checked before anything is read, so a pasted book or a folder of photos costs
nothing but one sentence; the conversation and its task stay as they were.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from .images import ImageRef, ImageRejected, ImageStore, amount
from .prompts import phrase


class RefusedImage(BaseModel):
    """An upload that was refused, as data: the reason in English as the store said it, and
    what a sentence in another language needs (file name, kind, sizes)."""

    name: str = ""
    kind: str = "unreadable"
    reason: str
    facts: dict[str, int] = Field(default_factory=dict)

    @classmethod
    def of(cls, error: ImageRejected) -> RefusedImage:
        return cls(name=error.source, kind=error.kind, reason=str(error), facts=error.facts)

    def sentence(self, language: str) -> str:
        """Why it was refused, in `language`."""
        if not language.startswith("zh"):
            return self.reason
        name = self.name or "这张图片"
        facts = self.facts
        if self.kind == "too_big" and {"size", "limit"} <= facts.keys():
            size, limit = amount(facts["size"]), amount(facts["limit"])
            return phrase(language, "refused_too_big", name=name, size=size, limit=limit)
        if self.kind == "too_many_pixels":
            size = f"{facts['width']}x{facts['height']}" if facts else "—"
            return phrase(language, "refused_too_many_pixels", name=name, size=size)
        key = "refused_too_large" if self.kind == "too_large" else "refused_unreadable"
        return phrase(language, key, name=name)


def message_problem(
    text: str, image_count: int, *, max_chars: int, max_images: int, language: str
) -> str | None:
    """One sentence saying why this message is refused as a whole, or None."""
    if len(text) > max_chars:
        return phrase(language, "too_long", length=f"{len(text):,}", limit=f"{max_chars:,}")
    if image_count > max_images:
        return phrase(language, "too_many_images", count=image_count, limit=max_images)
    return None


Upload = str | Path | bytes | ImageRef | RefusedImage


async def sort_images(
    store: ImageStore, sources: Sequence[Upload]
) -> tuple[list[ImageRef], list[RefusedImage]]:
    """The usable images (each once, in order) and the refused ones. An upload refused
    before (by the page) passes through as it is, so the turn can still say so."""
    refs: list[ImageRef] = []
    refused: list[RefusedImage] = []
    for source in sources:
        if isinstance(source, RefusedImage):
            refused.append(source)
            continue
        try:
            ref = await _ref(store, source)
        except ImageRejected as exc:
            refused.append(RefusedImage.of(exc))
            continue
        if all(r.id != ref.id for r in refs):
            refs.append(ref)
    return refs, refused


async def prepare_images(
    store: ImageStore, sources: Sequence[Upload]
) -> tuple[list[ImageRef], list[str]]:
    """The usable images (each once, in order) and a sentence for each refused one."""
    refs, refused = await sort_images(store, sources)
    return refs, [r.reason for r in refused]


async def _ref(store: ImageStore, source: str | Path | bytes | ImageRef) -> ImageRef:
    """A reference the store already holds is used as it is; anything else is loaded."""
    if isinstance(source, ImageRef):
        if source.id in store.ids() and store.get(source.id).path == source.path:
            return store.get(source.id)
        source = source.path
    return await store.load_async(source)


_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{3,}")


def turn_language(text: str, default: str, previous: str | None = None) -> str:
    """The conversation's language: Chinese if the user writes Chinese, English if English.
    A short reply in Latin letters ("km", "Tokyo") keeps the language the conversation had."""
    if _CJK.search(text):
        return "zh"
    if previous and len(text.split()) <= 2:
        return previous
    if _LATIN.search(text):
        return "en"
    return previous or default
