"""What the loop does with an action: control actions, filling a task's arguments across
turns (asking the user for what is missing), calling the tool, and the plugin-task style's
final answer. Each returns the turn's terminal event, or None when the loop goes on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from typing import Any

from tools.base import Tool, ToolContext

from . import approval, dialogue, prompts, waiting
from .calls import Ready
from .dialogue import PendingTask
from .events import (
    AnswerDeltaEvent,
    AnswerEvent,
    AskUserEvent,
    ModelDeltaEvent,
    StepRetryEvent,
    TaskStateEvent,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
)
from .messages import NativeCall, action_text, prompt_messages
from .react.grammar import without_label
from .react.parser import Step
from .tool_run import ToolAsks, ToolCrashed, run_call, timeout_for
from .turn import Terminal, TurnState, image_info

log = logging.getLogger(__name__)

MAX_REPEATS = 2


def retry(turn: TurnState, step_no: int, raw: str, reason: str) -> Terminal | None:
    """An unusable reply goes back to the model with the reason, a bounded number of times."""
    turn.parse_retries += 1
    turn.emit(StepRetryEvent(step=step_no, reason=reason))
    if turn.parse_retries > turn.agent.max_parse_retries:
        return turn.failed("parse")
    turn.record(raw or "(empty reply)", reason, kind="feedback", ok=False)
    return None


async def act(
    turn: TurnState, step: Step, step_no: int, call: NativeCall | None = None
) -> Terminal | Ready | None:
    """What the action leads to: the turn's end, a call ready to run, or None to go on."""
    task = turn.draft.task
    decision = dialogue.decide_action(
        step.tool or "",
        step.tool_input,
        step.thought_data,
        tools=turn.agent.tool_by_name,
        pending=task.tool if task else None,
        language=turn.language,
    )
    match decision:
        case dialogue.End(phrase=phrase):
            turn.waiting = None
            if task:
                turn.emit(TaskStateEvent(tool=task.tool, status="ended"))
            turn.draft.task = None
            return AnswerEvent(text=phrase, ended=True)
        case dialogue.AskIntent(question=question):
            turn.waiting = turn.draft.task = None
            return AskUserEvent(question=question)
        case dialogue.NoTool(intent=intent):
            turn.draft.task = None
            observation = (
                f"No tool fits this request (intent: {intent or 'unknown'}). Answer "
                "directly from your own knowledge and the images if you can; otherwise say "
                "plainly that you cannot answer."
            )
            turn.record(turn.replay(step), observation, kind="no_tool", call=call)
            if turn.agent.style.final_answer_call and call is None:
                return await final_answer(turn, turn.text)
            return None
        case dialogue.UnknownTool(name=name):
            names = ", ".join(turn.known_names())
            turn.emit(StepRetryEvent(step=step_no, reason=f"unknown tool {name!r}"))
            observation = f"There is no tool named {name!r}. Use one of: {names}."
            turn.record(turn.replay(step), observation, kind="feedback", ok=False, call=call)
            return None
        case dialogue.UseTool(tool=name, given=given, question=question):
            tool = turn.agent.tool_by_name[name]
            return await use_tool(turn, tool, given, step, step_no, question, call)


async def use_tool(
    turn: TurnState,
    tool: Tool,
    given: dict[str, Any],
    step: Step,
    step_no: int,
    question: str,
    call: NativeCall | None = None,
) -> Terminal | Ready | None:
    """Merge what is known, then tell the model, ask the user, or call the tool."""
    aside = turn.waiting
    if aside and aside.tool == tool.name:
        if waiting.untouched(turn) and waiting.differences(aside.known, given):
            # Another request of the waiting task's tool ("convert 10 kg" while 5 miles wait
            # for a unit): a task of its own, and the one set aside stays as it was
            # (`agent.waiting.kept`), not overwritten with this one's values.
            turn.draft.task = None
        else:
            turn.waiting = None  # the task set aside is taken up after all
    task = task_for(turn, tool, given)
    thought_params = (step.thought_data or {}).get("known_params")
    fields = tool.Args.model_fields
    task.known = dialogue.merge(task.known, thought_params, given, fields=fields)
    checked = await turn.check(tool, task.known)
    match dialogue.decide_arguments(tool, task, checked):
        case dialogue.Retry(feedback=feedback):
            task.invalid_retries += 1
            task.missing = checked.missing
            turn.draft.task = task
            turn.emit(TaskStateEvent(tool=tool.name, known=task.known, missing=task.missing))
            turn.record(turn.replay(step), feedback, kind="feedback", ok=False, call=call)
            return None
        case dialogue.GiveUp(missing=missing):
            turn.emit(
                TaskStateEvent(tool=tool.name, known=task.known, missing=missing, status="cleared")
            )
            turn.draft.task = None
            # The question as the person read it, never the fields' names.
            question = dialogue.field_question(tool, missing, turn.language)
            text = prompts.phrase(turn.language, "too_many_questions", question=question)
            return AnswerEvent(text=text)
        case dialogue.Ask(missing=missing):
            for field in checked.invalid:
                task.known.pop(field, None)
            return ask(turn, tool, task, missing, step, question)
        case dialogue.Call(args=args, arguments=arguments):
            task.known, task.missing = arguments, []
            return prepare(turn, tool, task, args, arguments, step, step_no, call)


