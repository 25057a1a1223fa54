"""No single message stalls the agent: bounds on what is sent, hostile work off the loop."""

from __future__ import annotations

import asyncio
import threading
import time

from pydantic import Field, field_validator

from agent import Agent, Session, offload
from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from agent.models.offline import tool_hints
from agent.models.offline.tool_hints import ToolHints
from tests.conftest import collect, png_bytes, types
from tools.base import StrictArgs, Tool, ToolResult


def agent_with(model, tools=None, **settings) -> Agent:
    return Agent(model, tools, settings=Settings(**settings))


async def test_a_message_over_the_length_limit_is_refused_at_once_and_changes_nothing():
    session = Session()
    agent = agent_with(OfflineModel(), AGENT_MAX_MESSAGE_CHARS=1000)
    await collect(agent, "convert 5 miles", session=session)
    task_before = session.task.model_copy(deep=True)
    started = time.perf_counter()
    events = await collect(agent, "x" * 2_000_000, session=session)
    assert time.perf_counter() - started < 0.5
    assert types(events) == ["run_started", "run_finished", "error"]
    assert events[-1].kind == "input"
    assert "2,000,000 characters" in events[-1].message and "1,000" in events[-1].message
    assert len(session.history) == 1 and session.task == task_before


async def test_a_long_chinese_message_is_refused_in_chinese():
    agent = agent_with(OfflineModel(), AGENT_MAX_MESSAGE_CHARS=100)
    events = await collect(agent, "你好" * 100)
    assert "200 个字符" in events[-1].message


async def test_too_many_images_are_refused_before_any_is_read(png):
    model = ScriptedModel(["Answer: never"])
    agent = agent_with(model, AGENT_MAX_IMAGES_PER_MESSAGE=3)
    session = Session()
    events = await collect(agent, "look", [png] * 4, session)
    assert events[-1].type == "error" and "4 images" in events[-1].message
    assert "up to 3" in events[-1].message
    assert session.images.ids() == [] and model.calls == 0


async def test_the_limit_itself_is_allowed(png):
    agent = agent_with(ScriptedModel(["Answer: ok"]), AGENT_MAX_IMAGES_PER_MESSAGE=2)
    events = await collect(agent, "look", [png, png_bytes_of_blue()])
    assert events[-1].type == "answer"


def png_bytes_of_blue() -> bytes:
    from PIL import Image

    return png_bytes(Image.new("RGB", (8, 8), "blue"))


async def test_history_keeps_the_latest_turns_only():
    agent = agent_with(ScriptedModel([f"Answer: {i}" for i in range(7)]), AGENT_MAX_HISTORY_TURNS=3)
    session = Session()
    for i in range(7):
        await collect(agent, f"question {i}", session=session)
    assert [turn.user_text for turn in session.history] == [
        "question 4",
        "question 5",
        "question 6",
    ]


# The event loop's turns so far, counted while `loop_turns` runs; and the turns it took while
# each piece of slow work ran: none if that work ran on the loop itself.
TURNS = [0]
TURNS_DURING: list[int] = []


def slow_work() -> None:
    before = TURNS[0]
    time.sleep(0.3)
    TURNS_DURING.append(TURNS[0] - before)


class SlowUnitArgs(StrictArgs):
    unit: str = Field(description="A unit.")

    @field_validator("unit")
    @classmethod
    def _slow(cls, value: str) -> str:
        slow_work()  # stands for a parser that takes a while
        return value


class SlowCheck(Tool):
    name = "slow_check"
    description = "A tool whose arguments take a while to check."
    Args = SlowUnitArgs

    def extract(self, text, image_ids, known):
        slow_work()  # stands for an extractor that takes a while
        return {"unit": "m"}

    def run(self, args, ctx):
        return ToolResult(text=f"checked {args.unit}")


tool_hints.register("slow_check", ToolHints(en=(r"\bslowcheck\b",)))


