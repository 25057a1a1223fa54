"""Run a module or script as its own process would, with text reading answered from the OCR
engine's recorded replies (`tests.support.recorded_ocr`), as in-process tests have it:

    python -m tests.support.recorded_run -m agent.scenarios scenarios/ --offline
    python -m tests.support.recorded_run app.py

For tests that start the command line or the server where reading is not what they test.
"""

from __future__ import annotations

import runpy
import sys


def use_recorded_ocr() -> None:
    from tools import read_text
    from tools.ocr.pool import OcrPool

    spec = read_text.ENGINE.model_copy(update={"factory": "tests.support.recorded_ocr:Recorded"})
    read_text.POOL = OcrPool(spec)


def command(*argv: str) -> list[str]:
    """The arguments after `python` that run `argv` (`-m module ...` or `script ...`) so."""
    return ["-m", __name__, *argv]


def main(argv: list[str]) -> None:
    use_recorded_ocr()
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