def ask(
    turn: TurnState, tool: Tool, task: PendingTask, missing: list[str], step: Step, question: str
) -> Terminal:
    task.missing, task.language, task.turns_aside = missing, turn.language, 0
    task.questions += 1
    text = question or dialogue.field_question(tool, missing, turn.language)
    problem = _reply_problem(turn, tool, task)
    if problem:
        # No space after a full-width stop: Chinese runs on.
        text = problem + ("" if problem.endswith(("。", "？", "！")) else " ") + text
    ask_step = action_text(
        step.thought, "ASK_USER_FOR_REQUIRED_PARAMS", {"question": text}, step.thought_data
    )
    task.transcript.extend(s.text + f"\nObservation: {s.observation}" for s in turn.steps)
    task.transcript.append(ask_step)
    turn.steps.clear()
    turn.draft.task = task
    turn.emit(TaskStateEvent(tool=tool.name, known=task.known, missing=missing))
    return AskUserEvent(question=text, tool=tool.name, missing=missing)


def _reply_problem(turn: TurnState, tool: Tool, task: PendingTask) -> str | None:
    """Why this message, the request or the reply to `tool`'s question, answered nothing."""
    asked = turn.waiting_from
    if asked is not None and asked.tool != tool.name:
        return None
    try:
        return tool.reply_problem(turn.text, dict(task.known), turn.language)
    except Exception:
        log.exception("reply_problem of %s failed", tool.name)
        return None


def prepare(
    turn: TurnState,
    tool: Tool,
    task: PendingTask,
    args: Any,
    arguments: dict[str, Any],
    step: Step,
    step_no: int,
    call: NativeCall | None = None,
) -> Terminal | Ready | None:
    """The call, ready to run, unless this exact call already ran this turn."""
    key = f"{tool.name}:{json.dumps(arguments, sort_keys=True, default=str)}"
    replay = turn.replay(step, tool.name, arguments)
    if key in turn.seen_actions:
        turn.repeats += 1
        if turn.repeats > MAX_REPEATS:
            return turn.failed("repeat")
        observation = (
            f"You already called {tool.name} with these arguments; the result was: "
            f"{turn.seen_actions[key]} Use it, or answer now."
        )
        turn.record(replay, observation, kind="feedback", tool=tool.name, call=call)
        return None
    ready = Ready(tool, task, args, arguments, replay, key, step_no, call, step=step)
    return approval.gate(turn, ready)  # a tool that acts on the world may need approval


async def execute(turn: TurnState, ready: Ready) -> ToolResultEvent:
    turn.emit(
        TaskStateEvent(tool=ready.tool.name, known=ready.arguments, missing=[], status="calling")
    )
    # A tool that asked the person mid-call (MCP elicitation) is called again with the same
    # arguments, and their replies so far answer its questions in order.
    task = ready.task
    ready.replies = [*task.tool_replies, turn.text] if task.tool_question else []
    try:
        return await call(
            turn,
            ready.tool,
            ready.args,
            ready.arguments,
            ready.step_no,
            ready.replies,
            ready.call_id,
        )
    except ToolAsks as exc:
        ready.asked = exc.question
        return exc.result


