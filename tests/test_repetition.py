"""The loop detector on real-looking replies: a model that repeats itself is caught within a few
hundred characters of the loop, as the text streams in small pieces; tables, numbers, code and
other text that only looks repetitive are never taken for a loop, however long."""

from __future__ import annotations

import pytest

from agent.models.repetition import RepetitionWatch, loop_period


def streamed(text: str, piece: int = 5) -> int | None:
    """How many characters had streamed when the watch said loop (None: never)."""
    watch = RepetitionWatch()
    for start in range(0, len(text), piece):
        if watch.feed(text[start : start + piece]):
            return start + piece
    return None


TOKYO = "The current time in Tokyo is 3:00 PM. "
LOOPS = {
    # SmolLM2-135M on "现在东京几点了？", one sentence on one line, again and again.
    "sentence per line": "Thought: The user asks the time in Tokyo.\n"
    + "Answer: The current time in Tokyo is 3:00 PM.\n" * 300,
    "sentence without breaks": "Sure! " + TOKYO * 300,
    "chinese sentence": "思考：用户想知道东京的时间。\n回答：" + "现在东京的时间是下午3点。" * 300,
    # A cycle of lines, not one line: the same Thought and Action, no Observation in between.
    "thought and action cycle": (
        "Thought: I need to find the time in Tokyo.\n"
        "Action: world_clock\n"
        'Action Input: {"city": "Tokyo"}\n'
        "I will now look up the time.\n\n"
    )
    * 60,
    # Copies that differ only in their spacing are still copies.
    "spacing varies": "".join(
        f"The answer is 42 because it is the answer.{' ' * (i % 3 + 1)}\n" for i in range(200)
    ),
    "reasoning loop": "Okay, let me think. " + "Wait, maybe I should check again. " * 200,
    "long paragraph": (
        "Tokyo is in the Japan Standard Time zone, which is nine hours ahead of UTC. There is "
        "no daylight saving time in Japan, so the offset stays the same all year. "
    )
    * 20,
    "symbols forever": "Answer: " + "!" * 5_000,
}


@pytest.mark.parametrize("name", LOOPS)
def test_a_loop_is_cut_soon_after_it_is_clear(name):
    text = LOOPS[name]
    at = streamed(text)
    assert at is not None, name
    # Clear after a few copies; cut within 1,500 characters of text (a few seconds of a small
    # local model), not at the end of the reply or of the output limit.
    assert at < min(len(text), 6_000), (name, at)
    assert loop_period(text[:at]) is not None


def test_a_loop_in_chinese_is_cut_as_soon_as_one_in_english():
    english = streamed("Sure! " + TOKYO * 300)
    chinese = streamed("现在东京的时间是下午3点。" * 300)
    assert english is not None and chinese is not None
    # A Chinese character is about a word: the loop is cut after fewer characters.
    assert chinese < english


TABLE = "| City | Time | UTC offset |\n|------|------|------------|\n" + "".join(
    f"| City {i} | {i % 24:02d}:{i % 60:02d} | +{i % 12} |\n" for i in range(200)
)
EMPTY_ROWS = "| Name | Notes |\n|---|---|\n" + "|  |  |\n" * 300
NUMBERS = ", ".join(str(i) for i in range(2_000))
PRIMES_TO = ", ".join(str(n) for n in range(2, 3_000) if all(n % d for d in range(2, n)))
ZEROS = "\n".join("[" + " ".join("0." for _ in range(10)) + "]" for _ in range(10))
BIG_ZEROS = "\n".join("[" + ", ".join("0" for _ in range(30)) + "]," for _ in range(30))
CODE = (
    "CONSTANTS = {\n"
    + "".join(f'    "KEY_{i}": {i},\n' for i in range(300))
    + "}\n\n"
    + "".join(
        f"def test_case_{i}():\n    assert square({i}) == {i * i}\n    assert square(-{i}) == "
        f"{i * i}\n\n\n"
        for i in range(100)
    )
)
CLOSING_BRACES = "int main() {\n" + "    {\n" * 60 + "    }\n" * 60 + "}\n"
C_ARRAY = "static const unsigned char font[] = {\n" + "    0x00, 0x00, 0x00, 0x00,\n" * 60 + "};\n"
RULES = "".join("=" * 80 + f"\nSection {i}\n" for i in range(20)) + "-" * 2_000
SONG = "\n\n".join(
    [
        f"Verse {n}: the road goes on and on, past the river and the town number {n}.\n"
        "Chorus: Row, row, row your boat, gently down the stream; merrily, merrily, merrily, "
        "merrily, life is but a dream."
        for n in range(1, 8)
    ]
)
CHECKLIST = "".join(f"- [ ] Step {i}: check the settings and save them\n" for i in range(300))
CHINESE_PLAN = "".join(
    f"第{i}天：上午参观博物馆，下午在公园散步，晚上早点休息。\n" for i in range(1, 120)
)
HELLO_TIMES = "Hello, world!\n" * 12
# A short word copied on and on is read as the short word, not as pairs of it with words in.
WORD_AGAIN = "Answer: " + "word " * 400


@pytest.mark.parametrize(
    "text",
    [
        TABLE,
        EMPTY_ROWS,
        NUMBERS,
        PRIMES_TO,
        ZEROS,
        BIG_ZEROS,
        CODE,
        CLOSING_BRACES,
        C_ARRAY,
        RULES,
        SONG,
        CHECKLIST,
        CHINESE_PLAN,
        HELLO_TIMES,
        WORD_AGAIN,
    ],
    ids=[
        "table",
        "empty table rows",
        "numbers",
        "primes",
        "zeros matrix",
        "30x30 zeros",
        "code",
        "closing braces",
        "c array",
        "rules",
        "song with chorus",
        "checklist",
        "chinese plan",
        "hello a dozen times",
        "one short word",
    ],
)
def test_text_that_only_looks_repetitive_is_never_cut(text):
    for piece in (1, 7, 64):
        assert streamed(text, piece) is None
    assert loop_period(text) is None


def test_short_text_and_empty_pieces_are_no_loop():
    watch = RepetitionWatch()
    assert not any(watch.feed(p) for p in ["", "ok", "", "ok ok ok"])
    assert loop_period("") is None and loop_period("ab" * 5) is None
