"""Command line: `python -m agent "question" --image photo.jpg` streams the trace and the answer.

The flags mirror the API: the model (`--model`, `--base-url`, `--offline`), the agent's settings
(`--max-steps`, `--temperature`, `--style`, `--language`, `--approve`), and a conversation kept
in a file (`--session FILE`, `--continue`) so a question the agent asked (or a call waiting for
approval) can be answered by the next call.
`--json` prints every event as one JSON line in the trace export format.

Whoever runs the command is its operator: `--approve` is the approval policy for the run in
place of AGENT_APPROVAL, which holds when the flag is not given (the page's callers, by
contrast, may only lower the operator's policy: `agent.approval.effective_policy`).

Exit code 0 when the turn answered, asked or ended, 1 on an error, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from pydantic import ValidationError

from tools.registry import tool_problems

from .config import Settings, make_model
from .events import EVENT_ADAPTER
from .models import OfflineModel
from .runner import Agent
from .session import Session, load_session, save_session
from .tokens import Tokens

ANSWERED, ERROR, BAD_ARGUMENTS = 0, 1, 2
PROMPT = "> "
# Settings each flag sets, so a value out of range is reported under the flag's own name.
FLAGS = {
    "model": "--model",
    "openai_base_url": "--base-url",
    "max_steps": "--max-steps",
    "temperature": "--temperature",
    "language": "--language",
    "prompt_style": "--style",
    "approval": "--approve",
}


class BadArguments(Exception):
    """Flags that cannot be used as given; the message says which and why."""


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
        case "approval":
            return f"\nApproval: {event.question}"
        case "approval_decision":
            by = " (approval policy)" if event.by == "policy" else ""
            return f"· {event.decision} {event.tool}{by}"
        case "error":
            return f"\nError: {event.message}"
        case "run_finished":
            return _stats(event, Tokens())
    return None


def _stats(event: Any, tokens: Tokens) -> str:
    """ "· 2 model call(s), 1,234 tokens, 0.41s"; "≈" where the tokens are estimated, and the
    cost where AGENT_PRICES prices the model."""
    about = "≈" if tokens.estimated else ""
    counted = f", {about}{tokens.total:,} tokens" if tokens.total else ""
    cost = f", cost {about}{tokens.cost:.4f}" if tokens.cost is not None else ""
    return f"· {event.model_calls} model call(s){counted}{cost}, {event.duration:.2f}s"


class Printer:
    """Prints one turn's events: as the readable trace, or as JSON lines."""

    def __init__(self, as_json: bool, quiet: bool) -> None:
        self.as_json = as_json
        self.quiet = quiet
        self.streamed = False  # this turn's answer was shown as it came
        self.open_line = False  # the answer's last line still waits for its newline
        self.tokens = Tokens()  # this turn's model calls', for its statistics line

    def show(self, event: Any) -> None:
        if event.type == "run_started":
            self.tokens = Tokens()
        elif event.type == "model_call":
            self.tokens.add(event)
        if self.as_json:
            print(EVENT_ADAPTER.dump_json(event).decode(), flush=True)
            return
        if event.type == "answer_delta":
            if not self.streamed:
                print("\nAnswer: ", end="", flush=True)
                self.streamed = True
            print(event.text, end="", flush=True)
            self.open_line = True
            return
        if event.type == "answer":
            if not self.streamed:
                print(f"\nAnswer: {event.text}")
            elif self.open_line:
                print()
            self.streamed = self.open_line = False
            return
        line = _line(event)
        if event.type == "run_finished":
            line = _stats(event, self.tokens)
        if line and (not self.quiet or event.type in ("error", "ask_user", "approval")):
            # The turn's statistics come between the streamed answer and its end.
            if self.open_line:
                print()
                self.open_line = False
            print(line, flush=True)


def settings_from(args: argparse.Namespace) -> Settings:
    """The environment's settings with the flags on top; raises BadArguments."""
    given = {
        "model": args.model,
        "openai_base_url": args.base_url,
        "max_steps": args.max_steps,
        "temperature": args.temperature,
        "language": args.language,
        "prompt_style": args.style,
        "approval": args.approve,
    }
    try:
        return Settings(**{name: value for name, value in given.items() if value is not None})
    except ValidationError as error:
        problems = []
        for detail in error.errors():
            where = ".".join(str(part) for part in detail["loc"])
            problems.append(f"{FLAGS.get(where, where)}: {detail['msg']}")
        raise BadArguments("; ".join(problems)) from None


def model_from(args: argparse.Namespace, settings: Settings) -> Any:
    if args.offline:
        return OfflineModel()
    model = make_model(settings)
    if args.model and model.offline:
        raise BadArguments(
            "--model needs a service to ask: give --base-url, or set OPENAI_API_KEY or HF_TOKEN."
        )
    return model


