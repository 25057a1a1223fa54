"""The ReAct loop. `Agent.run(text, images, session)` yields events as they happen.

One turn:
1. Intake (`intake.py`): a message over its bounds is refused whole; uploads become images, a
   refused one a notice.
2. A reply to the agent's question fills the pending task first (`dialogue.py`).
3. Each step: build the request (the prompt style and `messages.py`), stream the model, forward
   text after `Answer:` as it arrives, and read the step (`parser.py`); an unreadable reply is
   sent back with a hint, a bounded number of times.
4. An answer ends the turn. An action is decided in code (`dialogue.decide_action`): a control
   action ends, asks or finds no tool; a tool's arguments are merged and checked
   (`dialogue.decide_arguments`): missing ones are asked of the user, invalid ones go back to
   the model, valid ones run (`tool_run.py`) and become the Observation.
5. Repeat from 3 until an answer, a question, an error or the step limit; then `run_finished`
   and the terminal event.

The turn runs as a task that emits events into a queue, and `run` yields them: every part of
the loop is a plain coroutine that returns the turn's terminal event, or None to go on.
Closing the iterator (or cancelling its consumer) cancels the task, which closes the model
stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolContext

from . import dialogue, prompts
from .config import Settings
from .dialogue import PendingTask
from .events import (
    AnswerDeltaEvent,
    AnswerEvent,
    AskUserEvent,
    ErrorEvent,
    Event,
    ImageInfo,
    ModelDeltaEvent,
    NoticeEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepRetryEvent,
    TaskStateEvent,
    ThoughtEvent,
    ToolCallEvent,
    ToolProgressEvent,
)
from .images import ImageRef
from .intake import message_problem, prepare_images
from .messages import StepRecord, action_text, model_request
from .models.base import ChatModel, ModelError
from .offload import Overdue, run_quick
from .parser import AnswerStream, ParseError, Step, parse_step
from .reasoning import ReasoningFilter
from .session import Session, Turn
from .style import TurnContext, make_style
from .tool_run import ToolCrashed, run_call, timeout_for

log = logging.getLogger(__name__)

MAX_PARSE_RETRIES = 2
MAX_REPEATS = 2
Terminal = AnswerEvent | AskUserEvent | ErrorEvent
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{3,}")
_DONE = object()


def turn_language(text: str, default: str, previous: str | None = None) -> str:
    """The conversation's language: Chinese if the user writes Chinese, English if English.
    A short reply in Latin letters ("km", "Tokyo") keeps the language the conversation had."""
    if _CJK.search(text):
        return "zh"
    if previous and len(text.split()) <= 2:
        return previous
    if _LATIN.search(text):
        return "en"
    return previous or default


def image_info(ref: ImageRef) -> ImageInfo:
    return ImageInfo(id=ref.id, width=ref.width, height=ref.height, path=ref.path, label=ref.label)


class Agent:
    """A multimodal ReAct agent over any `ChatModel` and a list of tools."""

    def __init__(
        self,
        model: ChatModel,
        tools: Sequence[Tool] | None = None,
        *,
        settings: Settings | None = None,
        language: str | None = None,
        style: str | None = None,
        max_steps: int | None = None,
        temperature: float | None = None,
        image_detail: str | None = None,
        tool_timeout: float | None = None,
        max_parse_retries: int = MAX_PARSE_RETRIES,
    ) -> None:
        self.settings = settings = settings or Settings()
        if tools is None:
            from tools import default_tools

            tools = default_tools(settings.tool_settings())
        self.model = model
        self.tools = list(tools)
        self.tool_by_name = {tool.name: tool for tool in self.tools}
        self.language = language or settings.language
        self.style = make_style(style or settings.prompt_style, self.tools)
        self.max_steps = max_steps or settings.max_steps
        self.temperature = settings.temperature if temperature is None else temperature
        self.image_detail = image_detail or settings.image_detail
        self.tool_timeout = tool_timeout or settings.tool_timeout
        self.max_parse_retries = max_parse_retries

    def header(self, language: str, task_state: str = "") -> str:
        """The ReAct system header for these tools."""
        return make_style("react", self.tools).header(language, task_state)

    def run(
        self,
        text: str,
        images: Sequence[str | Path | bytes | ImageRef] = (),
        session: Session | None = None,
    ) -> AsyncIterator[Event]:
        """Run one turn: an async iterator of events whose last is `answer`, `ask_user` or
        `error`. Closing it (or cancelling its consumer) stops the model stream and the tool."""
        return _Turn(self, text or "", session if session is not None else Session()).run(images)


class _Turn:
    """The state of one turn; lives only while `Agent.run` iterates."""

    def __init__(self, agent: Agent, text: str, session: Session) -> None:
        self.agent = agent
        self.text = text.strip()
        self.session = session
        previous = session.history[-1].language if session.history else None
        self.language = turn_language(self.text[:2000], agent.language, previous)
        self.refs: list[ImageRef] = []
        self.steps: list[StepRecord] = []
        self.model_calls = 0
        self.tool_calls = 0
        self.parse_retries = 0
        self.repeats = 0
        self.seen_actions: dict[str, str] = {}
        self.started = time.monotonic()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.emit = self.queue.put_nowait

    async def run(self, images: Sequence[str | Path | bytes | ImageRef]) -> AsyncIterator[Event]:
        body = asyncio.ensure_future(self._body(images))
        try:
            while (event := await self.queue.get()) is not _DONE:
                yield event
        finally:
            if not body.done():
                body.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await body

    async def _body(self, images: Sequence[str | Path | bytes | ImageRef]) -> None:
        try:
            final = await self._intake(images)
            if final is None:
                final = await self._loop()
                self._remember(final)
            self._finish(final)
        finally:
            self.emit(_DONE)

    async def _intake(self, images: Sequence[str | Path | bytes | ImageRef]) -> Terminal | None:
        agent = self.agent
        problem = message_problem(
            self.text,
            len(images),
            max_chars=agent.settings.max_message_chars,
            max_images=agent.settings.max_images_per_message,
            language=self.language,
        )
        if problem is None:
            self.refs, refused = await prepare_images(
                self.session.images, images, agent.settings.max_image_side
            )
            for sentence in refused:
                self.emit(NoticeEvent(message=sentence))
        self.emit(
            RunStartedEvent(
                run_id=uuid.uuid4().hex[:12],
                model=agent.model.name,
                offline=getattr(agent.model, "offline", False),
                language=self.language,
                style=agent.style.name,
                images=[image_info(r) for r in self.refs],
            )
        )
        if problem is None and (self.text or self.refs):
            return None
        # Refused as a whole: the conversation and its task stay as they were.
        return ErrorEvent(
            message=problem or "Type a question or attach an image first.", kind="input"
        )

    async def _loop(self) -> Terminal:
        try:
            await self._resume_task()
            while True:
                if self.model_calls >= self.agent.max_steps:
                    return ErrorEvent(
                        kind="step_limit",
                        message=f"Stopped after {self.agent.max_steps} model calls without an "
                        "answer. Try a simpler question or raise the step limit in Settings.",
                    )
                final = await self._step()
                if final is not None:
                    return final
        except ModelError as exc:
            return ErrorEvent(message=str(exc), kind=exc.kind)  # type: ignore[arg-type]
        except ToolCrashed as exc:
            return ErrorEvent(
                kind="internal",
                message=f"The {exc.tool_name} tool failed unexpectedly; the details are in the "
                "server log. Please try again, or ask in another way.",
            )
        except Exception:
            log.exception("agent turn failed")
            return ErrorEvent(
                kind="internal",
                message="Something went wrong inside the agent; the details are in the server "
                "log. Please try again.",
            )

    # -- one step ---------------------------------------------------------------------------

    async def _step(self) -> Terminal | None:
        step_no = self.model_calls + 1
        raw = await self._stream_step(step_no)
        try:
            step = parse_step(raw, self.known_names())
        except ParseError as exc:
            return self._retry(step_no, raw, str(exc))
        if step.thought and not self._thought_sent:
            self.emit(ThoughtEvent(step=step_no, text=step.thought))
        if step.kind == "answer":
            rest = self._answer_stream.finish()
            if rest:
                self.emit(AnswerDeltaEvent(text=rest))
            self.session.task = None
            return AnswerEvent(text=(step.answer or "").strip())
        return await self._act(step, step_no)

    async def _stream_step(self, step_no: int) -> str:
        """Stream one model call; the answer is forwarded as it arrives, after its Thought."""
        request = self._request()
        self._answer_stream = AnswerStream()
        self._thought_sent = False
        reasoning = ReasoningFilter()
        raw = ""
        self.model_calls += 1
        async with contextlib.aclosing(self.agent.model.stream(request)) as chunks:
            async for chunk in chunks:
                if not chunk:
                    continue
                raw += chunk
                self.emit(ModelDeltaEvent(step=step_no, text=chunk))
                forwarded = self._answer_stream.feed(reasoning.feed(chunk))
                if forwarded:
                    if not self._thought_sent:
                        self._thought_sent = True
                        early = _thought_of(raw)
                        if early:
                            self.emit(ThoughtEvent(step=step_no, text=early))
                    self.emit(AnswerDeltaEvent(text=forwarded))
        return raw

    def _retry(self, step_no: int, raw: str, reason: str) -> Terminal | None:
        self.parse_retries += 1
        self.emit(StepRetryEvent(step=step_no, reason=reason))
        if self.parse_retries > self.agent.max_parse_retries:
            return ErrorEvent(
                kind="parse",
                message="The model's replies could not be understood, so the agent stopped. "
                "Try again, or choose a stronger model in Settings.",
            )
        self._record(raw or "(empty reply)", reason, kind="feedback", ok=False)
        return None

    # -- actions ----------------------------------------------------------------------------

    async def _act(self, step: Step, step_no: int) -> Terminal | None:
        task = self.session.task
        decision = dialogue.decide_action(
            step.tool or "",
            step.tool_input,
            step.thought_data,
            tools=self.agent.tool_by_name,
            pending=task.tool if task else None,
            language=self.language,
        )
        match decision:
            case dialogue.End(phrase=phrase):
                if task:
                    self.emit(TaskStateEvent(tool=task.tool, status="ended"))
                self.session.task = None
                return AnswerEvent(text=phrase, ended=True)
            case dialogue.AskIntent(question=question):
                self.session.task = None
                return AskUserEvent(question=question)
            case dialogue.NoTool(intent=intent):
                self.session.task = None
                observation = (
                    f"No tool fits this request (intent: {intent or 'unknown'}). Answer "
                    "directly from your own knowledge and the images if you can; otherwise say "
                    "plainly that you cannot answer."
                )
                self._record(self._replay(step), observation, kind="no_tool")
                if self.agent.style.final_answer_call:
                    return await self._final_answer(self.text)
                return None
            case dialogue.UnknownTool(name=name):
                names = ", ".join(self.known_names())
                self.emit(StepRetryEvent(step=step_no, reason=f"unknown tool {name!r}"))
                observation = f"There is no tool named {name!r}. Use one of: {names}."
                self._record(self._replay(step), observation, kind="feedback", ok=False)
                return None
            case dialogue.UseTool(tool=name, given=given, question=question):
                tool = self.agent.tool_by_name[name]
                return await self._use_tool(tool, given, step, step_no, question)

    async def _use_tool(
        self, tool: Tool, given: dict[str, Any], step: Step, step_no: int, question: str
    ) -> Terminal | None:
        """Merge what is known, then tell the model, ask the user, or call the tool."""
        task = self._task_for(tool)
        thought_params = (step.thought_data or {}).get("known_params")
        fields = tool.Args.model_fields
        task.known = dialogue.merge(task.known, thought_params, given, fields=fields)
        checked = await _check(tool, task.known)
        match dialogue.decide_arguments(tool, task, checked):
            case dialogue.Retry(feedback=feedback):
                task.invalid_retries += 1
                task.missing = checked.missing
                self.session.task = task
                self.emit(TaskStateEvent(tool=tool.name, known=task.known, missing=task.missing))
                self._record(self._replay(step), feedback, kind="feedback", ok=False)
                return None
            case dialogue.GiveUp(missing=missing):
                self.emit(
                    TaskStateEvent(
                        tool=tool.name, known=task.known, missing=missing, status="cleared"
                    )
                )
                self.session.task = None
                names = prompts.PHRASES[prompts.language_key(self.language)]["and"].join(missing)
                text = prompts.phrase(self.language, "too_many_questions", fields=names)
                return AnswerEvent(text=text)
            case dialogue.Ask(missing=missing):
                for field in checked.invalid:
                    task.known.pop(field, None)
                return self._ask(tool, task, missing, step, question)
            case dialogue.Call(args=args, arguments=arguments):
                task.known, task.missing = arguments, []
                return await self._call_once(tool, task, args, arguments, step, step_no)

    def _ask(
        self, tool: Tool, task: PendingTask, missing: list[str], step: Step, question: str
    ) -> Terminal:
        task.missing = missing
        task.questions += 1
        text = question or dialogue.field_question(tool, missing, self.language)
        ask_step = action_text(
            step.thought, "ASK_USER_FOR_REQUIRED_PARAMS", {"question": text}, step.thought_data
        )
        task.transcript.extend(s.text + f"\nObservation: {s.observation}" for s in self.steps)
        task.transcript.append(ask_step)
        self.steps.clear()
        self.session.task = task
        self.emit(TaskStateEvent(tool=tool.name, known=task.known, missing=missing))
        return AskUserEvent(question=text, tool=tool.name, missing=missing)

    async def _call_once(
        self,
        tool: Tool,
        task: PendingTask,
        args: Any,
        arguments: dict[str, Any],
        step: Step,
        step_no: int,
    ) -> Terminal | None:
        """Call the tool, unless this exact call already ran this turn."""
        key = f"{tool.name}:{json.dumps(arguments, sort_keys=True, default=str)}"
        replay = self._replay(step, tool.name, arguments)
        if key in self.seen_actions:
            self.repeats += 1
            if self.repeats > MAX_REPEATS:
                return ErrorEvent(
                    kind="repeat",
                    message="The model kept repeating the same tool call, so the agent stopped. "
                    "Please rephrase.",
                )
            observation = (
                f"You already called {tool.name} with these arguments; the result was: "
                f"{self.seen_actions[key]} Use it, or answer now."
            )
            self._record(replay, observation, kind="feedback", tool=tool.name)
            return None
        self.emit(TaskStateEvent(tool=tool.name, known=arguments, missing=[], status="calling"))
        result = await self._call(tool, args, arguments, step_no)
        self.seen_actions[key] = result.text
        image_ids = [i.id for i in result.images]
        self._record(replay, result.text, image_ids, ok=result.ok, tool=tool.name)
        if not result.ok:
            return None  # the failure is the Observation: the model may fix its call
        self.emit(TaskStateEvent(tool=tool.name, known=arguments, status="done"))
        self.session.task = None
        if self.agent.style.final_answer_call:
            return await self._final_answer(task.request)
        return None

    async def _call(self, tool: Tool, args: Any, arguments: dict[str, Any], step_no: int) -> Any:
        call_id = uuid.uuid4().hex[:10]
        self.tool_calls += 1
        self.emit(ToolCallEvent(step=step_no, call_id=call_id, tool=tool.name, arguments=arguments))
        loop = asyncio.get_running_loop()

        def progress(message: str) -> None:
            event = ToolProgressEvent(call_id=call_id, message=str(message))
            if _on_loop(loop):
                self.emit(event)
            else:
                loop.call_soon_threadsafe(self.emit, event)

        ctx = ToolContext(self.session.images, progress=progress, session_id=self.session.id)
        try:
            result = await run_call(
                tool,
                args,
                ctx,
                timeout=timeout_for(tool, self.agent.tool_timeout),
                step=step_no,
                call_id=call_id,
                image_info=lambda image_id: image_info(self.session.images.get(image_id)),
            )
        except ToolCrashed as exc:
            self.emit(exc.result)
            raise
        self.emit(result)
        return result

    async def _final_answer(self, question: str) -> Terminal:
        """The plugin-task style's last call: answer from the request and the task transcript.
        With the step budget spent, the last observation is the answer: no call past the limit."""
        if self.model_calls >= self.agent.max_steps:
            last = self.steps[-1].observation if self.steps else ""
            return AnswerEvent(text=last or prompts.phrase(self.language, "no_tool"))
        messages = [{"role": "user", "content": prompts.final_prompt(question, self._transcript())}]
        request = self._request(messages, purpose="final")
        self.model_calls += 1
        text = ""
        async with contextlib.aclosing(self.agent.model.stream(request)) as chunks:
            async for chunk in chunks:
                if chunk:
                    text += chunk
                    self.emit(ModelDeltaEvent(step=self.model_calls, text=chunk))
                    self.emit(AnswerDeltaEvent(text=chunk))
        return AnswerEvent(text=_strip_final_label(text))

    # -- requests and state -----------------------------------------------------------------

    def _request(self, messages: list[dict[str, Any]] | None = None, purpose: str = "step") -> Any:
        agent = self.agent
        if messages is None:
            context = TurnContext(
                self.session,
                self.text,
                self.refs,
                self.steps,
                self._transcript(),
                self.language,
                agent.image_detail,  # type: ignore[arg-type]
            )
            messages = agent.style.messages(context)
        return model_request(
            messages,
            steps=self.steps,
            question=self.text,
            tools=agent.tools,
            image_ids=self.session.images.ids(),
            task=self.session.task,
            language=self.language,
            style=agent.style.name,
            temperature=agent.temperature,
            purpose=purpose,  # type: ignore[arg-type]
        )

    def _transcript(self) -> str:
        task = self.session.task
        done = task.transcript if task else []
        current = [f"{s.text}\nObservation: {s.observation}" for s in self.steps]
        return "\n".join([*done, *current])

    async def _resume_task(self) -> None:
        """A reply to a question fills the pending task; the tool's extractor reads it in code.
        The task as it stands then is shown before the model is asked anything."""
        task = self.session.task
        if not task:
            return
        task.transcript.append(f"Observation: {self.text}")
        tool = self.agent.tool_by_name.get(task.tool)
        if tool is None:
            self.session.task = None
            return
        image_ids = [r.id for r in self.refs] or self.session.images.ids()
        try:
            found = await run_quick(
                tool.extract, self.text, image_ids, dict(task.known), what=f"{tool.name} extract"
            )
        except Overdue:
            log.warning("extractor of %s ran past its deadline", tool.name)
            found = {}
        except Exception:
            log.exception("extractor of %s failed", tool.name)
            found = {}
        task.known = dialogue.merge(task.known, found, fields=tool.Args.model_fields)
        task.missing = (await _check(tool, task.known)).missing
        self.emit(TaskStateEvent(tool=tool.name, known=task.known, missing=task.missing))

    def _task_for(self, tool: Tool) -> PendingTask:
        task = self.session.task
        if task and task.tool == tool.name:
            return task
        return PendingTask(tool=tool.name, request=self.text)

    def _record(
        self,
        text: str,
        observation: str,
        image_ids: Sequence[str] = (),
        *,
        kind: str = "tool",
        ok: bool = True,
        tool: str = "",
    ) -> None:
        self.steps.append(
            StepRecord(
                text=text,
                observation=observation,
                image_ids=list(image_ids),
                kind=kind,  # type: ignore[arg-type]
                ok=ok,
                tool=tool,
            )
        )

    def _replay(
        self, step: Step, tool: str | None = None, arguments: dict[str, Any] | None = None
    ) -> str:
        return action_text(
            step.thought,
            tool or step.tool or "",
            step.tool_input if arguments is None else arguments,
            step.thought_data,
        )

    def known_names(self) -> list[str]:
        return [*self.agent.tool_by_name, *prompts.CONTROL_ACTIONS]

    def _finish(self, final: Terminal) -> None:
        """`run_finished` with the statistics, then the terminal event, always last."""
        self.emit(
            RunFinishedEvent(
                status=_outcome(final),
                model=self.agent.model.name,
                model_calls=self.model_calls,
                steps=self.tool_calls,
                duration=time.monotonic() - self.started,
            )
        )
        self.emit(final)

    def _remember(self, final: Terminal) -> None:
        outcome = _outcome(final)
        reply = getattr(final, "text", None) or getattr(final, "question", None) or ""
        history = self.session.history
        history.append(
            Turn(
                language=self.language,
                user_text=self.text,
                image_ids=[r.id for r in self.refs],
                reply=reply if outcome != "error" else "",
                outcome=outcome,
            )
        )
        del history[: -self.agent.settings.max_history_turns]


def _outcome(final: Terminal) -> Any:
    match final:
        case AnswerEvent(ended=True):
            return "ended"
        case AnswerEvent():
            return "answered"
        case AskUserEvent():
            return "asked"
        case _:
            return "error"


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _thought_of(text: str) -> str:
    try:
        return parse_step(text).thought
    except ParseError:
        return ""


def _strip_final_label(text: str) -> str:
    return re.sub(
        r"^\s*(?:\*\*)?\s*final answer\s*(?:\*\*)?\s*[:：]\s*", "", text, flags=re.IGNORECASE
    ).strip()


async def _check(tool: Tool, params: dict[str, Any]) -> dialogue.Check:
    """Validate off the event loop: a validator may parse (units through pint)."""
    try:
        return await run_quick(dialogue.check, tool, params, what=f"{tool.name} arguments")
    except Overdue as exc:
        log.warning("checking arguments of %s: %s", tool.name, exc)
        return dialogue.Check(
            invalid={"input": "these values took too long to check; use simpler ones"}
        )
