"""Telling a model stuck in a loop from text that only looks repetitive.

A small model that loops writes one stretch of text again and again, word for word, until its
output limit (a minute or more on a local server). Text people ask for repeats too: table rows of
one shape, lists of numbers, code with similar lines, a rule of dashes, a matrix of zeros. Those
are not the same stretch copied back to back, or the copies hold no words, or they stop after a
few. So the latest text counts as a loop only when it is one stretch copied back to back:

- a stretch with words in it (`WORDY_LETTERS` letters, `WORDY_DISTINCT` different ones): at
  least `MIN_COPIES` copies, together `SPAN` characters long (a Chinese character counts as
  `CJK_WEIGHT`, being about a word: a loop in Chinese is as clear as one in English after as
  many tokens);
- a stretch of symbols, digits or one repeated letter ("-", "0. ", "<td></td>"): `SYMBOL_SPAN`.

Runs of white space count as one space, so copies that differ only in spacing are copies.
Only the end of the text is looked at, every `CHECK_EVERY` characters: a loop, once it has
begun, stays at the end. Each look costs one backward search over `MAX_PERIOD` characters and
a few comparisons of at most `WINDOW` characters, whatever the text.
"""

from __future__ import annotations

import math
import re

MIN_COPIES = 4
SPAN = 600
SYMBOL_SPAN = 3_000
CJK_WEIGHT = 3
WORDY_LETTERS = 6
WORDY_DISTINCT = 3
# The longest stretch that can be seen to repeat: a paragraph or two.
MAX_PERIOD = 1_500
CHECK_EVERY = 48
# The end of the text that is kept: enough for MIN_COPIES copies of the longest stretch.
WINDOW = MAX_PERIOD * MIN_COPIES + 1_000
# The text at the very end whose earlier occurrences propose where a copy began.
_PROBE = 24
# Earlier occurrences tried at each look; a loop's own is the nearest.
_TRIES = 8

_SPACE = re.compile(r"\s+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def loop_period(text: str) -> int | None:
    """The length of the stretch the end of `text` repeats, if it is a loop (see above);
    `text` as the model wrote it or with its white space already folded."""
    text = _SPACE.sub(" ", text)[-WINDOW:]
    end = len(text) - _PROBE
    if end <= 0:
        return None
    probe = text[end:]
    start = max(0, end - MAX_PERIOD)
    before = end  # occurrences are looked for starting before this
    for _ in range(_TRIES):
        at = text.rfind(probe, start, before - 1 + _PROBE)
        if at < 0:
            return None
        before = at
        period = end - at
        unit = text[-period:]
        if (unit + unit).find(unit, 1) < period:
            continue  # copies of a shorter stretch, which was looked at first
        span = _span_needed(unit)
        if span <= len(text) and text[len(text) - span + period :] == text[-span:-period]:
            return period
    return None


def _span_needed(unit: str) -> int:
    """How much of the text must be copies of `unit` for the copies to be a loop."""
    letters = [c for c in unit if c.isalpha()]
    wordy = len(letters) >= WORDY_LETTERS and len(set(letters)) >= WORDY_DISTINCT
    weight = len(unit) + (CJK_WEIGHT - 1) * len(_CJK.findall(unit))
    copies = math.ceil((SPAN if wordy else SYMBOL_SPAN) / weight)
    return max(MIN_COPIES, copies) * len(unit)


class RepetitionWatch:
    """Watches text as it streams: `feed` says True once the text has become a loop."""

    def __init__(self) -> None:
        self._text = ""
        self._unchecked = 0

    def feed(self, piece: str) -> bool:
        if not piece:
            return False
        piece = _SPACE.sub(" ", piece)
        if piece[0] == " " and self._text.endswith(" "):
            piece = piece[1:]
        self._text += piece
        self._unchecked += len(piece)
        if self._unchecked < CHECK_EVERY:
            return False
        self._unchecked = 0
        if len(self._text) > 2 * WINDOW:
            self._text = self._text[-WINDOW:]
        return loop_period(self._text) is not None