def session_from(args: argparse.Namespace) -> Session:
    if not args.resume:
        return Session()
    try:
        return load_session(args.session)
    except FileNotFoundError as error:
        raise BadArguments(f"--continue: {error.filename} was not found.") from None
    except OSError as error:
        raise BadArguments(f"--continue: {error.filename} could not be read.") from None
    except ValueError:
        raise BadArguments(f"--continue: {args.session} is not a saved session.") from None


async def run_turn(agent: Agent, text: str, images: list[str], session: Session, out: Printer):
    """Run one turn, printing its events; its outcome: answered, asked, ended or error."""
    outcome = "error"
    async for event in agent.run(text, images, session):
        out.show(event)
        if event.type == "answer":
            outcome = "ended" if event.ended else "answered"
        elif event.type in ("ask_user", "approval"):
            outcome = "asked"
        elif event.type == "error":
            outcome = "error"
    return outcome


def read_reply() -> str | None:
    """The person's reply to a question, or None at the end of input. The prompt goes to
    stderr so that stdout stays the trace (or the JSON lines)."""
    print(PROMPT, end="", file=sys.stderr, flush=True)
    try:
        return input()
    except EOFError:
        print(file=sys.stderr)
        return None


def saved(args: argparse.Namespace, session: Session) -> bool:
    """Save the conversation if asked to; False (and a sentence on stderr) when that failed."""
    if not args.session:
        return True
    try:
        save_session(session, args.session)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        print(f"python -m agent: could not save {args.session}: {reason}", file=sys.stderr)
        return False
    return True


async def converse(args: argparse.Namespace, agent: Agent, session: Session) -> int:
    out = Printer(args.json, args.quiet)
    outcome = await run_turn(agent, args.question, args.image or [], session, out)
    if not saved(args, session):
        return ERROR
    # A person at a terminal answers the agent's question right here; a pipe or a script
    # answers it with the next call and --continue instead.
    while outcome == "asked" and sys.stdin.isatty():
        # input() blocks the loop on purpose: nothing else runs while the person types, and
        # Ctrl-C then stops the program at once.
        reply = read_reply()
        if reply is None:
            break
        if not reply.strip():
            continue
        outcome = await run_turn(agent, reply, [], session, out)
        if not saved(args, session):
            return ERROR
    return ERROR if outcome == "error" else ANSWERED


def parse_args(argv: list[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    parser = argparse.ArgumentParser(
        prog="python -m agent",
        description="Ask the agent one question; the trace and the answer stream to stdout.",
        epilog="Exit code 0 when the turn answered, asked or ended; 1 on an error; 2 for bad "
        "arguments.",
    )
    parser.add_argument("question")
    parser.add_argument("--image", action="append", help="an image file; repeat for several")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--offline", action="store_true", help="use the built-in offline model")
    which.add_argument("--model", help="the model name (default: AGENT_MODEL or the service's)")
    parser.add_argument(
        "--base-url", help="an OpenAI-compatible endpoint; the key comes from OPENAI_API_KEY"
    )
    parser.add_argument("--max-steps", type=int, metavar="N", help="model calls per turn, 1-50")
    parser.add_argument("--temperature", type=float, metavar="T", help="sampling, 0-2")
    parser.add_argument("--language", choices=["en", "zh"])
    parser.add_argument("--style", choices=["react", "plugin-task"])
    parser.add_argument(
        "--approve",
        choices=["ask", "always", "never"],
        help="before a tool that acts on the outside world runs: ask (reply yes or no), "
        "always run it, or never; given, it replaces AGENT_APPROVAL (default: AGENT_APPROVAL, "
        "else ask)",
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--quiet", action="store_true", help="print only the answer")
    shown.add_argument("--json", action="store_true", help="print every event as a JSON line")
    parser.add_argument("--session", metavar="FILE", help="save the conversation in FILE")
    parser.add_argument(
        "--continue",
        dest="resume",
        action="store_true",
        help="continue the conversation saved in --session FILE (answer its question)",
    )
    args = parser.parse_args(argv)
    if args.offline and args.base_url:
        parser.error("--offline and --base-url do not go together")
    if args.resume and not args.session:
        parser.error("--continue needs --session FILE")
    return parser, args


def main(argv: list[str] | None = None) -> int:
    parser, args = parse_args(argv)
    try:
        settings = settings_from(args)
        agent = Agent(model_from(args, settings), settings=settings)
        for sentence in tool_problems():  # a registered tool that failed to load is said
            print(f"python -m agent: {sentence}", file=sys.stderr)
        session = session_from(args)
    except BadArguments as error:
        parser.error(str(error))  # exits with BAD_ARGUMENTS, as argparse does for its own
    try:
        return asyncio.run(converse(args, agent, session))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return ERROR
    except BrokenPipeError:
        # The reader went away (`| head`); stdout is pointed at nowhere so that Python's own
        # flush at exit does not complain a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ERROR


if __name__ == "__main__":
    sys.exit(main())
