"""The agent's own time per ReAct step, side by side with llama-index's ReActAgent.

Both agents get the same task from a zero-latency scripted model: five steps that each call a
trivial `add(a, b)` tool, then an answer. Whatever time a turn takes is the framework's own:
building the prompt, streaming, parsing, validating, calling the tool, emitting events. The two
sides alternate in one event loop, five turns at a time (`--burst`), so a noisy machine slows
both alike while each runs warm, as a server that runs one agent does.

Run from the repository root, with a venv that holds the app's requirements plus
bench/requirements.txt (llama-index is kept out of the app's own venv):

    /work/benchvenv/bin/python bench/overhead.py
    /work/benchvenv/bin/python bench/overhead.py --turns 300 --warmup 20 --chunk-size 8
    /work/benchvenv/bin/python bench/overhead.py --tool sync   # a sync tool: a thread hop each
    /work/benchvenv/bin/python bench/overhead.py --tool calculator  # our real calculator tool
    /work/benchvenv/bin/python bench/overhead.py --burst 1     # alternate turn by turn
    /work/benchvenv/bin/python bench/overhead.py --profile     # where our time goes, by function
    /work/venv/bin/python bench/overhead.py --ours-only        # no llama-index needed
    /work/venv/bin/python bench/overhead.py --ours-only --trace  # with OpenTelemetry tracing

It prints the median wall and CPU time per turn and per step (a step is one model call) for each
side, and the ratio llama-index / ours; the target is 20x. CPU time is the steadier figure on a
busy machine. Without llama-index installed only our side is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as a script: the repository root is one level up.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic import Field

from agent import Agent, Session
from agent.models import ScriptedModel
from agent.tracing import telemetry
from tools.base import StrictArgs, Tool, ToolContext, ToolResult

QUESTION = "Add up 1, 2, 3, 4, 5 and 6, one addition at a time."
# (a, b) of each tool step; each adds the next number to the running total.
ADDITIONS = [(1, 2), (3, 3), (6, 4), (10, 5), (15, 6)]
TOOL_STEPS = len(ADDITIONS)
ANSWER = "21"
TARGET_RATIO = 20.0


def scripted_replies(tool_kind: str = "async") -> list[str]:
    """The model's replies, in the ReAct format both agents read. With the calculator, our
    side adds through the real `calculator` tool of `default_tools()`."""
    if tool_kind == "calculator":
        replies = [
            f"Thought: I need to add {a} and {b}.\nAction: calculator\n"
            f'Action Input: {{"expression": "{a} + {b}"}}'
            for a, b in ADDITIONS
        ]
    else:
        replies = [
            f"Thought: I need to add {a} and {b}.\nAction: add\n"
            f'Action Input: {{"a": {a}, "b": {b}}}'
            for a, b in ADDITIONS
        ]
    replies.append(f"Thought: I can answer without using any more tools.\nAnswer: {ANSWER}")
    return replies


# -- our side -------------------------------------------------------------------------------------


class AddArgs(StrictArgs):
    a: int = Field(description="The first number.")
    b: int = Field(description="The second number.")


class AddTool(Tool):
    name = "add"
    description = "Add two integers and return the sum."
    Args = AddArgs

    def run(self, args: AddArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(text=str(args.a + args.b))


class AsyncAddTool(AddTool):
    """The same tool written async: no worker thread, so only the framework is timed."""

    async def run(self, args: AddArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(text=str(args.a + args.b))


@dataclass
class TurnResult:
    tool_steps: int
    answer: str


def make_ours(tool_kind: str = "async") -> Agent:
    if tool_kind == "calculator":
        from tools import default_tools

        return Agent(ScriptedModel([]), tools=default_tools())
    tool = AsyncAddTool() if tool_kind == "async" else AddTool()
    return Agent(ScriptedModel([]), tools=[tool])


async def ours_turn(
    agent: Agent, replies: Sequence[str], chunk_size: int, session: Session | None = None
) -> TurnResult:
    """One full turn of our agent, every event consumed.

    A cleared session stands for a new conversation (llama-index's side starts each run with
    empty memory) without leaving one temporary image folder behind per turn.
    """
    agent.model = ScriptedModel(replies, chunk_size=chunk_size)
    session = session or Session()
    session.reset()
    tool_steps = 0
    last: Any = None
    async for event in agent.run(QUESTION, session=session):
        if event.type == "tool_result" and event.ok:
            tool_steps += 1
        last = event
    answer = last.text if last is not None and last.type == "answer" else repr(last)
    return TurnResult(tool_steps, answer)


# -- llama-index side -----------------------------------------------------------------------------


def llama_available() -> bool:
    try:
        import llama_index.core  # noqa: F401
    except ImportError:
        return False
    return True


def make_llama(replies: Sequence[str], chunk_size: int, tool_kind: str = "async") -> Any:
    """llama-index's workflow ReActAgent over a scripted LLM that streams like a chat model."""
    from llama_index.core.agent.workflow import ReActAgent
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ChatResponse,
        CompletionResponse,
        LLMMetadata,
        MessageRole,
    )
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from llama_index.core.tools import FunctionTool
    from pydantic import PrivateAttr

    class ScriptedLLM(CustomLLM):
        """Returns the scripted replies in order, cycling, in chunks; no latency at all.

        The chat methods carry llama-index's own callback decorators, as its real LLM
        integrations do, so the instrumentation a real model pays is paid here too.
        """

        replies: list[str]
        chunk_size: int = 8
        _next: int = PrivateAttr(default=0)

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(is_chat_model=True)

        def _take(self) -> str:
            text = self.replies[self._next % len(self.replies)]
            self._next += 1
            return text

        def _chunks(self, text: str) -> list[str]:
            size = self.chunk_size
            return [text[i : i + size] for i in range(0, len(text), size)]

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            return CompletionResponse(text=self._take())

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            chunks = self._chunks(self._take())

            def gen() -> Any:
                text = ""
                for chunk in chunks:
                    text += chunk
                    yield CompletionResponse(text=text, delta=chunk)

            return gen()

        @llm_chat_callback()
        async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
            return ChatResponse(
                message=ChatMessage(role=MessageRole.ASSISTANT, content=self._take())
            )

        @llm_chat_callback()
        async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
            chunks = self._chunks(self._take())

            async def gen() -> Any:
                text = ""
                for chunk in chunks:
                    text += chunk
                    yield ChatResponse(
                        message=ChatMessage(role=MessageRole.ASSISTANT, content=text),
                        delta=chunk,
                    )

            return gen()

    def add(a: int, b: int) -> int:
        """Add two integers and return the sum."""
        return a + b

    async def add_async(a: int, b: int) -> int:
        """Add two integers and return the sum."""
        return a + b

    llm = ScriptedLLM(replies=list(replies), chunk_size=chunk_size)
    if tool_kind == "async":
        tool = FunctionTool.from_defaults(async_fn=add_async, name="add")
    else:
        tool = FunctionTool.from_defaults(fn=add)
    return ReActAgent(tools=[tool], llm=llm)


