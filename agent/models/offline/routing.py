"""What the offline model makes of the user's words: a reply that needs no plan (a goodbye, a
question back, a refusal, an image that is not there) or the plan that answers them, with the
tools their words ask for ranked (`rank_tools`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tools.image_refs import (
    ImageChoice,
    content_of,
    every_image,
    names_an_image,
    resolve_image,
    without_references,
)

from ...dialogue import CANCEL
from ...prompts import CONTROL_ACTIONS
from . import conversation, picking
from .plans import Job, Plan, each_plan, help_plan, tool_plan
from .reading import Reading
from .tool_hints import extract, hints_for, with_role
from .words import image_count, listing, position_words, words_for

_END = re.compile(
    r"^\W*(bye|goodbye|good bye|see you|that'?s all|quit|exit|end|"
    r"再见|拜拜|结束|没有了|不用了)\W*$",
    re.IGNORECASE,
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
# How far back a follow-up looks for the request it takes up.
MAX_FOLLOW_UPS = 3


def decide(request: Reading, seen: conversation.Seen, words: dict[str, str]) -> str | Plan:
    """The reply when it needs no plan (a question, a goodbye, a refusal), else the plan."""
    question = request.facts.question.strip()
    tools = {tool.name: tool for tool in request.tools}
    ids = seen.image_ids()
    pending = tools.get(request.facts.pending_tool or "")
    cancelled = CANCEL.search(question)
    if cancelled:
        # "Never mind, what time is it in London?": the open task goes, the new request runs.
        rest = CANCEL.sub(" ", question).strip(" \t,，.。!！;；:：")
        if request.facts.pending_tool:
            if not rest or not rank_tools(rest, request.tools, bool(ids)):
                return f"Thought: {words['cancel_thought']}\nAnswer: {words['cancel']}"
            question, pending = rest, None
        elif not rest and not _END.match(question):
            return f"Thought: {words['cancel_thought']}\nAnswer: {words['cancel_nothing']}"
    if _END.match(question):
        return action(
            request, words["end_thought"], "end_conversation", {"end_phrase": words["end"]}
        )
    ranked = _fillable_first(rank_tools(question, request.tools, bool(ids)), question, ids)
    if ids and ranked and picking.about_the_text(question):
        # "What time is boarding?", "几点登机？" with a boarding pass: what it shows, not a clock.
        ranked = [tool for tool in ranked if getattr(tool, "uses_images", False)]
    if pending is not None and (not ranked or ranked[0] is pending):
        found = extract(pending, question, ids, request.facts.known)
        # A question of its own that fills nothing is a new request, not a reply; so is a
        # request about images ("read all the images", new uploads) while the open task
        # takes none.
        about_images = not getattr(pending, "uses_images", False) and bool(
            seen.turn_uploads or every_image(question, ids) or _ABOUT_IMAGE.search(question)
        )
        if found or ranked or not (_NEW_QUESTION.search(question) or about_images):
            args = {**request.facts.known, **found}
            return action(request, words["pick"].format(tool=pending.name), pending.name, args)
    task = question
    if not ranked and _names_only_an_image(question):
        # "The second one", after "which image?": the earlier request, on the image named now;
        # after other follow-ups ("and this one?"), the last request that asked something.
        for earlier_question in reversed(seen.questions[-MAX_FOLLOW_UPS:]):
            earlier = rank_tools(earlier_question, request.tools, bool(ids))
            if earlier:
                if getattr(earlier[0], "uses_images", False):
                    ranked, task = earlier, earlier_question
                break
    gone = [i for i in seen.gone if i not in ids]
    named = [i for i in gone if re.search(rf"\b{i}\b", question)]
    about_gone = rank_tools(question, request.tools, True) or _about_image(question)
    if gone and (named or not ids) and about_gone:
        images = ", ".join(named or gone)
        return f"Thought: {words['gone_thought']}\nAnswer: {words['gone'].format(images=images)}"
    choice = resolve_image(question, ids)
    if (
        request.facts.refused_images
        and not seen.turn_uploads
        and choice.way not in ("id", "position")
    ):
        # What the person sent never arrived: say so, rather than answer about an older image
        # or ask them to attach what they just attached.
        wants_image = any(getattr(t, "uses_images", False) for t in ranked[:1]) or (
            not ranked
            and (_ABOUT_IMAGE.search(question) or content_of(question) or names_an_image(question))
        )
        if wants_image or (not ranked and rank_tools(question, request.tools, True)):
            reasons = request.facts.refused_images
            said = words["refused_many" if len(reasons) > 1 else "refused"]
            refused = said.format(reasons=" ".join(reasons))
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
        return action(request, words["vague"], "ASK_USER_FOR_INTENT", {"question": words["intent"]})
    return action(request, words["no_tool"], "TOOL_OTHER", {"intent": question})


def _about_image(question: str) -> bool:
    """Whether the words are about an image: they point at one, name what it shows, or ask
    for something written in one (a total, opening hours, a gate)."""
    return bool(
        _ABOUT_IMAGE.search(question)
        or content_of(question)
        or names_an_image(question)
        or picking.asks(question)
    )


def _fillable_first(ranked: list[Any], question: str, ids: Any) -> list[Any]:
    """Of two tools the words name equally, the one that finds its arguments in them: "算一下
    5英里" is a conversion with a unit to ask for, not a calculation of nothing."""
    if len(ranked) < 2 or getattr(ranked[0], "uses_images", False):
        return ranked
    first, second = ranked[0], ranked[1]
    if not extract(first, question, ids, {}) and extract(second, question, ids, {}):
        return [second, first, *ranked[2:]]
    return ranked


def _names_only_an_image(question: str) -> bool:
    """ "The second one", "img_2": an image and nothing asked of it ("the seat on img_1" asks)."""
    return (
        len(question) <= MAX_FOLLOW_UP_CHARS
        and names_an_image(question)
        # What is asked besides the image: "from before" names an image, not a date.
        and not picking.asks(without_references(question))
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


def action(request: Reading, thought: str, tool: str, args: dict[str, Any]) -> str:
    """A step that calls `tool`, as the ReAct text; in the plugin-task style the Thought is the
    JSON that style's prompt asks for."""
    if request.facts.style == "plugin-task":
        target = tool if tool not in CONTROL_ACTIONS else (request.facts.pending_tool or "")
        known = (
            {**request.facts.known, **args}
            if tool not in CONTROL_ACTIONS
            else dict(request.facts.known)
        )
        thought = json.dumps(
            {"content": thought, "tool_to_use_for_user": target, "known_params": known},
            ensure_ascii=False,
        )
    return (
        f"Thought: {thought}\nAction: {tool}\n"
        f"Action Input: {json.dumps(args, ensure_ascii=False, default=str)}"
    )
