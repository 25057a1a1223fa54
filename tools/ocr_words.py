"""Word spaces and letter-or-digit choices for OCR lines, from the image itself.

The recogniser reads a detected line as one string and often drops the spaces of text it sees
enlarged ("BESTBEF0RE2027-03-14"). The ink tells where they were: between words there is a run
of background columns wider than the gaps between letters, and the recogniser's characters
(the engine's character boxes) stand further apart there. Where both say so, a space goes back
between two letters or digits. Chinese is written without spaces and stays joined.

Inside a word made of letters, a digit standing alone between letters, or one the engine is
unsure of, is the letter it looks like (BEF0RE -> BEFORE); numbers and codes stay as read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
        self.runs: list[tuple[int, int]] = []  # (first, last + 1) columns
        self.height = 0
        if gray.ndim != 2 or min(gray.shape) < 4 or int(gray.max()) - int(gray.min()) < 40:
            return
        ink = gray <= _otsu(gray)
        if ink.mean() > 0.5:  # light text on a dark ground
            ink = ~ink
        top, bottom = _text_band(ink)
        columns = ink[top:bottom].any(axis=0)
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


def trim_overlaps(found: Sequence[Any]) -> list[Any]:
    """The engine's findings (polygon, text, score, and possibly character boxes, characters
    and confidences), with the characters each box read from its neighbour's ink taken out.

    The detector pads its boxes, so two boxes on one line may overlap; the recogniser then reads
    the overlap twice, and the left box ends in a stray letter made of the first stroke of the
    right box's first character ("OPEN" + "9:00" read as "OPENS" + "9:00"). A character of the
    left box whose centre lies inside the right box belongs to the right one."""
    items = [list(item) for item in found]
    for left in items:
        for right in items:
            if left is right or len(left) != 6 or not _same_line(left[0], right[0]):
                continue
            left_x0, left_x1 = _x_span(left[0])
            right_x0, right_x1 = _x_span(right[0])
            if not (left_x0 < right_x0 < left_x1 < right_x1):
                continue
            boxes, chars, confidences = left[3], left[4], left[5]
            if len(boxes) != len(chars) or len(confidences) != len(chars):
                continue
            keep = [i for i, box in enumerate(boxes) if _centre(box) < right_x0]
            if not keep or len(keep) == len(chars):
                continue
            while keep and chars[keep[-1]].isspace():
                keep.pop()
            left[3] = [boxes[i] for i in keep]
            left[4] = [chars[i] for i in keep]
            left[5] = [confidences[i] for i in keep]
            left[1] = "".join(left[4])
    return [tuple(item) for item in items]


def _x_span(polygon: Any) -> tuple[float, float]:
    xs = [float(x) for x, _ in polygon]
    return min(xs), max(xs)


def _centre(box: Any) -> float:
    return sum(float(x) for x, _ in box) / len(box)


def _same_line(a: Any, b: Any) -> bool:
    """Whether two boxes share a text line: each one's vertical middle is inside the other."""
    a_ys, b_ys = [float(y) for _, y in a], [float(y) for _, y in b]
    a_mid, b_mid = (min(a_ys) + max(a_ys)) / 2, (min(b_ys) + max(b_ys)) / 2
    return min(b_ys) < a_mid < max(b_ys) and min(a_ys) < b_mid < max(a_ys)
