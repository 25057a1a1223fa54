"""Command line: `python -m agent "question" --image photo.jpg` streams the trace and the answer."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from .config import Settings, make_model
from .runner import Agent


def _line(event) -> str | None:
    """One event as a line of the printed trace, or None for events shown otherwise."""
    match event.type:
        case "run_started":
            label = " (offline: set OPENAI_API_KEY or OPENAI_BASE_URL for a real model)"
            return f"· model: {event.model}{label if event.offline else ''}"
        case "notice":
            return f"! {event.message}"
        case "thought":
            return f"Thought: {event.text}"
        case "tool_call":
            return f"Action: {event.tool} {json.dumps(event.arguments, ensure_ascii=False)}"
        case "tool_progress":
            return f"  … {event.message}"
        case "tool_result":
            images = "".join(f" [{i.id} {i.width}x{i.height}]" for i in event.images)
            return f"Observation ({event.duration:.2f}s): {event.text}{images}"
        case "step_retry":
            return f"! retry: {event.reason}"
        case "task_state":
            known, missing = event.known, event.missing
            return f"· task {event.tool}: known {known}, missing {missing} ({event.status})"
        case "ask_user":
            return f"\nQuestion: {event.question}"
        case "error":
            return f"\nError: {event.message}"
        case "run_finished":
            return f"· {event.model_calls} model call(s), {event.duration:.2f}s"
    return None


async def _main(args: argparse.Namespace) -> int:
    settings = Settings()
    overrides = {k: v for k, v in {"language": args.language, "style": args.style}.items() if v}
    agent = Agent(make_model(settings), settings=settings, **overrides)
    status = 0
    answering = False
    async for event in agent.run(args.question, args.image or ()):
        if event.type == "answer_delta":
            if not answering:
                print("\nAnswer: ", end="", flush=True)
                answering = True
            print(event.text, end="", flush=True)
            continue
        if event.type == "answer":
            if not answering:
                print(f"\nAnswer: {event.text}", end="")
            print()
            continue
        if event.type == "error":
            status = 1
        line = _line(event)
        if (line and not args.quiet) or (line and event.type in ("error", "ask_user")):
            print(line, flush=True)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent", description=__doc__)
    parser.add_argument("question")
    parser.add_argument("--image", action="append", help="an image file; repeat for several")
    parser.add_argument("--language", choices=["en", "zh"])
    parser.add_argument("--style", choices=["react", "plugin-task"])
    parser.add_argument("--quiet", action="store_true", help="print only the answer")
    args = parser.parse_args(argv)
    return asyncio.run(_main(args))


if __name__ == "__main__":
    sys.exit(main())
