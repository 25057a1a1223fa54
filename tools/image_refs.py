"""Which image a person means: by id, by position among their uploads, by pointing back at the
one being talked about, or by what it shows.

Uploads and tool results share one id sequence (a zoom of `img_1` may be `img_2`), but "the
second image" means the second image the person uploaded. Every image tool's extractor and the
offline model resolve references here, so they always agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from tools.phrases import normalise


class ImageIds(list[str]):
    """The session's image ids, oldest first, with what is known about them: which ones the
    person uploaded (the rest are tool results), which came with this turn, and the one the
    conversation was last about. A plain list of ids is read as uploads only."""

    def __init__(
        self,
        ids: Iterable[str] = (),
        *,
        uploads: Iterable[str] | None = None,
        turn_uploads: Iterable[str] = (),
        focus: str | None = None,
    ) -> None:
        super().__init__(ids)
        self.uploads = [i for i in uploads if i in self] if uploads is not None else list(self)
        self.turn_uploads = [i for i in turn_uploads if i in self]
        self.focus = focus if focus in self else (self[-1] if self else None)


Way = Literal["id", "position", "pointer", "content", "newest"]


class ImageChoice(BaseModel):
    """How a request picks its image. `candidates` are the images worth trying in turn when
    the first shows nothing: only the named one when the person was specific."""

    image_id: str | None = None
    way: Way = "newest"
    # 1 for the first upload, -1 for the last, -2 for the one before it.
    position: int | None = None
    content: str | None = None
    candidates: list[str] = Field(default_factory=list)
    # A reference to an image that is not there ("img_9", "the fifth image"), as written.
    unknown: str | None = None
    uploads: int = 0


_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "last": -1, "latest": -1, "newest": -1,
    "most recent": -1, "final": -1, "earliest": 1, "oldest": 1, "second to last": -2,
    "second-to-last": -2, "second last": -2, "penultimate": -2,
}  # fmt: skip
_CHINESE_NUMBERS = dict(zip("一二三四五六七八九十", range(1, 11), strict=True)) | {"两": 2}
_NOUN = r"(?:image|picture|pic|photo(?:graph)?|screenshot|upload|attachment|img|one)s?\b"
_CN_NUMBER = r"(\d{1,6}|[一二两三四五六七八九十])"
_CN_NOUN = r"(?:图片|图像|照片|相片|截图|图)"

_ID = re.compile(r"\bimg[\s_#-]?(\d{1,6})\b")
# "rotate the image 90 degrees": a number with a unit after it is not the image's.
_NOT_A_POSITION = r"(?!\s*(?:°|degrees?\b|deg\b|x\b|times\b|%|px\b|pixels?\b|度|倍))"
_NUMBERED = re.compile(
    r"\b(?:image|picture|pic|photo(?:graph)?|screenshot|upload|attachment)\s*"
    rf"(?:#|no\.?\s*|number\s*)?(\d{{1,6}}|{'|'.join(_WORD_NUMBERS)})\b{_NOT_A_POSITION}"
)
_ORDINAL = re.compile(
    rf"\b({'|'.join(sorted(_ORDINALS, key=len, reverse=True))}|\d{{1,6}}(?:st|nd|rd|th))\s+"
    rf"(?:(?:uploaded|attached|sent|shared)\s+)?{_NOUN}"
)
_CN_FROM_END = re.compile(rf"倒数第\s*{_CN_NUMBER}\s*(?:张|幅|个)")
_CN_ORDINAL = re.compile(rf"第\s*{_CN_NUMBER}\s*(?:张|幅|副|个(?=\s*{_CN_NOUN}))")
_CN_LAST = re.compile(rf"最后(?:一|那)?\s*(?:张|幅|个(?=\s*{_CN_NOUN}))|最新的?(?:一张|那张|图)")
_CN_NUMBERED = re.compile(rf"{_CN_NOUN}\s*{_CN_NUMBER}(?![\d张幅个度倍%])")
_POINTER = re.compile(
    r"\b(?:this|that|the same|same|the above)\s+(?:\w+\s+)?"
    r"(?:image|picture|pic|photo(?:graph)?|screenshot|one)\b"
    r"|(?:这|那|同一|刚才那|上面那|前面那)\s*(?:张|幅|个)|(?:这|那)\s*"
    + _CN_NOUN
    # "what colours are in it?": the image the conversation is about, not the newest.
    + r"|\b(?:in|on|of|from|about)\s+it\b|\bit\s+(?:say|show|contain)s?\b"
)
# The upload before the newest, or before this turn's: "the image from before", "the previous
# picture", "上一张".
_PREVIOUS = re.compile(
    r"\b(?:previous|earlier|prior|preceding|last time's)\s+(?:\w+\s+)?"
    r"(?:image|picture|pic|photo(?:graph)?|screenshot|upload|attachment|one)\b"
    r"|\b(?:image|picture|pic|photo(?:graph)?|screenshot|upload|attachment|one)\s+"
    r"(?:from\s+)?(?:before|earlier)\b"
    r"|上一张|前一张|上一幅|前一幅|上张|之前(?:的|那)\s*(?:张|幅)?\s*" + _CN_NOUN + r"?"
)
# What an image shows, by the words people use for it; checked in this order.
CONTENT_WORDS: dict[str, re.Pattern[str]] = {
    "code": re.compile(
        r"\bqr\b|qr ?codes?|bar ?codes?|\bean\b|\bupc\b|data ?matrix|二维码|条形码|条码"
    ),
    "receipt": re.compile(r"\breceipts?\b|\bbill\b|\binvoice\b|小票|收据|发票|账单"),
    "sign": re.compile(
        r"\bsigns?\b|\bsignboard\b|\bnotice\b|\bplacard\b|牌子|标牌|招牌|告示|指示牌"
    ),
    "label": re.compile(r"\blabels?\b|\btags?\b|标签"),
    "photo": re.compile(r"\bthe photo(?:graph)?\b|照片|相片"),
}
_REFERENCES = (
    _ID, _NUMBERED, _ORDINAL, _CN_FROM_END, _CN_ORDINAL, _CN_LAST, _CN_NUMBERED, _PREVIOUS
)  # fmt: skip


def as_image_ids(image_ids: Sequence[str]) -> ImageIds:
    return image_ids if isinstance(image_ids, ImageIds) else ImageIds(image_ids)


def _number(word: str) -> int:
    if word.isdigit():
        return int(word)
    return _WORD_NUMBERS.get(word) or _CHINESE_NUMBERS.get(word) or 0


def _position(text: str) -> tuple[int, str, bool] | None:
    """(position, the words as written, whether they may also be read as an id) or None."""
    if match := _NUMBERED.search(text):
        return _number(match.group(1)), match.group(0), True
    if match := _CN_NUMBERED.search(text):
        return _number(match.group(1)), match.group(0), True
    if match := _ORDINAL.search(text):
        word = match.group(1)
        number = _ORDINALS.get(word) or int(re.sub(r"\D", "", word))
        return number, match.group(0), False
    if match := _CN_FROM_END.search(text):
        return -_number(match.group(1)), match.group(0), False
    if match := _CN_ORDINAL.search(text):
        return _number(match.group(1)), match.group(0), False
    if match := _CN_LAST.search(text):
        return -1, match.group(0), False
    return None


def content_of(text: str) -> str | None:
    """What the request says the image shows ("code", "receipt", ...), if it says."""
    lowered = normalise(text).lower()
    return next((kind for kind, words in CONTENT_WORDS.items() if words.search(lowered)), None)


def resolve_image(text: str, image_ids: Sequence[str]) -> ImageChoice:
    """The image `text` means among `image_ids`, and the others worth trying after it."""
    ids = as_image_ids(image_ids)
    lowered = normalise(text).lower()
    uploads = ids.uploads
    choice = ImageChoice(uploads=len(uploads))
    if match := _ID.search(lowered):
        named = f"img_{int(match.group(1))}"
        if named in ids:
            return choice.model_copy(update={"image_id": named, "way": "id", "candidates": [named]})
        return choice.model_copy(update={"way": "id", "unknown": named})
    if found := _position(lowered):
        number, words, may_be_id = found
        index = number - 1 if number > 0 else len(uploads) + number
        if number and 0 <= index < len(uploads):
            picked = uploads[index]
            return choice.model_copy(
                update={"image_id": picked, "way": "position", "position": number,
                        "candidates": [picked]}
            )  # fmt: skip
        # "image 4" with three uploads may still be the id the trace shows.
        if may_be_id and f"img_{number}" in ids:
            named = f"img_{number}"
            return choice.model_copy(update={"image_id": named, "way": "id", "candidates": [named]})
        return choice.model_copy(update={"way": "position", "position": number, "unknown": words})
    if match := _PREVIOUS.search(lowered):
        # With images sent this turn, "the previous one" is the last sent before them.
        turn = ids.turn_uploads or uploads[-1:]
        earlier = [u for u in uploads if u not in turn]
        if earlier:
            picked = earlier[-1]
            return choice.model_copy(
                update={"image_id": picked, "way": "position", "position": -2,
                        "candidates": [picked]}
            )  # fmt: skip
        return choice.model_copy(update={"way": "position", "position": -2, "unknown": match[0]})
    if not ids:
        return choice
    content = content_of(lowered)
    # "this photo" points back; "the photo" picks the one that is a photograph.
    likely = _likely(ids)
    if content and (content != "photo" or not _POINTER.search(lowered)):
        # What it shows may be in an image sent earlier; those come after the new ones.
        likely = list(dict.fromkeys([*likely, *reversed(uploads)]))
        return choice.model_copy(
            update={"image_id": likely[0], "way": "content", "content": content,
                    "candidates": likely}
        )  # fmt: skip
    if _POINTER.search(lowered) and ids.focus:
        return choice.model_copy(
            update={"image_id": ids.focus, "way": "pointer", "candidates": [ids.focus]}
        )
    return choice.model_copy(update={"image_id": likely[0], "candidates": likely})


def _likely(ids: ImageIds) -> list[str]:
    """What the person just sent, newest first; without a new upload, the newest image (which
    may be a tool's result they just saw) and then their uploads, newest first."""
    if ids.turn_uploads:
        return list(dict.fromkeys(reversed(ids.turn_uploads)))
    return list(dict.fromkeys([ids[-1], *reversed(ids.uploads)]))


def without_references(text: str) -> str:
    """`text`, lower-cased, with image references blanked out: "rotate image 2" has no angle."""
    lowered = normalise(text).lower()
    for pattern in _REFERENCES:
        lowered = pattern.sub(" ", lowered)
    return lowered


def names_an_image(text: str) -> bool:
    """Whether `text` points at an image by id, position or pointer word."""
    lowered = normalise(text).lower()
    return bool(
        _ID.search(lowered)
        or _position(lowered)
        or _PREVIOUS.search(lowered)
        or _POINTER.search(lowered)
    )


_COUNT = r"(two|three|four|five|six|seven|eight|nine|ten|\d{1,2})"
_EVERY = re.compile(
    # "all three images", "both pictures", "each photo", "every image", "all of them"
    rf"\b(?:all|both|each|every)(?:\s+(?:of\s+)?(?:the|these|those|my|them|of\s+them))*"
    rf"(?:\s+{_COUNT})?(?:\s+{_NOUN}|(?<=them)\b|(?<=all)\s+{_COUNT}\b)"
    rf"|\b(?:the|these|those|my)\s+{_COUNT}\s+{_NOUN}|\bthem all\b"
    # "read all of these", "what do they say?", "read all": a plural points at every one
    rf"|\b(?:these|those)\s+{_COUNT}\b|\b(?:these|those|them|they)\b|\ball\W*$"
    # 所有图片, 全部照片, 每张, 这三张, 两张图, 这些, 它们
    rf"|所有|全部|每一?(?:张|幅|个{_CN_NOUN})|(?<![第数])\s*{_CN_NUMBER}\s*(?:张|幅)"
    r"|这些|那些|它们|这几|那几"
)
_BOTH = re.compile(r"\bboth\b")


def every_image(text: str, image_ids: Sequence[str]) -> list[str]:
    """The images a request about all of them means, in the order they were sent: this turn's
    uploads, else every upload; with a count ("both", "the three images", "两张") the last
    that many; or the ones it names by id, two or more, in the order named. Empty when the
    request is about one image, or fewer than two are there."""
    ids = as_image_ids(image_ids)
    lowered = normalise(text).lower()
    # "read img_7, img_8 and img_9": the ones named, in the order named.
    named = [f"img_{n}" for n in dict.fromkeys(m.group(1) for m in _ID.finditer(lowered))]
    named = [image for image in named if image in ids]
    if named:
        return named if len(named) > 1 else []
    match = _EVERY.search(lowered)
    if match is None:
        return []
    pool = ids.turn_uploads if len(ids.turn_uploads) > 1 else ids.uploads
    words = [w for w in match.groups() if w]
    count = 2 if _BOTH.search(match.group(0)) else (_number(words[0]) if words else 0)
    chosen = list(pool[-count:]) if count else list(pool)
    return chosen if len(chosen) > 1 else []
