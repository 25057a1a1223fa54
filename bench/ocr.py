"""OCR: the engine the project reads text with against the one it read with before.

    benchvenv/bin/python -m bench.ocr            # from the repository root (see BENCHMARKS.md)
    benchvenv/bin/python -m bench.ocr --quick    # one rendered image of each kind
    benchvenv/bin/python -m bench.ocr --show     # and what each side read, image by image
    benchvenv/bin/python -m bench.ocr --engine-defaults   # and rapidocr's own detection settings

new: rapidocr 3.10 with its wheel's PP-OCRv6 models (`tools.ocr.engine`), as `read_text` runs
it: character boxes asked for, and the word spaces the recogniser dropped put back from the ink
(`tools.ocr.words`). as read: the same engine, its text as it reads it, without that repair.
old: rapidocr-onnxruntime 1.4.4 with its PP-OCRv4 models, called with the settings the project
gave it, through the same repair (but not the trim of a letter read from a neighbouring box,
which the project had for it and has no longer). The old engine is not in the app's
requirements; bench/requirements.txt brings it. Without it, the new engine's two sides run.

Both read the same images (`bench.ocr_images`: signs, receipts, boarding passes, small print,
Chinese notices, rotated text; each rendered and photographed) through the tool's own path,
`tools.read_text.recognise`: the same padding, one worker process per side with one thread, the
lines put in reading order. The sides take turns image by image, so both see the same load.

Character accuracy is 1 - (characters to change / characters expected), counted on difflib's
alignment of the expected lines (joined by newlines) with the lines read; the word spaces
count, and a line read out of its place counts twice: where it is missing and where it stands.
Time per read is the wall time of one `recognise` call, after each side's models are loaded and
one image is read.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from bench.ocr_images import Case, cases
from tools import read_text
from tools.ocr.pool import EngineSpec, OcrPool

OLD_PACKAGE = "rapidocr_onnxruntime"


class OldEngine:
    """rapidocr-onnxruntime 1.4.4 behind the same call as `tools.ocr.engine.Engine`: built once
    in its worker, called with a PIL image, returning (corners, text, confidence) per line."""

    def __init__(self, **settings: Any) -> None:
        from rapidocr_onnxruntime import RapidOCR

        self._engine = RapidOCR(**settings)

    def __call__(self, image: Any, **settings: Any) -> list[tuple[Any, ...]]:
        found, _ = self._engine(image, **settings)
        lines: list[tuple[Any, ...]] = []
        for corners, text, score, *detail in found or []:
            line: tuple[Any, ...] = (
                [[float(x), float(y)] for x, y in corners],
                str(text),
                float(score),
            )
            if len(detail) == 3:  # character boxes, characters, confidences
                boxes, chars, confidences = detail
                line += (
                    [
                        (ch, float(c), [[float(x), float(y)] for x, y in box])
                        for box, ch, c in zip(boxes, chars, confidences, strict=False)
                        if not ch.isspace()
                    ],
                )
            lines.append(line)
        return lines


# The settings the project gave the old engine: character boxes for the word-space repair
# (`tools.ocr.words`), and without them if that fails. Giving it any setting reset the others.
_OLD_CALL = {"text_score": read_text.ENGINE_MIN_SCORE, "box_thresh": 0.5, "unclip_ratio": 1.6}
OLD = EngineSpec(
    factory="bench.ocr:OldEngine",
    settings={
        "text_score": read_text.ENGINE_MIN_SCORE,
        "print_verbose": False,
        "intra_op_num_threads": 1,
        "inter_op_num_threads": 1,
    },
    calls=[{**_OLD_CALL, "return_word_box": True}, _OLD_CALL],
)
# The new engine's text as it reads it, without the word-space repair: what that repair adds.
AS_READ = read_text.ENGINE.model_copy(update={"calls": read_text.ENGINE.calls[-1:]})
# The new engine with rapidocr's own detection settings (`--engine-defaults`): the short side
# scaled up to 736 pixels, and a line turned over at a classifier score of 0.9.
DEFAULTS = read_text.ENGINE.model_copy(
    update={
        "settings": {
            **read_text.ENGINE.settings,
            "params": {"Det.limit_type": "min", "Det.limit_side_len": 736, "Cls.cls_thresh": 0.9},
        }
    }
)


@dataclass
class Side:
    name: str
    engine: EngineSpec
    pool: OcrPool = field(init=False)
    errors: dict[str, int] = field(default_factory=dict)  # per image key
    seconds: dict[str, float] = field(default_factory=dict)
    read: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pool = OcrPool(self.engine, size=1)

    def run(self, case: Case) -> None:
        read_text.POOL = self.pool
        started = time.perf_counter()
        lines = read_text.recognise(case.image, min_confidence=0.5)
        key = case_key(case)
        self.seconds[key] = time.perf_counter() - started
        self.read[key] = "\n".join(line["text"] for line in lines)
        self.errors[key] = char_errors(case.text, self.read[key])


def case_key(case: Case) -> str:
    return f"{case.kind} / {case.name} / {case.form}"


def char_errors(expected: str, read: str) -> int:
    """Characters to insert, delete or change to turn `read` into `expected`, on difflib's
    alignment (a changed run counts its longer side)."""
    matcher = difflib.SequenceMatcher(None, expected, read, autojunk=False)
    return sum(
        max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    )


def accuracy(errors: int, expected: int) -> float:
    return max(0.0, 1.0 - errors / expected) if expected else 1.0


def sides_available(only_new: bool = False, engine_defaults: bool = False) -> list[Side]:
    sides = []
    if not only_new and importlib.util.find_spec(OLD_PACKAGE) is not None:
        sides.append(Side("old: rapidocr-onnxruntime 1.4.4 (PP-OCRv4) and the repair", OLD))
    sides.append(Side("as read: rapidocr 3.10.0 (PP-OCRv6), no repair", AS_READ))
    sides.append(Side("new: rapidocr 3.10.0 (PP-OCRv6) and the repair", read_text.ENGINE))
    if engine_defaults:
        sides.append(Side("defaults: the same, at rapidocr's detection settings", DEFAULTS))
    return sides


def measure(images: list[Case], sides: list[Side]) -> None:
    try:
        for side in sides:
            side.pool.warm_up()
            read_text.POOL = side.pool
            read_text.recognise(images[0].image)  # the first image pays for lazy set-up
        for case in images:
            for side in sides:
                side.run(case)
    finally:
        for side in sides:
            side.pool.shutdown()


def _row(label: str, keys: list[str], images: dict[str, Case], sides: list[Side]) -> str:
    expected = sum(len(images[key].text) for key in keys)
    cells = [label, str(len(keys))]
    for side in sides:
        errors = sum(side.errors[key] for key in keys)
        cells.append(f"{accuracy(errors, expected):.1%}")
    for side in sides:
        exact = sum(side.errors[key] == 0 for key in keys)
        cells.append(f"{exact}/{len(keys)}")
    for side in sides:
        cells.append(f"{1000 * statistics.median(side.seconds[key] for key in keys):.0f}")
    return "| " + " | ".join(cells) + " |"


def report(images: list[Case], sides: list[Side], show: bool = False) -> str:
    by_key = {case_key(case): case for case in images}
    short = [side.name.split(":")[0] for side in sides]
    head = ["kind", "images"]
    head += [f"{name} accuracy" for name in short]
    head += [f"{name} exact" for name in short]
    head += [f"{name} ms/read (median)" for name in short]
    out = [" | ".join(head).join(["| ", " |"]), "|" + " --- |" * len(head)]
    groups: dict[str, list[str]] = {}
    for case in images:
        groups.setdefault(case.kind, []).append(case_key(case))
    for form in ("rendered", "photographed"):
        groups.setdefault(f"all {form}", []).extend(
            case_key(case) for case in images if case.form == form
        )
    groups = {label: keys for label, keys in groups.items() if keys}
    for label, keys in groups.items():
        out.append(_row(label, keys, by_key, sides))
    out.append(_row("**all**", list(by_key), by_key, sides))
    totals = []
    for side in sides:
        seconds = list(side.seconds.values())
        totals.append(
            f"{side.name}: {1000 * statistics.mean(seconds):.0f} ms/read on average, "
            f"{sum(seconds):.1f} s in all"
        )
    out.extend(["", *totals])
    if sides[0].engine is OLD:
        old = statistics.mean(sides[0].seconds.values())
        for side in sides[1:]:
            ratio = statistics.mean(side.seconds.values()) / old
            out.append(f"{side.name.split(':')[0]} / old time per read: {ratio:.2f}x")
    if show:
        out.append("")
        for key, case in by_key.items():
            out.append(f"{key}: expected {case.text!r}")
            for name, side in zip(short, sides, strict=True):
                out.append(f"    {name} ({side.errors[key]} off): {side.read[key]!r}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one rendered image of each kind")
    parser.add_argument("--new-only", action="store_true", help="leave out the old engine")
    parser.add_argument("--show", action="store_true", help="print what each side read")
    parser.add_argument(
        "--engine-defaults",
        action="store_true",
        help="also the new engine at rapidocr's own detection settings",
    )
    args = parser.parse_args(argv)
    images = cases(quick=args.quick)
    sides = sides_available(only_new=args.new_only, engine_defaults=args.engine_defaults)
    if sides[0].engine is not OLD and not args.new_only:
        print(f"{OLD_PACKAGE} is not installed: measuring the new engine alone.")
    measure(images, sides)
    print(report(images, sides, show=args.show))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
