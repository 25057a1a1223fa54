"""Approval before a tool acts on the outside world (`Tool.acts_on_world`: HTTP plugins, MCP
tools). Read-only tools never ask.

With the `ask` policy, a call ready to run (`acting.prepare`) stops the turn with an `approval`
event that carries the call; the session keeps it (`Session.approval`) with the turn's steps.
The next turn resumes it with the person's decision, given as an `ApprovalDecision` (the page's
buttons) or typed as the message ("yes", "好", "no", "不"): approve runs the call as it was, edit
runs it with new arguments (checked as any arguments are; ones that do not fit leave the call
waiting, with one sentence saying why), deny becomes the Observation the model reads. Any
other message drops the call and is a new request. `always` lets the tool act without asking
for the rest of the conversation. The `always` policy runs every call; `never` refuses every
such call (one allowed earlier, or waiting for approval, too), and the model reads that it was
refused.

The operator's AGENT_APPROVAL is the ceiling for every caller (`effective_policy`): the page,
`/chat`, `/ask`, a scenario, MCP and the command line may ask for less, never more.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any, Literal

from pydantic import BaseModel

from tools import words

from .calls import Ready
from .config import ApprovalPolicy as Policy
from .events import ApprovalDecisionEvent, ApprovalEvent
from .messages import NativeCall, StepRecord, action_text
from .session import PendingApproval
from .turn import Terminal, TurnState

POLICIES: tuple[Policy, ...] = ("ask", "always", "never")
# Native calls of an earlier turn, brought back, are numbered apart from this turn's replies.
_REPLY_SHIFT = 100


# What the person decides on a call waiting for approval.
Action = Literal["approve", "edit", "deny"]


class ApprovalDecision(BaseModel):
    """The person's decision on the call waiting for approval. For `edit`, `arguments` is the
    new arguments, as a dict or as JSON text (read here, so a typo gets a sentence)."""

    action: Action
    arguments: dict[str, Any] | str | None = None
    always: bool = False


def _replies(kind: str) -> frozenset[str]:
    """The replies of one kind ("yes", "no", "always") typed in either language."""
    return frozenset(
        word for said in words.both(f"approval.replies.{kind}").values() for word in said
    )


# Replies typed instead of pressing a button, after trailing punctuation is dropped.
_YES, _NO, _ALWAYS = _replies("yes"), _replies("no"), _replies("always")
# Replies that decide nothing ("maybe"): the call keeps waiting, and the question is put again.
_UNSURE = _replies("unsure")
_TRAILING = re.compile(r"[\s.!。！,，~]+$")


def sentence(language: str, key: str, **values: Any) -> str:
    return words.say(language, f"approval.{key}", **values)


def decision_text(decision: ApprovalDecision, language: str) -> str:
    """The words a decision made with a button stands as, in the conversation."""
    return sentence(language, decision.action)


def _said(text: str) -> str:
    """A typed reply as the reply lists hold it: lower case, without trailing punctuation."""
    return _TRAILING.sub("", text.strip().lower())


def read_reply(text: str) -> ApprovalDecision | None:
    """A decision typed as the message, or None when the message is something else."""
    words = _said(text)
    if words in _YES:
        return ApprovalDecision(action="approve")
    if words in _NO:
        return ApprovalDecision(action="deny")
    if words in _ALWAYS:
        return ApprovalDecision(action="approve", always=True)
    return None


def _unsure(text: str) -> bool:
    said = _said(text)
    return said in _UNSURE or said.rstrip("?？") in _UNSURE


def check_policy(policy: str) -> Policy:
    if policy not in POLICIES:
        raise ValueError(f"unknown approval policy {policy!r}; use ask, always or never")
    return policy


# From the least to the most a caller may let tools do.
_PERMITS: dict[Policy, int] = {"never": 0, "ask": 1, "always": 2}


def effective_policy(operator: str, requested: str | None = None, attended: bool = True) -> Policy:
    """The policy a turn runs with: what the caller `requested` (a scenario, `/ask`'s second
    argument, an MCP client), never more than the `operator`'s AGENT_APPROVAL, which is also
    what a caller that asks for nothing gets. Where nobody is there to be asked (`attended`
    False: scenario runs from the page, MCP's one-turn `ask_agent`), `ask` means `never`,
    unless the operator lets such calls run anyway (`always`): a scenario's next turn, or the
    next call of a script, would otherwise approve a call the operator wanted a person for.
    Raises ValueError for a policy that is none of ask, always, never."""
    operator = check_policy(operator)
    policy = operator if requested is None else check_policy(requested)
    policy = min(policy, operator, key=_PERMITS.__getitem__)
    if policy == "ask" and not attended and operator != "always":
        return "never"
    return policy


def gate(turn: TurnState, ready: Ready) -> Terminal | Ready | None:
    """The call, when it may run now; else the turn's approval question, or None when the
    policy refused it (the model reads that as the call's Observation)."""
    tool, draft = ready.tool, turn.draft
    policy = turn.agent.approval
    # `never` holds even for a tool allowed earlier in the conversation (a saved session, a
    # policy lowered since): the turn's policy is the last word.
    allowed = policy != "never" and tool.name in draft.allowed_tools
    if not tool.acts_on_world or policy == "always" or allowed:
        return ready
    call_id = ready.call_id or secrets.token_hex(5)
    if policy == "never":
        turn.emit(
            ApprovalDecisionEvent(
                call_id=call_id,
                tool=tool.name,
                decision="deny",
                arguments=ready.arguments,
                by="policy",
            )
        )
        observation = sentence(turn.language, "refused", tool=tool.name)
        turn.record(ready.replay, observation, ok=False, tool=tool.name, call=ready.call)
        draft.task = None
        return None
    step = ready.step
    draft.approval = PendingApproval(
        call_id=call_id,
        tool=tool.name,
        arguments=ready.arguments,
        thought=step.thought if step else "",
        thought_data=step.thought_data if step else None,
        step=ready.step_no,
        task=ready.task,
        call=ready.call.model_dump() if ready.call else None,
    )
    draft.task = None
    return question(turn, draft.approval)


def question(turn: TurnState, pending: PendingApproval, problem: str | None = None) -> Terminal:
    shown = json.dumps(pending.arguments, ensure_ascii=False)
    return ApprovalEvent(
        call_id=pending.call_id,
        tool=pending.tool,
        arguments=pending.arguments,
        question=problem or sentence(turn.language, "question", tool=pending.tool, arguments=shown),
        problem=problem,
    )


def keep_steps(turn: TurnState, final: ApprovalEvent) -> None:
    """The turn stopped for a new approval: its steps wait with the call, for the turn that
    resumes it. (A call still waiting after a decision that did not fit keeps its steps.)"""
    if turn.draft.approval is not None and final.problem is None:
        turn.draft.approval.steps = [s.model_dump(mode="json") for s in turn.steps]


async def resume(turn: TurnState, decision: ApprovalDecision | None) -> Terminal | Ready | None:
    """The call waiting for approval, decided: run, edited and run, denied, or dropped for a new
    message. Returns the turn's end (the call still waits), the call to run now, or None to go
    on with the model."""
    draft = turn.draft
    pending = draft.approval
    if pending is None:
        return None
    decision = decision or read_reply(turn.text)
    if decision is None and _unsure(turn.text):
        return question(turn, pending, sentence(turn.language, "unsure", tool=pending.tool))
    tool = turn.agent.tool_by_name.get(pending.tool)
    if decision is None or tool is None:
        draft.approval = None
        turn.emit(_decided(pending, "cancel", pending.arguments))
        return None
    if turn.agent.approval == "never" and decision.action != "deny":
        # The call waited under a policy that asked; this turn's refuses it, approval or not.
        draft.approval = None
        turn.emit(_decided(pending, "deny", pending.arguments, by="policy"))
        _restore(turn, pending)
        replay = action_text(pending.thought, tool.name, pending.arguments, pending.thought_data)
        observation = sentence(turn.language, "refused", tool=tool.name)
        turn.record(replay, observation, ok=False, tool=tool.name, call=_call(pending))
        return None
    if decision.action == "deny":
        draft.approval = None
        turn.emit(_decided(pending, "deny", pending.arguments))
        _restore(turn, pending)
        replay = action_text(pending.thought, tool.name, pending.arguments, pending.thought_data)
        observation = sentence(turn.language, "denied")
        turn.record(replay, observation, ok=False, tool=tool.name, call=_call(pending))
        return None
    arguments = pending.arguments
    if decision.action == "edit":
        edited = _edited(decision.arguments, turn.language)
        if isinstance(edited, str):
            return question(turn, pending, edited)
        arguments = edited
    checked = await turn.check(tool, arguments)
    if checked.missing or checked.invalid:
        problems = [f"{name}: missing" for name in checked.missing]
        problems += [f"{name}: {why}" for name, why in checked.invalid.items()]
        detail = "; ".join(problems)
        return question(
            turn, pending, sentence(turn.language, "invalid", tool=tool.name, detail=detail)
        )
    draft.approval = None
    if decision.always and tool.name not in draft.allowed_tools:
        draft.allowed_tools.append(tool.name)
    turn.emit(_decided(pending, decision.action, arguments, decision.always))
    _restore(turn, pending)
    call = _call(pending)
    if call is not None and arguments != pending.arguments:
        call.arguments = json.dumps(arguments, ensure_ascii=False)
    replay = action_text(pending.thought, tool.name, arguments, pending.thought_data)
    key = f"{tool.name}:{json.dumps(arguments, sort_keys=True, default=str)}"
    return Ready(
        tool, pending.task, checked.args, arguments, replay, key, pending.step, call,
        call_id=pending.call_id,
    )  # fmt: skip


def _edited(value: dict[str, Any] | str | None, language: str) -> dict[str, Any] | str:
    """Edited arguments as a dict, or the sentence saying why they are not one."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            return sentence(language, "bad_json", detail=f"line {exc.lineno}, column {exc.colno}")
        except ValueError as exc:
            return sentence(language, "bad_json", detail=exc)
    if not isinstance(value, dict):
        return sentence(language, "not_object")
    return value


def _decided(
    pending: PendingApproval,
    decision: Any,
    arguments: dict[str, Any],
    always: bool = False,
    by: Literal["user", "policy"] = "user",
) -> ApprovalDecisionEvent:
    return ApprovalDecisionEvent(
        call_id=pending.call_id,
        tool=pending.tool,
        decision=decision,
        arguments=arguments,
        always=always,
        by=by,
    )


def _restore(turn: TurnState, pending: PendingApproval) -> None:
    """The stopped turn's steps come back ahead of this turn's, its native replies renumbered
    so they never group with this turn's."""
    steps = [StepRecord.model_validate(s) for s in pending.steps]
    for record in steps:
        if record.call is not None:
            record.call.reply -= _REPLY_SHIFT
    turn.steps[:0] = steps


def _call(pending: PendingApproval) -> NativeCall | None:
    if pending.call is None:
        return None
    call = NativeCall.model_validate(pending.call)
    call.reply -= _REPLY_SHIFT
    return call
