"""Run scenario files: `python -m agent.scenarios PATH... [--offline] [--model M [--base-url U]]...
[--repeat K] [--json OUT] [--junit OUT] [--workers N]`.

Exit code 0 when every scenario passed, 1 when some failed, 2 when a file is invalid (the valid
files still run). With neither --offline nor --model, the model comes from the environment as
in the app: no key and no base URL means the offline model. Several models (`--offline
--model a --model b`) run the same suite one after the other and are shown side by side; one
`--base-url` serves every `--model`, or each `--model` has its own, in order.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import zipfile
from collections.abc import Callable
from typing import Any

from tools.words import say

from .compare import (
    ModelRun,
    compared_json,
    file_name,
    junit_path,
    scenarios_table,
    scores_table,
)
from .format import FileError, InvalidFile, load_file, scenario_files
from .junit import write_junit
from .report import results_json, table, write_json
from .run import run_all
from .score import score, score_lines

ALL_PASSED, SOME_FAILED, INVALID_FILE = 0, 1, 2


def contenders(args: argparse.Namespace) -> list[tuple[str, Callable[[], Any]]]:
    """Each model to run, by the name the reports give it, with a function making a fresh one
    per scenario, so no state leaks between them."""
    from agent.config import Settings, make_model

    settings = Settings()
    chosen: list[tuple[str, Callable[[], Any]]] = []
    if args.offline:
        from agent.models import OfflineModel

        chosen.append(("offline", OfflineModel))
    if args.model:
        from agent.models import OpenAIChatModel

        secret = settings.openai_api_key
        key = secret.get_secret_value() if secret else None
        urls = args.base_url or [None]
        urls = urls * len(args.model) if len(urls) == 1 else urls
        for name, url in zip(args.model, urls, strict=True):

            def make(name: str = name, url: str | None = url) -> Any:
                return OpenAIChatModel(model=name, base_url=url, api_key=key)

            chosen.append((f"{name} @ {url}" if len(set(urls)) > 1 else name, make))
    return chosen or [("environment", lambda: make_model(settings))]


def model_factory(args: argparse.Namespace) -> Callable[[], Any]:
    """The first model's factory (the only one, unless several are compared)."""
    return contenders(args)[0][1]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m agent.scenarios",
        description="Run scenario files against the agent and score them.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders")
    parser.add_argument("--offline", action="store_true", help="use the built-in offline model")
    parser.add_argument(
        "--model", action="append", help="an OpenAI-compatible model name (again to compare)"
    )
    parser.add_argument(
        "--base-url", action="append", help="the endpoint for --model (once, or once per model)"
    )
    parser.add_argument("--repeat", type=int, default=1, metavar="K", help="runs per scenario")
    parser.add_argument("--workers", type=int, default=1, metavar="N", help="scenarios at once")
    parser.add_argument("--json", metavar="OUT", help="write the full results as JSON")
    parser.add_argument("--junit", metavar="OUT", help="write JUnit XML")
    args = parser.parse_args(argv)
    if args.base_url and not args.model:
        parser.error("--base-url needs --model")
    if args.base_url and len(args.base_url) not in (1, len(args.model)):
        parser.error("give one --base-url for every --model, or one for all")
    if args.repeat < 1 or args.workers < 1:
        parser.error("--repeat and --workers must be at least 1")
    return args


def record_main(argv: list[str]) -> int:
    """`record SOURCE -o OUT`: a conversation written as a scenario file."""
    from agent.conversation_file import UnreadableFile

    from .record import heard_from_session, heard_from_zip, record, write_scenario

    parser = argparse.ArgumentParser(
        prog="python -m agent.scenarios record",
        description="Write a conversation as a scenario file that checks it happens again.",
    )
    parser.add_argument(
        "source",
        help="a conversation downloaded from the page (.zip), or a session file of "
        "`python -m agent --session FILE`",
    )
    parser.add_argument("-o", "--output", required=True, help="the scenario file to write")
    parser.add_argument("--name", default="", help="the scenario's name")
    args = parser.parse_args(argv)
    try:
        # The zip's images are unpacked beside nothing of the person's, and copied from there.
        with tempfile.TemporaryDirectory(prefix="record-") as unpacked:
            if _is_zip(args.source):
                heard = heard_from_zip(args.source, unpacked)
            else:
                heard = heard_from_session(args.source)
            scenario, files = record(heard, args.name)
            out = write_scenario(scenario, files, args.output)
    except UnreadableFile as exc:
        sentence = say("en", f"page.viewer_{exc.reason}")
        print(f"python -m agent.scenarios record: {args.source}: {sentence}", file=sys.stderr)
        return INVALID_FILE
    except (OSError, ValueError) as exc:
        print(f"python -m agent.scenarios record: {exc}", file=sys.stderr)
        return INVALID_FILE
    turns = len(scenario["turns"])
    print(f"{out}: {turns} turn{'s' if turns != 1 else ''}")
    return ALL_PASSED


def _is_zip(path: str) -> bool:
    """A zip, or what begins as one (a download cut short is a damaged zip, not a session)."""
    if zipfile.is_zipfile(path):
        return True
    try:
        with open(path, "rb") as file:
            return file.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["record"]:
        return record_main(argv[1:])
    args = parse_args(argv)
    files, invalid = scenario_files(args.paths)
    scenarios = []
    for file in files:
        try:
            scenarios.extend(load_file(file))
        except InvalidFile as exc:
            invalid.append(exc.error)
    runs = []
    for name, make in contenders(args):
        results = asyncio.run(run_all(scenarios, make, repeat=args.repeat, workers=args.workers))
        runs.append(ModelRun(name, results, score(results, repeat=args.repeat)))
    if len(runs) == 1:
        _report_one(args, runs[0], invalid)
    else:
        _report_several(args, runs, invalid)
    for error in invalid:
        print("\ninvalid file:", "\n  ".join([error.file, *error.problems]), file=sys.stderr)
    if invalid:
        return INVALID_FILE
    return ALL_PASSED if all(run.passed for run in runs) else SOME_FAILED


def _report_one(args: argparse.Namespace, run: ModelRun, invalid: list[FileError]) -> None:
    print(table(run.results, invalid))
    print()
    print("\n".join(score_lines(run.scores)))
    if args.json:
        write_json(args.json, results_json(run.results, invalid, run.scores))
    if args.junit:
        write_junit(args.junit, run.results, invalid)


def _report_several(args: argparse.Namespace, runs: list[ModelRun], invalid: list[FileError]):
    for run in runs:
        print(f"== {run.name}")
        print(table(run.results, invalid))
        print()
    print(scores_table(runs))
    print()
    print(scenarios_table(runs))
    if args.json:
        write_json(args.json, compared_json(runs, invalid))
    if args.junit:
        written: set[str] = set()  # the same model twice has two files
        for run in runs:
            name = file_name(run.name, written)
            written.add(name)
            write_junit(junit_path(args.junit, name), run.results, invalid, run.name)


if __name__ == "__main__":
    sys.exit(main())