async def loop_turns(coro) -> object:
    """Run `coro` while a ticker counts the event loop's turns in `TURNS`."""
    done = asyncio.Event()

    async def ticker():
        while not done.is_set():
            await asyncio.sleep(0.01)
            TURNS[0] += 1

    task = asyncio.create_task(ticker())
    try:
        return await coro
    finally:
        done.set()
        await task


async def test_argument_checks_and_the_offline_reply_leave_the_loop_free():
    agent = Agent(OfflineModel(), [SlowCheck()])
    TURNS_DURING.clear()
    events = await loop_turns(collect(agent, "slowcheck please"))
    assert events[-1].type == "answer" and "checked m" in events[-1].text
    # The checks and the extraction ran elsewhere: the loop went on turning meanwhile.
    assert len(TURNS_DURING) >= 2 and all(turns > 0 for turns in TURNS_DURING)


async def test_work_past_its_deadline_ends_the_turn_with_a_sentence(monkeypatch):
    monkeypatch.setattr(offload, "QUICK_DEADLINE", 0.1)
    agent = Agent(OfflineModel(), [SlowCheck()])
    events = await collect(agent, "slowcheck please")
    assert events[-1].type == "error"
    assert "in time" in events[-1].message
    assert "Traceback" not in events[-1].message


async def test_an_overdue_argument_check_goes_back_to_the_model(monkeypatch):
    monkeypatch.setattr(offload, "QUICK_DEADLINE", 0.1)
    model = ScriptedModel(['Action: slow_check\nAction Input: {"unit": "m"}', "Answer: gave up"])
    events = await collect(Agent(model, [SlowCheck()]), "check")
    assert events[-1].type == "answer"
    assert "took too long to check" in str(model.requests[1].messages[-1]["content"])


async def test_quick_work_does_not_wait_for_the_default_executor():
    # Tools that block hold the default executor's threads; quick work has its own pool.
    loop = asyncio.get_running_loop()
    release = threading.Event()
    blockers = [loop.run_in_executor(None, release.wait) for _ in range(40)]
    try:
        started = time.perf_counter()
        assert await offload.run_quick(lambda: 7) == 7
        assert time.perf_counter() - started < 0.5
    finally:
        release.set()
        await asyncio.gather(*blockers)


class EndlessModel:
    """Streams a Thought forever, slowly; records when its stream is closed."""

    offline = False
    name = "endless"

    def __init__(self) -> None:
        self.closed_at: float | None = None

    async def stream(self, request):
        try:
            yield "Thought: "
            while True:
                await asyncio.sleep(0.02)
                yield "more "
        finally:
            self.closed_at = time.monotonic()


async def test_a_turn_past_its_time_limit_ends_with_a_sentence():
    model = EndlessModel()
    agent = agent_with(model, [], AGENT_TURN_TIMEOUT=0.5)
    started = time.monotonic()
    events = await collect(agent, "think forever")
    assert time.monotonic() - started < 2.5
    assert events[-1].type == "error" and events[-1].kind == "deadline"
    assert "0.5 seconds" in events[-1].message
    assert model.closed_at is not None  # the model's stream was closed


async def test_a_turn_nobody_reads_any_more_is_cancelled(monkeypatch):
    from agent import runner

    monkeypatch.setattr(runner, "CONSUMER_GONE", 0.3)
    model = EndlessModel()
    events = Agent(model, []).run("think forever")
    await anext(events)  # the consumer takes one event, then walks away without closing
    left = time.monotonic()
    for _ in range(100):
        if model.closed_at is not None:
            break
        await asyncio.sleep(0.05)
    assert model.closed_at is not None and model.closed_at - left < 2.0


async def test_closing_the_iterator_closes_the_model_stream():
    model = EndlessModel()
    events = Agent(model, []).run("think forever")
    await anext(events)
    await anext(events)
    await events.aclose()
    assert model.closed_at is not None
