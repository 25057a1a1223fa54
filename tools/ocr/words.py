"""Word spaces and letter-or-digit choices for OCR lines, from the image itself.

The recogniser reads a detected line as one string, and on text it sees enlarged and soft (a
zoomed label) it still drops some word spaces ("BEST BEFORE2027-03-14") and, in some fonts,
reads an O as a zero ("BEF0RE"). The ink tells where the spaces were: between words there is a
run of background columns wider than the gaps between letters, and the recogniser's characters
(the engine's character boxes) stand further apart there. Where both say so, a space goes back
between two letters or digits; a space the engine read stays. Chinese is written without spaces
and stays joined.

Inside a word made of letters, a digit standing alone between letters, or one the engine is
unsure of, is the letter it looks like (BEF0RE -> BEFORE); numbers and codes stay as read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# When a gap between two characters is a word space, as (share of the line's height, times the
# line's median gap, times the median distance between character centres), any tier met. Set
# from rendered lines in six fonts at 12 to 36 pixels, enlarged 1 to 4 times: the widest gaps
# inside words (around a "1", or a monospaced "j") meet none, and the spaces that stay missed
# are mostly in small lower-case text, where a descender reaches under its neighbour.
WORD_GAP_TIERS = ((0.35, 1.5, 1.1), (0.45, 2.0, 0.0), (0.25, 2.2, 1.4))
# Below this the engine is unsure of a character.
UNSURE = 0.9

_AS_LETTER = {"0": "O", "1": "I", "5": "S", "8": "B"}
_AS_LOWER_LETTER = {"0": "o", "1": "l", "5": "s"}


def is_cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef"


class Gaps:
    """The runs of background columns between the ink of one text line's crop; `offset` is
    the crop's left edge, so that positions are on the same axis as the character boxes."""

    def __init__(self, gray: np.ndarray, offset: int = 0) -> None:
        import numpy as np  # here: a process that reads no text need not load numpy

        self.runs: list[tuple[int, int]] = []  # (first, last + 1) columns
        self.height = 0
        if gray.ndim != 2 or min(gray.shape) < 4 or int(gray.max()) - int(gray.min()) < 40:
            return
        ink = gray <= _otsu(gray)
        if ink.mean() > 0.5:  # light text on a dark ground
            ink = ~ink
        top, bottom = _text_band(ink)
        columns = np.any(ink[top:bottom], axis=0)
        inked = np.flatnonzero(columns)
        if bottom - top < 3 or len(inked) < 2:
            return
        edges = np.diff(columns[inked[0] : inked[-1] + 1].astype(np.int8))
        starts = np.flatnonzero(edges == -1) + 1 + inked[0] + offset
        ends = np.flatnonzero(edges == 1) + 1 + inked[0] + offset
        self.runs = [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]
        self.height = int(bottom - top)

    def widest_between(self, x_left: float, x_right: float) -> int:
        return max((b - a for a, b in self.runs if x_left < (a + b) / 2 < x_right), default=0)


def _otsu(gray: np.ndarray) -> int:
    """The grey level that best splits `gray` into two classes (ink and background)."""
    import numpy as np

    counts = np.bincount(gray.ravel(), minlength=256).astype(float)
    levels = np.arange(256)
    below = np.cumsum(counts)
    above = below[-1] - below
    mass = np.cumsum(counts * levels)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = (mass[-1] * below / below[-1] - mass) ** 2 / (below * above)
    return int(np.argmax(np.nan_to_num(spread)))


def _text_band(ink: np.ndarray) -> tuple[int, int]:
    """The rows of the line itself: the tallest run of inked rows, leaving out the edge of a
    neighbouring line that the crop caught."""
    import numpy as np

    inked = np.concatenate([[0], (ink.mean(axis=1) > 0.02).astype(np.int8), [0]])
    edges = np.diff(inked)
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if len(starts) == 0:
        return 0, 0
    tallest = int(np.argmax(ends - starts))
    return int(starts[tallest]), int(ends[tallest])


