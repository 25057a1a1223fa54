"""A turn's intake: bound the message, then prepare its images off the event loop.

The bounds are checked before anything is read, so a pasted book or a folder of photos costs
nothing but one sentence; the conversation and its task stay as they were.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..prompts import phrase
from ..refusals import refusal
from .store import ImageRef, ImageRejected, ImageStore


class RefusedImage(BaseModel):
    """An upload that was refused, as data: the reason in English as the store said it, and
    what a sentence in another language needs (file name, kind, sizes)."""

    name: str = ""
    kind: str = "unreadable"
    reason: str
    facts: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, error: ImageRejected) -> RefusedImage:
        return cls(name=error.source, kind=error.kind, reason=str(error), facts=error.facts)

    @classmethod
    def duplicate(cls, ref: ImageRef, source: Upload) -> RefusedImage:
        name = Path(source).name if isinstance(source, str | Path) else ""
        name = getattr(source, "source_name", "") or name
        facts = {"image": ref.id}
        reason = refusal("duplicate", "en", name=name, **facts)
        return cls(name=name, kind="duplicate", reason=reason, facts=facts)

    def sentence(self, language: str) -> str:
        """Why it was refused, in `language`."""
        try:
            return refusal(self.kind, language, name=self.name, **self.facts)
        except (KeyError, IndexError):  # a kind or fact this version does not know
            return self.reason


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
            found = await _refs(store, source)
        except ImageRejected as exc:
            refused.append(RefusedImage.of(exc))
            continue
        new = [ref for ref in found if all(r.id != ref.id for r in refs)]
        if not new:
            # The same picture (or PDF) twice is used once, and the person is told so.
            refused.append(RefusedImage.duplicate(found[0], source))
            continue
        refs.extend(new)
    return refs, refused


async def prepare_images(
    store: ImageStore, sources: Sequence[Upload], language: str = "en"
) -> tuple[list[ImageRef], list[str]]:
    """The usable images (each once, in order) and a sentence for each refused one, in
    `language`."""
    refs, refused = await sort_images(store, sources)
    return refs, [r.sentence(language) for r in refused]


async def _refs(store: ImageStore, source: str | Path | bytes | ImageRef) -> list[ImageRef]:
    """A reference the store already holds is used as it is; anything else is loaded (a PDF
    as its pages)."""
    if isinstance(source, ImageRef):
        if source.id in store.ids() and store.get(source.id).path == source.path:
            return [store.get(source.id)]
        return [await store.load_async(source.path)]
    return await store.load_upload_async(source)


_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{3,}")
_WORD = re.compile(r"[A-Za-z]+")
# Words that make a sentence rather than name something: a place, a unit or a code is no
# evidence of the language a person writes in, "of", "the" or "的", "把" are. Short words that
# also answer a question in either language ("ok", "yes", "no", "am") are left out.
_EN_SENTENCE = (
    "a an the of to in on at for from by with into about as and or but not is are was were be "
    "been do does did can could will would should may might must have has had it its this that "
    "these those there here what which who whom whose when where why how i me my we our you "
    "your he she they them please convert change make show tell give want need time much many"
)
_EN_WORDS = frozenset(_EN_SENTENCE.split())
# Particles, pronouns and the verbs of a request; a Chinese place name rarely holds two.
_ZH_WORDS = frozenset("的了吗呢吧啊是我你您请把要用换成算什么怎哪几点这给帮个一下就还也在")


def _counts(text: str) -> tuple[int, int]:
    """How many English sentence words, and how many different Chinese ones, `text` holds."""
    english = sum(1 for word in _WORD.findall(text) if word.lower() in _EN_WORDS)
    return english, len(_ZH_WORDS.intersection(text))


def written_in(text: str) -> str | None:
    """The language `text` is clearly written in (whole words, a sentence), or None when it is
    a name, a unit, a number or too little to tell."""
    english, chinese = _counts(text)
    if english >= 2 and english > chinese:
        return "en"
    if chinese >= 2 and chinese >= english:
        return "zh"
    return None


def turn_language(
    text: str, default: str, previous: str | None = None, task_language: str | None = None
) -> str:
    """The language a turn speaks. A message that answers a pending task asked in
    `task_language` keeps it unless the message is itself clearly written in the other
    ("Tokyo", "km", "东京" keep it; "the one in Tokyo, please" does not). Any other message
    speaks its own: Chinese if it has Chinese, English if English words; a short reply in Latin
    letters ("km", "Tokyo") keeps the language the conversation had."""
    if task_language:
        return written_in(text) or task_language
    clear = written_in(text)
    if clear:
        return clear
    if _CJK.search(text):
        return "zh"
    if previous and len(text.split()) <= 2:
        return previous
    if _LATIN.search(text) or _counts(text)[0]:
        return "en"
    return previous or default
