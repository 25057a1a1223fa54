"""Reading the text of chat messages: a message's words, the notes the agent puts under them
(the images a message came with, and the uploads that never arrived), and words without emoji."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from tools import words as catalog

NOTE = re.compile(r"\[(?:Images|Earlier images, not shown again): ([^\]]*)\]")
_ID = re.compile(r"\bimg_\d+\b")
_BRACKETED = re.compile(r"\([^()]*\)")
_IMAGE_NOTE = (
    r"\[(?:Images|Earlier images, not shown again|Images no longer available"
    r"|Other images in this conversation, not shown): [^\]]*\]"
)
# The conversation's images no message shows (a tool's results in earlier turns): they exist,
# and none of them is an upload of a turn in view.
UNSHOWN = re.compile(r"\[Other images in this conversation, not shown: ([^\]]*)\]")
NOTES_AT_END = re.compile(rf"(?:\n{_IMAGE_NOTE})+\s*$")
# The note under the person's words naming the uploads that never reached the model.
_REFUSED_NOTE = "|".join(
    re.escape(catalog.words(lang, "phrases.refused_note")).replace(r"\{reasons\}", ".+")
    for lang in ("en", "zh")
)
_ALL_NOTES_AT_END = re.compile(rf"(?:\n(?:{_IMAGE_NOTE}|{_REFUSED_NOTE}))+\s*$")


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def note_ids(text: str, note: re.Pattern[str] = NOTE) -> list[str]:
    """The images the notes in `text` name (not those their descriptions mention: "img_2
    (900x700, zoom of img_1)" names img_2)."""
    return [i for found in note.findall(text) for i in _ID.findall(_outside_brackets(found))]


def _outside_brackets(text: str) -> str:
    while (shorter := _BRACKETED.sub("", text)) != text:
        text = shorter
    return text


def strip_notes(text: str) -> str:
    """`text` without the notes under it."""
    return _ALL_NOTES_AT_END.sub("", f"\n{text}" if text.startswith("[") else text).strip()


# Symbols that stand for units or numbers are words here; other pictographs are decoration.
_KEPT_SYMBOLS = frozenset("°℃℉℥Ω℧Å№™©®")


def _decoration(char: str) -> bool:
    code = ord(char)
    if char in _KEPT_SYMBOLS or 0x3380 <= code <= 0x33FF:  # ㎞, ㎏: units in one sign
        return False
    kind = unicodedata.category(char)
    # Emoji are symbols, with joiners, variation selectors, keycaps and skin tones between.
    return (
        kind == "So"
        or code in (0x200D, 0x20E3)
        or 0xFE00 <= code <= 0xFE0F
        or (0x1F3FB <= code <= 0x1F3FF)
    )


def plain(text: str) -> str:
    """`text` without emoji and pictographs between its words ("3 🍕 miles" is "3 miles")."""
    if text.isascii():
        return text
    cleaned = "".join(" " if _decoration(char) else char for char in text)
    return re.sub(r"[ \t]{2,}", " ", cleaned).strip() if cleaned != text else text