async def settle(turn: TurnState, ready: Ready, result: ToolResultEvent) -> Terminal | None:
    """Record the result; a success ends the task (and, in the plugin-task style, the turn)."""
    tool = ready.tool
    if ready.asked:  # the person's answer is needed: the same call is made next turn
        task = ready.task
        task.known, task.tool_question = ready.arguments, ready.asked
        task.language = turn.language
        task.tool_replies = ready.replies
        turn.draft.task = task
        return AskUserEvent(question=ready.asked, tool=tool.name)
    turn.seen_actions[ready.key] = result.text
    image_ids = [i.id for i in result.images]
    turn.record(ready.replay, result.text, image_ids, ok=result.ok, tool=tool.name, call=ready.call)
    if not result.ok:
        # The failure is the Observation: the model may fix its call (shown as calling again).
        turn.emit(TaskStateEvent(tool=tool.name, known=ready.arguments, status="failed"))
        return None
    turn.completed[tool.name] = ready.arguments
    turn.emit(TaskStateEvent(tool=tool.name, known=ready.arguments, status="done"))
    turn.draft.task = None
    if turn.agent.style.final_answer_call and ready.call is None:
        return await final_answer(turn, ready.task.request)
    return None


async def run_ready(turn: TurnState, ready: Ready) -> Terminal | None:
    return await settle(turn, ready, await execute(turn, ready))


async def final_answer(turn: TurnState, question: str) -> Terminal:
    """The plugin-task style's last call: answer from the request and the task transcript.
    With the step budget spent, the last observation is the answer: no call past the limit."""
    if turn.model_calls >= turn.agent.max_steps:
        last = turn.steps[-1].observation if turn.steps else ""
        return AnswerEvent(text=last or prompts.phrase(turn.language, "no_tool"))
    # The conversation and this turn's images go with it, as with every call: the answer may
    # come from them ("answer from the images if you can"), and a refused upload is named.
    prompt = prompts.final_prompt(question + turn.notes(), turn.transcript())
    detail = turn.agent.image_detail
    messages = prompt_messages(prompt, turn.draft, turn.refs, [], detail)
    request = turn.request(messages, purpose="final")
    turn.model_calls += 1
    text = ""
    async with turn.model_stream(request, turn.model_calls) as chunks:
        async for chunk in chunks:
            if chunk:
                text += chunk
                turn.emit(ModelDeltaEvent(step=turn.model_calls, text=chunk))
                turn.emit(AnswerDeltaEvent(text=chunk))
    return AnswerEvent(text=without_label(text, "answer"))


async def call(
    turn: TurnState,
    tool: Tool,
    args: Any,
    arguments: dict[str, Any],
    step_no: int,
    replies: list[str] | None = None,
    call_id: str = "",
) -> Any:
    call_id = call_id or secrets.token_hex(5)
    turn.tool_calls += 1
    turn.emit(ToolCallEvent(step=step_no, call_id=call_id, tool=tool.name, arguments=arguments))
    loop = asyncio.get_running_loop()

    def progress(message: str) -> None:
        event = ToolProgressEvent(call_id=call_id, message=str(message))
        if _on_loop(loop):
            turn.emit(event)
        else:
            loop.call_soon_threadsafe(turn.emit, event)

    session = turn.draft
    ctx = ToolContext(
        session.images,
        progress,
        session_id=session.id,
        language=turn.language,
        replies=replies or (),
    )
    try:
        result = await run_call(
            tool,
            args,
            ctx,
            timeout=timeout_for(tool, turn.agent.tool_timeout),
            step=step_no,
            call_id=call_id,
            image_info=lambda image_id: image_info(turn.draft.images.get(image_id)),
        )
    except (ToolCrashed, ToolAsks) as exc:
        turn.emit(exc.result)
        raise
    turn.emit(result)
    return result


def task_for(turn: TurnState, tool: Tool, given: dict[str, Any]) -> PendingTask:
    """The pending task of this tool, else a new one. A call that agrees with a task this turn
    already finished is that task again: a model repeating its call without a value the user
    gave gets the value back (and then the earlier result), not a question for it."""
    task = turn.draft.task
    if task and task.tool == tool.name:
        return task
    done = turn.completed.get(tool.name)
    fields = tool.Args.model_fields
    if done is not None and dialogue.agrees(dialogue.merge(given, fields=fields), done):
        return PendingTask(tool=tool.name, request=turn.text, known=dict(done))
    return PendingTask(tool=tool.name, request=turn.text)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
