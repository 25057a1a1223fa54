"""Running scenarios through the agent's public API, one fresh session and model each.

Events are read by their `type` and fields only, never by class, so the runner keeps working
while the agent's internals change.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from agent import Agent
from agent.events import export_trace
from agent.session import Session
from agent.tokens import Tokens

from .expect import check_turn, expected_decision
from .format import Scenario, TurnSpec, image_paths
from .results import UNANSWERED, Call, Decision, RunResult, Seen, TurnResult

log = logging.getLogger(__name__)

ModelFactory = Callable[[], Any]


async def run_all(
    scenarios: Sequence[Scenario],
    make_model: ModelFactory,
    repeat: int = 1,
    workers: int = 1,
    tools: Callable[[], Sequence[Any]] | None = None,
) -> list[RunResult]:
    """Every scenario `repeat` times, at most `workers` at once; results in scenario order."""
    limit = asyncio.Semaphore(max(1, workers))

    async def one(scenario: Scenario, run: int) -> RunResult:
        async with limit:
            return await run_scenario(scenario, make_model(), run, tools() if tools else None)

    jobs = [one(s, run) for s in scenarios for run in range(1, max(1, repeat) + 1)]
    return list(await asyncio.gather(*jobs))


async def run_scenario(
    scenario: Scenario,
    model: Any,
    run: int = 1,
    tools: Sequence[Any] | None = None,
    make_agent: Callable[[Scenario, Any], Agent] | None = None,
) -> RunResult:
    """All turns of `scenario` in one session. Every turn runs even after one fails, so the
    scores see each turn's decision. `make_agent(scenario, model)` builds the agent when the
    caller has settings of its own (the page's); by default the scenario's language and style
    are all it takes."""
    if make_agent is not None:
        agent = make_agent(scenario, model)
    else:
        agent = Agent(
            model,
            tools,
            language=scenario.language,
            style=scenario.style,
            approval=scenario.approval,
        )
    session = Session()
    started = time.monotonic()
    turns = []
    for number, spec in enumerate(scenario.turns, 1):
        turn = await run_turn(agent, session, scenario, spec)
        turns.append(check_turn(number, spec.expect, turn))
    return RunResult(
        scenario=scenario.name,
        file=scenario.file,
        run=run,
        style=scenario.style,
        language=scenario.language,
        turns=turns,
        duration=time.monotonic() - started,
    )


def not_run(scenario: Scenario, reason: str, run: int = 1) -> RunResult:
    """`scenario` as it scores when it was not run (its model could not be reached): failed,
    each turn saying `reason`. Its turns count in no decision or accuracy, which measure
    what a model did; the pass rate counts the scenario as failed."""
    turns = [
        TurnResult(
            user=spec.user,
            images=spec.images,
            outcome="error",
            decision="error",
            text=reason,
            error_kind="not_run",
            failures=[f"turn {number}: not run: {reason}"],
        )
        for number, spec in enumerate(scenario.turns, 1)
    ]
    return RunResult(
        scenario=scenario.name,
        file=scenario.file,
        run=run,
        style=scenario.style,
        language=scenario.language,
        turns=turns,
    )


async def run_turn(
    agent: Agent, session: Session, scenario: Scenario, spec: TurnSpec
) -> TurnResult:
    images = [str(path) for path in image_paths(scenario, spec)]
    events: list[Any] = []
    started = time.monotonic()
    crash = None
    try:
        async for event in agent.run(spec.user, images, session):
            events.append(event)
    except Exception as exc:  # a bug in the agent fails this scenario, not the whole run
        log.exception("scenario %r crashed", scenario.name)
        crash = f"the agent raised {type(exc).__name__}: {exc}"
    turn = read_events(events, crash)
    return turn.model_copy(
        update={
            "user": spec.user,
            "images": spec.images,
            "duration": time.monotonic() - started,
            "expected_decision": expected_decision(spec.expect),
        }
    )


def read_events(events: list[Any], crash: str | None = None) -> TurnResult:
    """What a turn did, from its events: how it ended, the tools it called, its model calls."""
    calls: dict[str, Call] = {}
    final = None
    model_calls = 0
    for event in events:
        kind = getattr(event, "type", "")
        if kind == "tool_call":
            calls[event.call_id] = Call(tool=event.tool, arguments=dict(event.arguments))
        elif kind == "tool_result" and event.call_id in calls:
            calls[event.call_id].ok = event.ok
        elif kind == "run_finished":
            model_calls += event.model_calls
        elif kind in ("answer", "ask_user", "approval", "error"):
            final = event
    outcome, text, asked, error_kind = _ending(final, crash)
    used = any(call.ok for call in calls.values())
    return TurnResult(
        user="",
        outcome=outcome,
        decision=_decision(outcome, used),
        calls=list(calls.values()),
        text=text,
        asked_for=asked,
        error_kind=error_kind,
        model_calls=model_calls,
        tokens=Tokens.of(events),
        events=export_events(events),
    )


def _ending(final: Any, crash: str | None) -> tuple[Seen, str, list[str], str | None]:
    if crash is not None:
        return "error", crash, [], "crash"
    if final is None:
        return "error", "the turn ended without an answer, a question or an error", [], "none"
    if final.type == "ask_user":
        return "ask", final.question, list(final.missing), None
    if final.type == "approval":  # the person is asked to approve a call
        return "ask", final.question, [], None
    if final.type == "error":
        return "error", final.message, [], final.kind
    return ("end" if final.ended else "answer"), final.text, [], None


def _decision(outcome: Seen, used_a_tool: bool) -> Decision:
    if outcome != "answer":
        return UNANSWERED[outcome]
    return "tool" if used_a_tool else "no_tool"


def export_events(events: list[Any]) -> list[dict[str, Any]]:
    """The events as the page's trace export writes them."""
    try:
        return json.loads(export_trace(events))
    except Exception:  # an event the export does not know yet: keep what it says
        return [e.model_dump(mode="json") for e in events if hasattr(e, "model_dump")]
