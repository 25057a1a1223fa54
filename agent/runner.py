"""The ReAct loop. `Agent.run(text, images, session)` yields events as they happen.

One turn:
1. Prepare the uploads (`images.py`); a refused upload becomes a notice, the rest go on.
2. Build the request (`messages.py`): header with the tools, history, this turn, its steps.
3. Stream the model; forward text after `Answer:` as answer deltas; stop at `Observation:`.
4. Read the step (`parser.py`). An unreadable reply is sent back with a hint (bounded).
5. An answer ends the turn. A control action asks, ends, or falls back (`dialogue.py`).
   A tool action is checked against the tool's arguments: missing ones are asked of the user,
   invalid ones go back to the model; valid ones run with a timeout and become an Observation.
6. Repeat from 2 until an answer, a question, an error, or the step limit.
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

from pydantic import ValidationError

from tools.base import Tool, ToolContext, ToolInputError, ToolResult

from . import dialogue, prompts
from .config import Settings
from .dialogue import PendingTask
from .events import (
    AnswerDeltaEvent,
    AnswerEvent,
    AskUserEvent,
    ErrorEvent,
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
    ToolResultEvent,
)
from .images import ImageRef
from .intake import message_problem, prepare_images
from .messages import StepRecord, action_text, prompt_messages, react_messages
from .models.base import ChatModel, ModelError, ModelRequest
from .offload import Overdue, run_quick
from .parser import AnswerStream, ParseError, Step, parse_step
from .reasoning import ReasoningFilter
from .session import Session, Turn

log = logging.getLogger(__name__)

MAX_PARSE_RETRIES = 2
MAX_REPEATS = 2
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{3,}")


def turn_language(text: str, default: str, previous: str | None = None) -> str:
    """The conversation's language: Chinese if the user writes Chinese, English if English.

    A short reply in Latin letters ("km", "Tokyo") answers in the language the conversation
    was already in, so a Chinese conversation stays Chinese.
    """
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
        if tools is None:
            from tools import default_tools

            tools = default_tools()
        settings = settings or Settings()
        self.model = model
        self.tools = list(tools)
        self.tool_by_name = {tool.name: tool for tool in self.tools}
        self.language = language or settings.language
        self.style = style or settings.prompt_style
        self.max_steps = max_steps or settings.max_steps
        self.temperature = settings.temperature if temperature is None else temperature
        self.image_detail = image_detail or settings.image_detail
        self.tool_timeout = tool_timeout or settings.tool_timeout
        self.max_image_side = settings.max_image_side
        self.max_message_chars = settings.max_message_chars
        self.max_images_per_message = settings.max_images_per_message
        self.max_history_turns = settings.max_history_turns
        self.max_parse_retries = max_parse_retries
        self._headers: dict[tuple[str, str], str] = {}

    def header(self, language: str, task_state: str = "") -> str:
        """The ReAct system header; the same tools, language and task give the same text."""
        key = (language, task_state)
        if key not in self._headers:
            if len(self._headers) > 32:
                self._headers.clear()
            self._headers[key] = prompts.react_header(self.tools, language, task_state)
        return self._headers[key]

    def run(
        self, text: str, images: Sequence[str | Path | bytes] = (), session: Session | None = None
    ) -> AsyncIterator[Any]:
        """Run one turn: an async iterator of events whose last is `answer`, `ask_user` or
        `error`. Closing it (or cancelling its consumer) stops the model stream and the tool."""
        # The turn's own generator is returned as it is: one layer less for every event.
        return _Turn(self, text or "", session if session is not None else Session()).run(images)


class _Turn:
    """The state of one turn; lives only while `Agent.run` iterates."""

    def __init__(self, agent: Agent, text: str, session: Session) -> None:
        self.agent = agent
        self.text = text.strip()
        self.session = session
        previous = session.history[-1].language if session.history else None
        self.language = turn_language(self.text, agent.language, previous)
        self.refs: list[ImageRef] = []
        self.steps: list[StepRecord] = []
        self.model_calls = 0
        self.parse_retries = 0
        self.repeats = 0
        self.seen_actions: dict[str, str] = {}
        self.started = time.monotonic()
        self.progress: asyncio.Queue[Any] = asyncio.Queue()
        self.final: Any = None

    # -- the loop -------------------------------------------------------------------------------

    async def run(self, images: Sequence[str | Path | bytes | ImageRef]) -> AsyncIterator[Any]:
        problem = message_problem(
            self.text,
            len(images),
            max_chars=self.agent.max_message_chars,
            max_images=self.agent.max_images_per_message,
            language=self.language,
        )
        if problem is None:
            self.refs, refused = await prepare_images(
                self.session.images, images, self.agent.max_image_side
            )
            for sentence in refused:
                yield NoticeEvent(message=sentence)
        yield RunStartedEvent(
            run_id=uuid.uuid4().hex[:12],
            model=self.agent.model.name,
            offline=getattr(self.agent.model, "offline", False),
            language=self.language,
            style=self.agent.style,
            images=[image_info(r) for r in self.refs],
        )
        if problem is not None or (not self.text and not self.refs):
            # Refused as a whole: the conversation and its task stay as they were.
            self.final = ErrorEvent(
                message=problem or "Type a question or attach an image first.", kind="input"
            )
            for event in self._finish():
                yield event
            return
        try:
            resumed = await self._resume_task()
            if resumed is not None:
                yield resumed
            while self.final is None:
                if self.model_calls >= self.agent.max_steps:
                    self.final = ErrorEvent(
                        kind="step_limit",
                        message=f"Stopped after {self.agent.max_steps} model calls without an "
                        "answer. Try a simpler question or raise the step limit in Settings.",
                    )
                    break
                async with contextlib.aclosing(self._step()) as items:
                    async for event in items:
                        yield event
        except ModelError as exc:
            self.final = ErrorEvent(message=str(exc), kind=exc.kind)
        except Exception:
            log.exception("agent turn failed")
            self.final = ErrorEvent(
                kind="internal",
                message="Something went wrong inside the agent; the details are in the server "
                "log. Please try again.",
            )
        self._remember()
        for event in self._finish():
            yield event

    async def _step(self) -> AsyncIterator[Any]:
        step_no = self.model_calls + 1
        request = self._request()
        raw = ""
        answer_stream = AnswerStream()
        reasoning = ReasoningFilter()
        thought_sent = False
        async with contextlib.aclosing(self._stream(request)) as items:
            async for chunk in items:
                if not chunk:
                    continue
                raw += chunk
                yield ModelDeltaEvent(step=step_no, text=chunk)
                forwarded = answer_stream.feed(reasoning.feed(chunk))
                if forwarded:
                    if not thought_sent:
                        # The Thought is complete once the answer starts: show it first.
                        thought_sent = True
                        early = _thought_of(raw)
                        if early:
                            yield ThoughtEvent(step=step_no, text=early)
                    yield AnswerDeltaEvent(text=forwarded)
        try:
            step = parse_step(raw, self.known_names())
        except ParseError as exc:
            async with contextlib.aclosing(self._retry(step_no, raw, str(exc))) as items:
                async for event in items:
                    yield event
            return
        if step.thought and not thought_sent:
            yield ThoughtEvent(step=step_no, text=step.thought)
        if step.kind == "answer":
            rest = answer_stream.finish()
            if rest:
                yield AnswerDeltaEvent(text=rest)
            self._clear_task()
            self.final = AnswerEvent(text=(step.answer or "").strip())
            return
        async with contextlib.aclosing(self._act(step, step_no)) as items:
            async for event in items:
                yield event

    def _stream(self, request: ModelRequest) -> AsyncIterator[str]:
        self.model_calls += 1
        return self.agent.model.stream(request)

    async def _retry(self, step_no: int, raw: str, reason: str) -> AsyncIterator[Any]:
        self.parse_retries += 1
        yield StepRetryEvent(step=step_no, reason=reason)
        if self.parse_retries > self.agent.max_parse_retries:
            self.final = ErrorEvent(
                kind="parse",
                message="The model's replies could not be understood, so the agent stopped. "
                "Try again, or choose a stronger model in Settings.",
            )
            return
        self._record(raw or "(empty reply)", reason)

    # -- actions ----------------------------------------------------------------------------------

    async def _act(self, step: Step, step_no: int) -> AsyncIterator[Any]:
        name = step.tool or ""
        data = step.thought_data or {}
        target = self.agent.tool_by_name.get(str(data.get("tool_to_use_for_user") or ""))
        if name == "end_conversation":
            phrase = _text_arg(step.tool_input, "end_phrase") or prompts.phrase(
                self.language, "end"
            )
            if self.session.task:
                yield TaskStateEvent(tool=self.session.task.tool, status="ended")
            self.session.task = None
            self.final = AnswerEvent(text=phrase, ended=True)
            return
        if name == "ASK_USER_FOR_INTENT":
            self._clear_task()
            question = _text_arg(step.tool_input, "question")
            self.final = AskUserEvent(
                question=question or prompts.phrase(self.language, "ask_intent")
            )
            return
        if name == "ASK_USER_FOR_REQUIRED_PARAMS":
            tool = target or self._task_tool()
            question = _text_arg(step.tool_input, "question")
            if tool is None:
                self.final = AskUserEvent(
                    question=question or prompts.phrase(self.language, "ask_intent")
                )
                return
            async with contextlib.aclosing(
                self._use_tool(tool, {}, step, step_no, question=question)
            ) as items:
                async for event in items:
                    yield event
            return
        if name == "TOOL_OTHER":
            self._clear_task()
            intent = _text_arg(step.tool_input, "intent")
            observation = (
                f"No tool fits this request (intent: {intent or 'unknown'}). Answer directly "
                "from your own knowledge and the images if you can; otherwise say plainly "
                "that you cannot answer."
            )
            self._record(self._replay(step), observation)
            if self.agent.style == "plugin-task":
                async with contextlib.aclosing(self._final_answer_events(self.text)) as items:
                    async for event in items:
                        yield event
            return
        tool = self.agent.tool_by_name.get(name)
        if tool is None:
            names = ", ".join(self.known_names())
            yield StepRetryEvent(step=step_no, reason=f"unknown tool {name!r}")
            self._record(
                self._replay(step), f"There is no tool named {name!r}. Use one of: {names}."
            )
            return
        async with contextlib.aclosing(
            self._use_tool(tool, step.tool_input, step, step_no)
        ) as items:
            async for event in items:
                yield event

    async def _use_tool(
        self,
        tool: Tool,
        given: dict[str, Any],
        step: Step,
        step_no: int,
        question: str | None = None,
    ) -> AsyncIterator[Any]:
        """Merge what is known, then ask the user, tell the model, or call the tool."""
        task = self._task_for(tool)
        thought_params = (step.thought_data or {}).get("known_params")
        fields = tool.Args.model_fields
        task.known = dialogue.merge(task.known, thought_params, given, fields=fields)
        checked = await _check(tool, task.known)
        if checked.invalid and task.invalid_retries < dialogue.MAX_INVALID_RETRIES:
            task.invalid_retries += 1
            task.missing = checked.missing
            self.session.task = task
            yield TaskStateEvent(tool=tool.name, known=task.known, missing=task.missing)
            self._record(self._replay(step), dialogue.invalid_feedback(tool.name, checked.invalid))
            return
        if not checked.ok:
            for field in checked.invalid:
                task.known.pop(field, None)
            missing = list(dict.fromkeys([*checked.missing, *checked.invalid]))
            async with contextlib.aclosing(self._ask(tool, task, missing, step, question)) as items:
                async for event in items:
                    yield event
            return
        arguments = checked.args.model_dump(mode="json", exclude_none=True)
        task.known, task.missing = arguments, []
        key = f"{tool.name}:{json.dumps(arguments, sort_keys=True, default=str)}"
        if key in self.seen_actions:
            self.repeats += 1
            if self.repeats > MAX_REPEATS:
                self.final = ErrorEvent(
                    kind="repeat",
                    message="The model kept repeating the same tool call, so the agent stopped. "
                    "Please rephrase.",
                )
                return
            self._record(
                self._replay(step, tool.name, arguments),
                f"You already called {tool.name} with these arguments; the result was: "
                f"{self.seen_actions[key]} Use it, or answer now.",
            )
            return
        yield TaskStateEvent(tool=tool.name, known=arguments, missing=[], status="calling")
        succeeded = False
        async with contextlib.aclosing(self._call(tool, checked.args, arguments, step_no)) as items:
            async for event in items:
                if isinstance(event, ToolResultEvent):
                    succeeded = event.ok
                    self.seen_actions[key] = event.text
                    self._record(
                        self._replay(step, tool.name, arguments),
                        event.text,
                        [i.id for i in event.images],
                    )
                yield event
        if not succeeded:
            return  # the failure is an Observation: the model may fix its call
        yield TaskStateEvent(tool=tool.name, known=arguments, status="done")
        self.session.task = None
        if self.agent.style == "plugin-task":
            async with contextlib.aclosing(self._final_answer_events(task.request)) as items:
                async for event in items:
                    yield event

    async def _ask(
        self, tool: Tool, task: PendingTask, missing: list[str], step: Step, question: str | None
    ) -> AsyncIterator[Any]:
        task.missing = missing
        task.questions += 1
        fields_text = dialogue.field_question(tool, missing, self.language)
        if task.questions > dialogue.MAX_QUESTIONS_PER_TASK:
            yield TaskStateEvent(
                tool=tool.name, known=task.known, missing=missing, status="cleared"
            )
            self.session.task = None
            names = prompts.PHRASES[prompts.language_key(self.language)]["and"].join(missing)
            self.final = AnswerEvent(
                text=prompts.phrase(self.language, "too_many_questions", fields=names)
            )
            return
        text = question or fields_text
        ask_step = action_text(
            step.thought, "ASK_USER_FOR_REQUIRED_PARAMS", {"question": text}, step.thought_data
        )
        task.transcript.extend(s.text + f"\nObservation: {s.observation}" for s in self.steps)
        task.transcript.append(ask_step)
        self.steps.clear()
        self.session.task = task
        yield TaskStateEvent(tool=tool.name, known=task.known, missing=missing)
        self.final = AskUserEvent(question=text, tool=tool.name, missing=missing)

    async def _call(
        self, tool: Tool, args: Any, arguments: dict[str, Any], step_no: int
    ) -> AsyncIterator[Any]:
        call_id = uuid.uuid4().hex[:10]
        yield ToolCallEvent(step=step_no, call_id=call_id, tool=tool.name, arguments=arguments)
        loop = asyncio.get_running_loop()
        ctx = ToolContext(
            self.session.images,
            progress=lambda m: loop.call_soon_threadsafe(
                self.progress.put_nowait, ToolProgressEvent(call_id=call_id, message=str(m))
            ),
            session_id=self.session.id,
        )
        timeout = self.agent.tool_timeout if type(tool).timeout == Tool.timeout else tool.timeout
        started = time.monotonic()
        task = asyncio.ensure_future(_invoke(tool, args, ctx, timeout))
        try:
            # One turn of the loop finishes a quick async tool; only slower ones need the
            # progress queue watched beside them.
            await asyncio.sleep(0)
            while not task.done():
                getter = asyncio.ensure_future(self.progress.get())
                done, _ = await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    yield getter.result()
                else:
                    getter.cancel()
            while not self.progress.empty():
                yield self.progress.get_nowait()
        finally:
            ctx.cancelled = True
            if not task.done():
                task.cancel()
        duration = time.monotonic() - started
        try:
            result = task.result()
        except TimeoutError:
            message = (
                f"{tool.name} did not finish within {timeout:g} seconds. Try a smaller "
                "request or another tool."
            )
            yield _failed(step_no, call_id, tool.name, duration, message)
            return
        except (ToolInputError, ValidationError, ValueError) as exc:
            yield _failed(step_no, call_id, tool.name, duration, f"Error: {_one_line(exc)}")
            return
        except Exception as exc:
            log.exception("tool %s failed", tool.name)
            message = f"{tool.name} failed ({type(exc).__name__}: {_one_line(exc)})."
            yield _failed(step_no, call_id, tool.name, duration, message)
            return
        refs = [self.session.images.get(i.id) for i in result.images]
        yield ToolResultEvent(
            step=step_no,
            call_id=call_id,
            tool=tool.name,
            ok=True,
            text=result.text,
            duration=duration,
            images=[image_info(r) for r in refs],
            data=result.data,
        )

    async def _final_answer_events(self, question: str) -> AsyncIterator[Any]:
        """The plugin-task style's last call: answer from the request and the task transcript.
        With the step budget spent, the last observation is the answer: no call past the limit."""
        if self.model_calls >= self.agent.max_steps:
            last = self.steps[-1].observation if self.steps else ""
            self.final = AnswerEvent(text=last or prompts.phrase(self.language, "no_tool"))
            return
        steps_text = self._transcript()
        request = self._base_request(
            [{"role": "user", "content": prompts.final_prompt(question, steps_text)}],
            purpose="final",
        )
        text = ""
        async with contextlib.aclosing(self._stream(request)) as items:
            async for chunk in items:
                if not chunk:
                    continue
                text += chunk
                yield ModelDeltaEvent(step=self.model_calls, text=chunk)
                yield AnswerDeltaEvent(text=chunk)
        self.final = AnswerEvent(text=_strip_final_label(text))

    # -- requests ---------------------------------------------------------------------------------

    def _request(self) -> ModelRequest:
        task = self.session.task
        detail = self.agent.image_detail
        if self.agent.style == "plugin-task":
            if task and task.tool in self.agent.tool_by_name:
                prompt = prompts.filling_slot_prompt(
                    self.agent.tool_by_name[task.tool],
                    task.request,
                    self._transcript(),
                    self.language,
                )
                messages = prompt_messages(prompt, self.session, self.refs, [], detail)
            else:
                prompt = prompts.intent_prompt(self.agent.tools, self.text, self.language)
                messages = prompt_messages(prompt, self.session, self.refs, self.steps, detail)
        else:
            state = ""
            if task:
                state = prompts.task_state_text(task.tool, task.known, task.missing, self.language)
            header = self.agent.header(self.language, state)
            messages = react_messages(
                header, self.session, self.text, self.refs, self.steps, detail
            )
        return self._base_request(messages)

    def _base_request(self, messages: list[dict[str, Any]], purpose: str = "step") -> ModelRequest:
        task = self.session.task
        return ModelRequest(
            messages=messages,
            temperature=self.agent.temperature,
            purpose=purpose,
            question=self.text,
            tools=self.agent.tools,
            image_ids=self.session.images.ids(),
            observations=[s.observation for s in self.steps],
            observation_images=[s.image_ids for s in self.steps],
            pending_tool=task.tool if task else None,
            known=dict(task.known) if task else {},
            language=self.language,
            style=self.agent.style,
        )

    def _transcript(self) -> str:
        task = self.session.task
        done = task.transcript if task else []
        current = [f"{s.text}\nObservation: {s.observation}" for s in self.steps]
        return "\n".join([*done, *current])

    # -- state ----------------------------------------------------------------------------------

    async def _resume_task(self) -> TaskStateEvent | None:
        """A reply to a question fills the pending task; the tool's extractor reads it in code.
        The task as it stands then is shown before the model is asked anything."""
        task = self.session.task
        if not task:
            return None
        task.transcript.append(f"Observation: {self.text}")
        tool = self.agent.tool_by_name.get(task.tool)
        if tool is None:
            self.session.task = None
            return None
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
        return TaskStateEvent(tool=tool.name, known=task.known, missing=task.missing)

    def _task_for(self, tool: Tool) -> PendingTask:
        task = self.session.task
        if task and task.tool == tool.name:
            return task
        request = self.text
        return PendingTask(tool=tool.name, request=request)

    def _task_tool(self) -> Tool | None:
        task = self.session.task
        return self.agent.tool_by_name.get(task.tool) if task else None

    def _clear_task(self) -> None:
        self.session.task = None

    def _record(self, text: str, observation: str, image_ids: Sequence[str] = ()) -> None:
        self.steps.append(StepRecord(text=text, observation=observation, image_ids=list(image_ids)))

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

    def _finish(self) -> list[Any]:
        """`run_finished` with the statistics, then the terminal event, always last."""
        final = self.final
        status = {
            "answer": "ended" if getattr(final, "ended", False) else "answered",
            "ask_user": "asked",
        }.get(final.type, "error")
        stats = RunFinishedEvent(
            status=status,
            model=self.agent.model.name,
            model_calls=self.model_calls,
            steps=sum(1 for s in self.steps) + len(self.seen_actions),
            duration=time.monotonic() - self.started,
        )
        return [stats, final]

    def _remember(self) -> None:
        final = self.final
        reply = getattr(final, "text", None) or getattr(final, "question", None) or ""
        outcome = {
            "answer": "ended" if getattr(final, "ended", False) else "answered",
            "ask_user": "asked",
        }.get(getattr(final, "type", ""), "error")
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
        del history[: -self.agent.max_history_turns]


def _text_arg(tool_input: dict[str, Any], key: str) -> str:
    value = tool_input.get(key)
    if value is None and len(tool_input) == 1:
        value = next(iter(tool_input.values()))
    return str(value).strip() if value not in (None, "") else ""


def _thought_of(text: str) -> str:
    try:
        return parse_step(text).thought
    except ParseError:
        return ""


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:500] or type(exc).__name__


def _failed(step_no: int, call_id: str, tool: str, duration: float, message: str) -> Any:
    return ToolResultEvent(
        step=step_no,
        call_id=call_id,
        tool=tool,
        ok=False,
        text=message,
        duration=duration,
        error=message,
    )


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


async def _invoke(tool: Tool, args: Any, ctx: ToolContext, timeout: float) -> ToolResult:
    if asyncio.iscoroutinefunction(tool.run):
        coro = tool.run(args, ctx)
    else:
        coro = asyncio.to_thread(tool.run, args, ctx)
    async with asyncio.timeout(timeout):
        result = await coro
    if isinstance(result, str):
        result = ToolResult(text=result)
    return result