def tidy_line(
    chars: Sequence[str], confidences: Sequence[float], centres: Sequence[float], gaps: Gaps
) -> str:
    """One recognised line, given as its characters with the centre of each and the engine's
    confidence in it, and the gaps of its crop on the same x axis: the text to show."""
    import numpy as np

    pitches = [
        centres[i] - centres[i - 1]
        for i in range(1, len(chars))
        if not chars[i].isspace() and not chars[i - 1].isspace()
    ]
    widths = [b - a for a, b in gaps.runs]
    if not pitches or not widths or not gaps.height:
        return prefer_letters(chars, confidences)
    usual_pitch, usual_gap = float(np.median(pitches)), float(np.median(widths))
    spaced: list[str] = []
    sure: list[float] = []
    for i, (ch, confidence) in enumerate(zip(chars, confidences, strict=True)):
        left = chars[i - 1] if i else ""
        if _spaceable(left, ch):
            width = gaps.widest_between(centres[i - 1], centres[i])
            measures = (
                width / gaps.height,
                width / max(usual_gap, 1.0),
                (centres[i] - centres[i - 1]) / max(usual_pitch, 1.0),
            )
            if any(
                all(m >= t for m, t in zip(measures, tier, strict=True)) for tier in WORD_GAP_TIERS
            ):
                spaced.append(" ")
                sure.append(1.0)
        spaced.append(ch)
        sure.append(confidence)
    return prefer_letters(spaced, sure)


# A dash between two times or words ("9:00 - 18:00") is spaced as the ink shows, like a word.
_DASHES = "-–—~"


def _latin(ch: str) -> bool:
    return ch.isalnum() and not is_cjk(ch)


def _spaceable(left: str, right: str) -> bool:
    """Whether a word space may have been dropped between these two characters."""
    if _latin(left) and _latin(right):
        return True
    return (_latin(left) and right in _DASHES) or (left in _DASHES and _latin(right))


def tidy(text: str, chars: Sequence[tuple[str, float, float]], gaps: Gaps) -> str:
    """A line as read (`text`), given also as the engine's characters without its spaces, each
    with its confidence and centre x, and the gaps of the line's crop on the same axis: the text
    to show. `text` itself when the characters are not the text's."""
    if [ch for ch, _, _ in chars] != [ch for ch in text if not ch.isspace()]:
        return text
    letters: list[str] = []
    confidences: list[float] = []
    centres: list[float] = []
    read = iter(chars)
    for ch in text:
        if ch.isspace():
            # A space has no box of its own; it is never measured, only kept.
            letters.append(" ")
            confidences.append(1.0)
            centres.append(centres[-1] if centres else 0.0)
            continue
        _, confidence, centre = next(read)
        letters.append(ch)
        confidences.append(confidence)
        centres.append(centre)
    return tidy_line(letters, confidences, centres, gaps)


def prefer_letters(chars: Sequence[str], confidences: Sequence[float]) -> str:
    """`chars` joined, with digits that look like letters read as letters inside words of
    letters: a digit standing alone between two letters (BEF0RE, n0w), or one the engine is
    unsure of at the edge of a longer word (5TORE). Numbers and codes (PS5, 4471-B) stay."""
    out = list(chars)
    start = 0
    for end in [*(i for i, ch in enumerate(chars) if ch.isspace()), len(chars)]:
        word = range(start, end)
        letters = sum(chars[i].isalpha() for i in word)
        digits = sum(chars[i].isdigit() for i in word)
        if letters >= 2 and digits <= max(1, letters // 3):
            for i in word:
                before = chars[i - 1] if i > start else ""
                after = chars[i + 1] if i + 1 < end else ""
                between = before.isalpha() and after.isalpha()
                at_edge = not (before and after) and (before + after).isalpha()
                unsure_edge = at_edge and letters >= 3 and confidences[i] < UNSURE
                if chars[i] in _AS_LETTER and (between or unsure_edge):
                    lower = (before + after).islower()
                    out[i] = (_AS_LOWER_LETTER if lower else _AS_LETTER).get(chars[i], chars[i])
        start = end + 1
    return "".join(out)
