"""The built-in offline model: no key, no network, deterministic.

It does not understand language. It reads the request's hints (the user's words, the tools, the
pending task, this turn's observations, the image notes of the conversation) and writes the
same ReAct text a hosted model would, streamed, so every other part of the agent runs unchanged.
What it knows about each tool (the phrases that ask for it, how to read its arguments) is kept
here, keyed by the tool's name (`tool_hints`): a new tool works with it by one entry there.
Images are picked the way every extractor picks them (`tools.image_refs`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

from tools.image_refs import (
    ImageChoice,
    content_of,
    every_image,
    names_an_image,
    resolve_image,
)

from ...offload import Overdue, run_quick
from ...prompts import CONTROL_ACTIONS
from ...refusals import SENTENCES
from ..base import ModelError, ModelRequest
from . import answers, conversation, picking
from .plans import Call, Job, Plan, drive, each_plan, help_plan, tool_plan
from .tool_hints import extract, hints_for, with_role
from .words import image_count, listing, position_words, words_for

NAME = "offline demo model"

_END = re.compile(
    r"^\W*(bye|goodbye|good bye|see you|that'?s all|quit|exit|end|"
    r"再见|拜拜|结束|没有了|不用了)\W*$",
    re.IGNORECASE,
)
_CANCEL = re.compile(
    r"\b(never ?mind|forget it|cancel|stop that)\b|算了|取消|不要了", re.IGNORECASE
)
_VAGUE = re.compile(
    r"^\W*(hi|hello|hey|help|help me|can you help( me)?|i need (some )?help|do something|"
    r"something|i have a question|你好|您好|帮帮我|帮我|帮个忙|我有个问题|在吗)\W*$",
    re.IGNORECASE,
)
# Words that point at something in view: with an image in the conversation, the question is
# about it.
_ABOUT_IMAGE = re.compile(
    r"\b(?:it|its|this|that|these|those|they|here|above|images?|pictures?|pics?|photos?|screenshots?)\b"
    r"|这|那|它|上面|图|照片",
    re.IGNORECASE,
)
_NEW_QUESTION = re.compile(
    r"^\W*(?:who|what|when|where|why|how|which|is|are|can|could|do|does|did|will|would|should)"
    r"\b.{8,}|^(?=.{6,}).*(?:谁|什么|怎么|为什么|哪|吗)",
    re.IGNORECASE,
)
MAX_FOLLOW_UP_CHARS = 40
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
        words = words_for(request.language)
        if (question := conversation.plain(request.question)) != request.question:
            request = request.model_copy(update={"question": question})
        if request.purpose == "final":
            text = _final_text(request, words)
            if request.refused_images:
                text = f"{text}\n\n{_upload_note(request.refused_images, words)}"
            return text
        seen = conversation.read(request)
        decided = _decide(request, seen, words)
        if request.observations:
            last = request.observations[-1]
            if _no_tool(request):
                sorry = words["sorry_image"] if seen.turn_uploads else words["sorry"]
                return _with_refusals(request, f"Thought: {words['no_tool']}\nAnswer: {sorry}")
            if _failed(request):
                failed = words["answer_failed"].format(observation=last)
                return _with_refusals(request, f"Thought: {words['failed']}\nAnswer: {failed}")
            step = drive(decided, seen.done) if not isinstance(decided, str) else None
            if step is None:
                # Not this turn's plan: a call approved ("yes") or taken up from an earlier turn.
                said = _said(request, seen) or last
                return _with_refusals(request, f"Thought: {words['done']}\nAnswer: {said}")
        else:
            step = decided if isinstance(decided, str) else drive(decided, [])
        if isinstance(step, Call):
            return _action(request, step.thought, step.tool, step.args)
        if step is None or step.startswith("Thought:"):
            return _with_refusals(
                request, step or f"Thought: {words['done']}\nAnswer: {words['sorry']}"
            )
        return _with_refusals(request, f"Thought: {words['done']}\nAnswer: {step}")


def _decide(request: ModelRequest, seen: conversation.Seen, words: dict[str, str]) -> str | Plan:
    """The reply when it needs no plan (a question, a goodbye, a refusal), else the plan."""
    question = request.question.strip()
    if _END.match(question):
        return _action(
            request, words["end_thought"], "end_conversation", {"end_phrase": words["end"]}
        )
    tools = {tool.name: tool for tool in request.tools}
    ids = seen.image_ids()
    pending = tools.get(request.pending_tool or "")
    if request.pending_tool and _CANCEL.search(question):
        # "Never mind, what time is it in London?": the open task goes, the new request runs.
        rest = _CANCEL.sub(" ", question).strip(" \t,，.。!！;；:：")
        if not rest or not rank_tools(rest, request.tools, bool(ids)):
            return f"Thought: {words['cancel_thought']}\nAnswer: {words['cancel']}"
        question, pending = rest, None
    ranked = _fillable_first(rank_tools(question, request.tools, bool(ids)), question, ids)
    if ids and ranked and picking.about_the_text(question):
        # "What time is boarding?", "几点登机？" with a boarding pass: what it shows, not a clock.
        ranked = [tool for tool in ranked if getattr(tool, "uses_images", False)]
    if pending is not None and (not ranked or ranked[0] is pending):
        found = extract(pending, question, ids, request.known)
        # A question of its own that fills nothing is a new request, not a reply; so is a
        # request about images ("read all the images", new uploads) while the open task
        # takes none.
        about_images = not getattr(pending, "uses_images", False) and bool(
            seen.turn_uploads or every_image(question, ids) or _ABOUT_IMAGE.search(question)
        )
        if found or ranked or not (_NEW_QUESTION.search(question) or about_images):
            args = {**request.known, **found}
            return _action(request, words["pick"].format(tool=pending.name), pending.name, args)
    task = question
    if not ranked and _names_only_an_image(question) and seen.previous_question:
        # "The second one", after "which image?": the earlier request, on the image named now.
        earlier = rank_tools(seen.previous_question, request.tools, bool(ids))
        if earlier and getattr(earlier[0], "uses_images", False):
            ranked, task = earlier, seen.previous_question
    gone = [i for i in seen.gone if i not in ids]
    named = [i for i in gone if re.search(rf"\b{i}\b", question)]
    about_gone = rank_tools(question, request.tools, True) or _about_image(question)
    if gone and (named or not ids) and about_gone:
        images = ", ".join(named or gone)
        return f"Thought: {words['gone_thought']}\nAnswer: {words['gone'].format(images=images)}"
    choice = resolve_image(question, ids)
    if request.refused_images and not seen.turn_uploads and choice.way not in ("id", "position"):
        # What the person sent never arrived: say so, rather than answer about an older image
        # or ask them to attach what they just attached.
        wants_image = any(getattr(t, "uses_images", False) for t in ranked[:1]) or (
            not ranked
            and (_ABOUT_IMAGE.search(question) or content_of(question) or names_an_image(question))
        )
        if wants_image or (not ranked and rank_tools(question, request.tools, True)):
            refused = words["refused"].format(reasons=" ".join(request.refused_images))
            return f"Thought: {words['refused_thought']}\nAnswer: {refused}"
    job = Job(task, tools, ranked, ids, choice, request.language)
    # An earlier request taken up again is about the one image named now, not all of them.
    every = every_image(task, ids) if task is question else []
    if every and ranked and getattr(ranked[0], "uses_images", False):
        return each_plan(job, ranked[0], every)
    reader = with_role(tools, "text")
    if every and not ranked and reader:
        return each_plan(job, tools[reader], every)
    if ranked:
        if getattr(ranked[0], "uses_images", False) and choice.image_id is None:
            return _no_such_image(choice, ids, request.language)
        return tool_plan(job)
    if not ids and rank_tools(question, request.tools, True):
        return f"Thought: {words['attach_thought']}\nAnswer: {words['attach']}"
    about_image = (
        seen.turn_uploads
        or _ABOUT_IMAGE.search(question)
        or content_of(question)
        or names_an_image(question)
        or picking.about_the_text(question)
    )
    if ids and reader and about_image:
        if choice.image_id is None:
            return _no_such_image(choice, ids, request.language)
        return help_plan(job)
    if not question or _VAGUE.match(question):
        return _action(
            request, words["vague"], "ASK_USER_FOR_INTENT", {"question": words["intent"]}
        )
    return _action(request, words["no_tool"], "TOOL_OTHER", {"intent": question})


def _about_image(question: str) -> bool:
    """Whether the words are about an image: they point at one, name what it shows, or ask
    for something written in one (a total, opening hours, a gate)."""
    return bool(
        _ABOUT_IMAGE.search(question)
        or content_of(question)
        or names_an_image(question)
        or picking.asks(question)
    )


def _with_refusals(request: ModelRequest, reply: str) -> str:
    """An answer that also says which uploads of this turn were refused, unless it already
    is about them."""
    words = words_for(request.language)
    if not request.refused_images or "\nAnswer:" not in reply:
        return reply
    if reply.startswith(f"Thought: {words['refused_thought']}"):
        return reply
    for reason in request.refused_images:
        if _DUPLICATE.fullmatch(reason):
            # "b.png is the same picture as img_8…" already says which image was used.
            for image in re.findall(r"\bimg_\d+\b", reason):
                reply = reply.replace(f"\n\n{words['used_sent'].format(image=image)}", "")
    return f"{reply}\n\n{_upload_note(request.refused_images, words)}"


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


def _fillable_first(ranked: list[Any], question: str, ids: Any) -> list[Any]:
    """Of two tools the words name equally, the one that finds its arguments in them: "算一下
    5英里" is a conversion with a unit to ask for, not a calculation of nothing."""
    if len(ranked) < 2 or getattr(ranked[0], "uses_images", False):
        return ranked
    first, second = ranked[0], ranked[1]
    if not extract(first, question, ids, {}) and extract(second, question, ids, {}):
        return [second, first, *ranked[2:]]
    return ranked


