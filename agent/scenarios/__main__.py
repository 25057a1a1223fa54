"""Run scenario files: `python -m agent.scenarios PATH... [--offline | --model M --base-url U]
[--repeat K] [--json OUT] [--junit OUT] [--workers N]`.

Exit code 0 when every scenario passed, 1 when some failed, 2 when a file is invalid (the valid
files still run). With neither --offline nor --model, the model comes from the environment as
in the app: no key and no base URL means the offline model.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import Any

from .format import InvalidFile, load_file, scenario_files
from .junit import write_junit
from .report import results_json, table, write_json
from .run import run_all
from .score import score, score_lines

ALL_PASSED, SOME_FAILED, INVALID_FILE = 0, 1, 2


def model_factory(args: argparse.Namespace) -> Callable[[], Any]:
    """A function making a fresh model per scenario, so no state leaks between them."""
    if args.offline:
        from agent.models import OfflineModel

        return OfflineModel
    from agent.config import Settings, make_model

    settings = Settings()
    if args.model:
        from agent.models import OpenAIChatModel

        secret = settings.openai_api_key
        key = secret.get_secret_value() if secret else None
        return lambda: OpenAIChatModel(model=args.model, base_url=args.base_url, api_key=key)
    return lambda: make_model(settings)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m agent.scenarios",
        description="Run scenario files against the agent and score them.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--offline", action="store_true", help="use the built-in offline model")
    which.add_argument("--model", help="an OpenAI-compatible model name")
    parser.add_argument("--base-url", help="the OpenAI-compatible endpoint for --model")
    parser.add_argument("--repeat", type=int, default=1, metavar="K", help="runs per scenario")
    parser.add_argument("--workers", type=int, default=1, metavar="N", help="scenarios at once")
    parser.add_argument("--json", metavar="OUT", help="write the full results as JSON")
    parser.add_argument("--junit", metavar="OUT", help="write JUnit XML")
    args = parser.parse_args(argv)
    if args.base_url and not args.model:
        parser.error("--base-url needs --model")
    if args.repeat < 1 or args.workers < 1:
        parser.error("--repeat and --workers must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files, invalid = scenario_files(args.paths)
    scenarios = []
    for file in files:
        try:
            scenarios.extend(load_file(file))
        except InvalidFile as exc:
            invalid.append(exc.error)
    results = asyncio.run(
        run_all(scenarios, model_factory(args), repeat=args.repeat, workers=args.workers)
    )
    scores = score(results, repeat=args.repeat)
    print(table(results, invalid))
    print()
    print("\n".join(score_lines(scores)))
    for error in invalid:
        print("\ninvalid file:", "\n  ".join([error.file, *error.problems]), file=sys.stderr)
    if args.json:
        write_json(args.json, results_json(results, invalid, scores))
    if args.junit:
        write_junit(args.junit, results, invalid)
    if invalid:
        return INVALID_FILE
    return ALL_PASSED if all(r.passed for r in results) else SOME_FAILED


if __name__ == "__main__":
    sys.exit(main())
