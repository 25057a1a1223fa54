"""A turn's intake: bound the message, then prepare its images off the event loop.

The bounds are checked before anything is read, so a pasted book or a folder of photos costs
nothing but one sentence; the conversation and its task stay as they were.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from .images import ImageRef, ImageRejected, ImageStore
from .prompts import phrase


def message_problem(
    text: str, image_count: int, *, max_chars: int, max_images: int, language: str
) -> str | None:
    """One sentence saying why this message is refused as a whole, or None."""
    if len(text) > max_chars:
        return phrase(language, "too_long", length=f"{len(text):,}", limit=f"{max_chars:,}")
    if image_count > max_images:
        return phrase(language, "too_many_images", count=image_count, limit=max_images)
    return None


async def prepare_images(
    store: ImageStore, sources: Sequence[str | Path | bytes | ImageRef], language: str = "en"
) -> tuple[list[ImageRef], list[str]]:
    """The usable images (each once, in order) and a sentence for each refused one, in
    `language`."""
    refs: list[ImageRef] = []
    refused: list[str] = []
    for source in sources:
        try:
            ref = await _ref(store, source)
        except ImageRejected as exc:
            refused.append(exc.said(language))
            continue
        if all(r.id != ref.id for r in refs):
            refs.append(ref)
    return refs, refused


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