def _no_tool(request: ModelRequest) -> bool:
    """The last step found no tool for the request (the runner says so in `results`)."""
    return bool(request.results) and request.results[-1].kind == "no_tool"


def _failed(request: ModelRequest) -> bool:
    """The last step failed: a tool's error, or the agent's feedback on an unusable step."""
    return bool(request.results) and not request.results[-1].ok


def _names_only_an_image(question: str) -> bool:
    """ "The second one", "img_2": an image and nothing asked of it ("the seat on img_1" asks)."""
    return (
        len(question) <= MAX_FOLLOW_UP_CHARS
        and names_an_image(question)
        and not picking.asks(question)
    )


def _no_such_image(choice: ImageChoice, ids: Sequence[str], language: str) -> str:
    """The answer to a reference to an image that is not there, naming what there is."""
    words = words_for(language)
    if choice.way == "id":
        text = words["no_such_id"].format(image=choice.unknown, images=listing(list(ids), language))
    elif not choice.uploads:
        text = words["no_uploads"]
    else:
        text = words["no_such_position"].format(
            count=image_count(choice.uploads, language),
            position=position_words(choice.position or 0, language),
        )
    return f"Thought: {words['which_thought']}\nAnswer: {text}"


def rank_tools(question: str, tools: Sequence[Any], has_images: bool) -> list[Any]:
    """Tools whose triggers match, image-producing ones first, then by how many matched."""
    scored = []
    for order, tool in enumerate(tools):
        if getattr(tool, "uses_images", False) and not has_images:
            continue
        hints = hints_for(tool)
        hits = sum(1 for pattern in hints.triggers if _search(pattern, question))
        if hits:
            scored.append((hints.stage, -hits, order, tool))
    return [tool for *_, tool in sorted(scored, key=lambda item: item[:3])]


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text, re.IGNORECASE) is not None
    except re.error:
        return pattern.lower() in text.lower()


