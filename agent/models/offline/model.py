"""The offline model itself: it reads the request's messages (`reading`, `conversation`),
decides what the words ask for (`routing`), replays its plan (`plans`) and writes the ReAct
text a hosted model would, streamed; the plugin-task style's last word is the tool's result,
said as the react style says it."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

from ...offload import Overdue, run_quick
from ...refusals import SENTENCES
from ..base import ModelError, ModelRequest
from . import answers, conversation, reading
from .plans import Call, drive
from .reading import Reading
from .routing import action, decide, rank_tools
from .texts import text_of
from .tool_hints import with_role
from .words import words_for

NAME = "offline demo model"
# The final prompt of the plugin-task style quotes the question as "Question: …".
_QUOTED = re.compile(r"^Question: (.+)$", re.MULTILINE)


class OfflineModel:
    """Deterministic stand-in for a hosted model; labelled offline wherever it answers."""

    offline = True
    native_tools = False

    def __init__(self, chunk_size: int = 12, delay: float = 0.0) -> None:
        self.name = NAME
        self.chunk_size = chunk_size
        self.delay = delay

    async def stream(self, request: ModelRequest) -> AsyncIterator[str]:
        # Trigger patterns and extractors run over the user's words: off the event loop, so a
        # hostile message slows one turn, not the server.
        try:
            text = await run_quick(self.reply, request, what="the offline model's reply")
        except Overdue as exc:
            raise ModelError.said("offline_timeout", "timeout") from exc
        for start in range(0, len(text), self.chunk_size):
            # Yield to the event loop so a page sees the reply arrive in pieces.
            await asyncio.sleep(self.delay)
            yield text[start : start + self.chunk_size]

    def reply(self, request: ModelRequest) -> str:
        return _reply(reading.read(request))


def _reply(request: Reading) -> str:
    """The reply to the request as read: an answer, a question back, or the next action."""
    words = words_for(request.language)
    if request.purpose == "final":
        text = _final_text(request, words)
        if request.facts.refused_images:
            text = f"{text}\n\n{_upload_note(request.facts.refused_images, words)}"
        return text
    seen = conversation.read(request)
    decided = decide(request, seen, words)
    if request.facts.observations:
        last = request.facts.observations[-1]
        if _no_tool(request):
            sorry = words["sorry_image"] if seen.turn_uploads else words["sorry"]
            return _with_refusals(request, f"Thought: {words['no_tool']}\nAnswer: {sorry}")
        if _failed(request):
            failed = words["answer_failed"].format(observation=_without_label(last))
            return _with_refusals(request, f"Thought: {words['failed']}\nAnswer: {failed}")
        step = drive(decided, seen.done) if not isinstance(decided, str) else None
        if step is None:
            # Not this turn's plan: a call approved ("yes") or taken up from an earlier turn.
            said = _said(request, seen) or last
            return _with_refusals(request, f"Thought: {words['done']}\nAnswer: {said}")
    else:
        step = decided if isinstance(decided, str) else drive(decided, [])
    if isinstance(step, Call):
        return action(request, step.thought, step.tool, step.args)
    if step is None or step.startswith("Thought:"):
        return _with_refusals(
            request, step or f"Thought: {words['done']}\nAnswer: {words['sorry']}"
        )
    return _with_refusals(request, f"Thought: {words['done']}\nAnswer: {step}")


def _with_refusals(request: Reading, reply: str) -> str:
    """An answer that also says which uploads of this turn were refused, unless it already
    is about them."""
    words = words_for(request.language)
    if not request.facts.refused_images or "\nAnswer:" not in reply:
        return reply
    if reply.startswith(f"Thought: {words['refused_thought']}"):
        return reply
    for reason in request.facts.refused_images:
        if _DUPLICATE.fullmatch(reason):
            # "b.png is the same picture as img_8…" already says which image was used.
            for image in re.findall(r"\bimg_\d+\b", reason):
                reply = reply.replace(f"\n\n{words['used_sent'].format(image=image)}", "")
    return f"{reply}\n\n{_upload_note(request.facts.refused_images, words)}"


# "b.png is the same picture as img_1…": an upload used once, not refused.
_DUPLICATE = re.compile(
    "|".join(
        re.escape(sentences["duplicate"])
        .replace(r"\{label\}", ".*?")
        .replace(r"\{image\}", r"img_\d+")
        for sentences in SENTENCES.values()
    )
)


def _upload_note(reasons: list[str], words: dict[str, str]) -> str:
    """What became of this turn's uploads that are not in the request: refused, or the same
    picture sent twice and used once."""
    twice = [r for r in reasons if _DUPLICATE.fullmatch(r)]
    refused = [r for r in reasons if r not in twice]
    notes = [words["refused_note"].format(reasons=" ".join(refused))] if refused else []
    if twice:
        notes.append(words["twice_note"].format(reasons=" ".join(twice)))
    return "\n\n".join(notes)


def _without_label(observation: str) -> str:
    """A failed step's observation as the person reads it: "Error: " is for the model."""
    return observation.removeprefix("Error: ")


def _no_tool(request: Reading) -> bool:
    """The last step found no tool for the request (the runner says so in `results`)."""
    return bool(request.facts.steps) and request.facts.steps[-1].kind == "no_tool"


def _failed(request: Reading) -> bool:
    """The last step failed: a tool's error, or the agent's feedback on an unusable step."""
    return bool(request.facts.steps) and not request.facts.steps[-1].ok


def _final_text(request: Reading, words: dict[str, str]) -> str:
    """The plugin-task style's last word: the tool's result, said as the react style says it."""
    observations = request.facts.observations
    if not observations:
        return words["sorry"]
    last = observations[-1]
    if _no_tool(request):
        return words["sorry_image"] if request.facts.image_ids else words["sorry"]
    if _failed(request):
        return words["answer_failed"].format(observation=_without_label(last))
    done = conversation.read(request).done
    image = str(done[-1].args.get("image_id") or "") if done else ""
    asked_for_a_tool = rank_tools(request.facts.question, request.tools, True)
    reader = with_role({tool.name: tool for tool in request.tools}, "text")
    if done and done[-1].tool == reader and image and not asked_for_a_tool:
        text = None if answers.found_nothing(last) else last
        return answers.help_answer(request.facts.question, image, text, None, [], request.language)
    if image and answers.found_nothing(last):
        return answers.nothing(last, [image], request.language)
    said = _said(request, conversation.read(request)) if not image else None
    return said or answers.result(image or None, last, request.language, request.facts.question)


def _said(request: Reading, seen: conversation.Seen) -> str | None:
    """The last result as the sentence its tool says it in, for the question that asked for
    the call: this turn's, or, when this turn only approved it ("yes", "好"), the one before."""
    done = seen.done
    tool = next((t for t in request.tools if done and t.name == done[-1].tool), None)
    if tool is None:
        return None
    quoted = [q for m in request.messages for q in _QUOTED.findall(text_of(m))]
    earlier = [request.facts.question, *reversed(quoted), seen.previous_question]
    asked = next(
        (q for q in earlier if q and tool in rank_tools(q, request.tools, True)),
        request.facts.question,
    )
    return answers.spoken(tool, request.facts.observations[-1], request.language, asked)