async def llama_turn(agent: Any) -> TurnResult:
    """One full turn of llama-index's agent, every streamed event consumed."""
    from llama_index.core.agent.workflow import ToolCallResult

    handler = agent.run(user_msg=QUESTION)
    tool_steps = 0
    async for event in handler.stream_events():
        if isinstance(event, ToolCallResult) and not event.tool_output.is_error:
            tool_steps += 1
    result = await handler
    return TurnResult(tool_steps, str(result).strip())


def tracing_provider() -> Any:
    """An OpenTelemetry SDK provider that batches every span and then drops it: the cost of
    tracing a turn, without a collector's."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Discard(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Discard()))
    return provider


# -- measuring ------------------------------------------------------------------------------------


@dataclass
class Side:
    name: str
    turn: Callable[[], Any]
    times: list[float] = field(default_factory=list)
    cpu_times: list[float] = field(default_factory=list)

    @property
    def per_turn(self) -> float:
        return statistics.median(self.times)

    @property
    def per_step(self) -> float:
        return self.per_turn / (TOOL_STEPS + 1)

    @property
    def cpu_per_step(self) -> float:
        return statistics.median(self.cpu_times) / (TOOL_STEPS + 1)


def check(name: str, result: TurnResult) -> None:
    assert result.tool_steps == TOOL_STEPS, (
        f"{name} ran {result.tool_steps} tool steps, expected {TOOL_STEPS}"
    )
    assert result.answer == ANSWER, f"{name} answered {result.answer!r}, expected {ANSWER!r}"


async def measure(
    turns: int = 100,
    warmup: int = 10,
    chunk_size: int = 8,
    with_llama: bool | None = None,
    tool_kind: str = "async",
    burst: int = 5,
) -> list[Side]:
    """Warm up, then alternate the sides, `burst` turns at a time; every turn is checked before
    it counts."""
    replies = scripted_replies(tool_kind)
    ours, session = make_ours(tool_kind), Session()
    sides = [Side("ours", lambda: ours_turn(ours, replies, chunk_size, session))]
    if with_llama is None:
        with_llama = llama_available()
    if with_llama:
        # Against our calculator, llama-index runs its own sync tool: its usual way.
        theirs = "sync" if tool_kind == "calculator" else tool_kind
        llama = make_llama(scripted_replies(theirs), chunk_size, theirs)
        sides.append(Side("llama-index", lambda: llama_turn(llama)))
    burst = max(1, burst)
    for first in range(0, warmup + turns, burst):
        # A side runs `burst` turns in a row, as a server runs one agent: with one turn each,
        # every turn starts with the other framework's code and data in the CPU caches.
        for side in sides:
            for i in range(first, min(first + burst, warmup + turns)):
                # CPU time (all threads of this process) shrugs off other work on a shared
                # machine; wall time is what a person waits.
                wall, cpu = time.perf_counter(), time.process_time()
                result = await side.turn()
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                check(side.name, result)
                if i >= warmup:
                    side.times.append(wall)
                    side.cpu_times.append(cpu)
    return sides


def report(sides: Sequence[Side], chunk_size: int, burst: int = 1) -> str:
    lines = [
        f"task: {TOOL_STEPS} tool steps + 1 answer, zero-latency scripted model, "
        f"{chunk_size}-character chunks, {len(sides[0].times)} turns per side (median), "
        f"alternating every {burst} turn(s)",
        f"{'agent':<12} {'ms/turn':>10} {'ms/step':>10} {'cpu ms/step':>12}",
    ]
    for side in sides:
        lines.append(
            f"{side.name:<12} {side.per_turn * 1e3:>10.3f} {side.per_step * 1e3:>10.3f} "
            f"{side.cpu_per_step * 1e3:>12.3f}"
        )
    if len(sides) > 1:
        ours, theirs = sides
        ratio = theirs.per_step / ours.per_step
        cpu_ratio = theirs.cpu_per_step / ours.cpu_per_step
        verdict = "meets" if ratio >= TARGET_RATIO else "misses"
        lines.append(
            f"llama-index / ours per step: {ratio:.1f}x wall, {cpu_ratio:.1f}x cpu "
            f"(wall {verdict} the {TARGET_RATIO:g}x target)"
        )
    return "\n".join(lines)


def profile_ours(turns: int, chunk_size: int, limit: int = 30, tool_kind: str = "async") -> str:
    """Where our turns spend their time: the agent's and tools' functions, by own time."""
    replies = scripted_replies(tool_kind)
    agent, session = make_ours(tool_kind), Session()

    async def many() -> None:
        for _ in range(turns):
            check("ours", await ours_turn(agent, replies, chunk_size, session))

    asyncio.run(many())  # warm caches and imports outside the profile
    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(many())
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
    stats.print_stats(limit)
    out.write("\n--- project code only, by cumulative time ---\n")
    stats.sort_stats("cumulative").print_stats(r"(agent|tools)/", limit)
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--chunk-size", type=int, default=8)
    parser.add_argument("--ours-only", action="store_true")
    parser.add_argument(
        "--burst",
        type=int,
        default=5,
        help="turns a side runs before the other side's turn (1: strict alternation)",
    )
    parser.add_argument(
        "--tool",
        choices=["async", "sync", "calculator"],
        default="async",
        help="the add tool on both sides: async, or sync (run in a worker thread by both); "
        "calculator: our real calculator tool against llama-index's sync add tool",
    )
    parser.add_argument("--profile", action="store_true", help="profile our side with cProfile")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="trace our turns with OpenTelemetry (an SDK provider that drops the spans)",
    )
    args = parser.parse_args(argv)
    if args.trace:
        telemetry.configure_tracing(tracing_provider())
        print("tracing: on (OpenTelemetry SDK, batched, spans dropped)")
    if args.profile:
        print(profile_ours(args.turns, args.chunk_size, tool_kind=args.tool))
        return 0
    with_llama = False if args.ours_only else None
    if with_llama is None and not llama_available():
        print("llama-index is not installed: measuring our side only", file=sys.stderr)
    sides = asyncio.run(
        measure(args.turns, args.warmup, args.chunk_size, with_llama, args.tool, args.burst)
    )
    if args.tool == "calculator":
        print("tool: our calculator (default_tools) against llama-index's sync add(a, b)")
    else:
        print(f"tool: {args.tool} add(a, b) on both sides")
    print(report(sides, args.chunk_size, args.burst))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