def _action(request: ModelRequest, thought: str, tool: str, args: dict[str, Any]) -> str:
    if request.style == "plugin-task":
        target = tool if tool not in CONTROL_ACTIONS else (request.pending_tool or "")
        known = {**request.known, **args} if tool not in CONTROL_ACTIONS else dict(request.known)
        thought = json.dumps(
            {"content": thought, "tool_to_use_for_user": target, "known_params": known},
            ensure_ascii=False,
        )
    return (
        f"Thought: {thought}\nAction: {tool}\n"
        f"Action Input: {json.dumps(args, ensure_ascii=False, default=str)}"
    )


def _final_text(request: ModelRequest, words: dict[str, str]) -> str:
    """The plugin-task style's last word: the tool's result, said as the react style says it."""
    observations = request.observations
    if not observations:
        return words["sorry"]
    last = observations[-1]
    if _no_tool(request):
        return words["sorry_image"] if request.image_ids else words["sorry"]
    if _failed(request):
        return words["answer_failed"].format(observation=last)
    done = conversation.read(request).done
    image = str(done[-1].args.get("image_id") or "") if done else ""
    asked_for_a_tool = rank_tools(request.question, request.tools, True)
    reader = with_role({tool.name: tool for tool in request.tools}, "text")
    if done and done[-1].tool == reader and image and not asked_for_a_tool:
        text = None if answers.found_nothing(last) else last
        return answers.help_answer(request.question, image, text, None, [], request.language)
    if image and answers.found_nothing(last):
        return answers.nothing(last, [image], request.language)
    said = _said(request, conversation.read(request)) if not image else None
    return said or answers.result(image or None, last, request.language, request.question)


def _said(request: ModelRequest, seen: conversation.Seen) -> str | None:
    """The last result as the sentence its tool says it in, for the question that asked for
    the call: this turn's, or, when this turn only approved it ("yes", "好"), the one before."""
    done = seen.done
    tool = next((t for t in request.tools if done and t.name == done[-1].tool), None)
    if tool is None:
        return None
    # The final prompt of the plugin-task style quotes the question as "Question: …".
    quoted = [q for m in request.messages for q in _QUOTED.findall(conversation.text_of(m))]
    earlier = [request.question, *reversed(quoted), seen.previous_question]
    asked = next(
        (q for q in earlier if q and tool in rank_tools(q, request.tools, True)), request.question
    )
    return answers.spoken(tool, request.observations[-1], request.language, asked)
