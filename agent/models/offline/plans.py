"""What the offline model does for a request, as a plan replayed on every call.

The model keeps no state between calls. A plan is a generator: it yields the tool calls it
wants and receives what each one observed, and returns the answer. Every call rebuilds the plan
from the request and replays the actions already taken; the first step not yet taken is the
reply. A plan that would have done something else than what was done is dropped (`drive`
returns None), so a replay never acts on a history it did not write.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from tools.image_refs import ImageChoice, ImageIds
from tools.words import language_key

from . import answers
from .conversation import Done
from .tool_hints import extract, probe_for, with_role
from .words import CONTENT, listing, words_for

# Each look is one model call; with the answer and a chained tool this stays within the
# default budget of eight calls.
MAX_LOOKS = 4
MAX_CHAINED_TOOLS = 2
# "Read all the images": one call each, and the answer, within the default budget.
MAX_EACH = 6


@dataclass
class Call:
    tool: str
    args: dict[str, Any]
    thought: str


@dataclass
class Observed:
    text: str
    images: list[str] = field(default_factory=list)


Plan = Generator[Call, Observed, str]


@dataclass
class Job:
    """A request as a plan needs it: the words its arguments come from, the tools that fit it
    (best first), the images and the one it means."""

    question: str
    tools: dict[str, Any]
    ranked: list[Any]
    ids: ImageIds
    choice: ImageChoice
    language: str

    @property
    def words(self) -> dict[str, str]:
        return words_for(self.language)

    def args_for(self, tool: Any, image: str | None) -> dict[str, Any]:
        found = extract(tool, self.question, self.ids, {})
        if image:
            found["image_id"] = image
        return found


def drive(plan: Plan, done: list[Done]) -> Call | str | None:
    """The plan's next call, or its answer; None when the actions taken are not its own."""
    try:
        step = next(plan)
        for record in done:
            if record.tool != step.tool or record.args.get("image_id") != step.args.get("image_id"):
                return None
            step = plan.send(Observed(record.observation, record.images))
    except StopIteration as stop:
        return stop.value
    return step


@dataclass
class Found:
    """Where a search through the likely images ended."""

    image: str | None
    seen: Observed
    # Images that showed nothing at all, and ones that showed something, but not what was asked.
    empty: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    content_found: bool | None = None


def search(
    job: Job, tool: Any, tries: list[Any], must_show: str | None, first_thought: str
) -> Generator[Call, Observed, Found]:
    """Call `tool` on each image in turn until one shows something (or, with `must_show`, what
    the request said it shows); settle for the first that showed anything."""
    words, empty, others, fallback = job.words, [], [], None
    seen = Observed("")
    for candidate in tries:
        thought = (
            words["retry"].format(previous=listing(empty + others, job.language), image=candidate)
            if empty or others
            else first_thought
        )
        seen = yield Call(tool.name, job.args_for(tool, candidate), thought)
        if candidate is None:
            return Found(None, seen)
        if must_show and answers.shows(must_show, seen.text):
            return Found(candidate, seen, empty, others, content_found=True)
        if answers.found_nothing(seen.text):
            empty.append(candidate)
        elif not must_show:
            return Found(candidate, seen, empty)
        else:
            fallback = fallback or (candidate, seen)
            others.append(candidate)
    if fallback:
        rest = [i for i in others if i != fallback[0]]
        return Found(fallback[0], fallback[1], empty, rest, content_found=False)
    return Found(None, seen, empty)


def tool_plan(job: Job) -> Plan:
    """The tool the request names, on the image it means. When it asks for the image by what
    it shows, look at the likely images first; when the tool finds nothing, try the others the
    person could have meant; when the tool makes an image, hand it to the next tool that fits."""
    tool, choice, words = job.ranked[0], job.choice, job.words
    image = choice.image_id
    tries: list[Any] = list(choice.candidates[:MAX_LOOKS]) if tool.uses_images else [None]
    # The tool that tells whether an image shows what the request names.
    probe = probe_for(choice.content, job.tools) if choice.way == "content" else None
    looked = None
    if probe and probe != tool.name and probe in job.tools and len(tries) > 1:
        content = CONTENT[language_key(job.language)][choice.content or ""]
        thought = words["look"].format(content=content, image=tries[0])
        looked = yield from search(job, job.tools[probe], tries, choice.content, thought)
        image = looked.image if looked.content_found else image
        tries = [image]
    # "Read the receipt": the tool is its own probe, so it goes on until the text fits.
    must_show = choice.content if probe == tool.name and len(tries) > 1 else None
    found = yield from search(job, tool, tries, must_show, words["pick"].format(tool=tool.name))
    scanner = with_role(job.tools, "codes")
    scans = tool.name == with_role(job.tools, "text") and scanner is not None
    if scanner and scans and answers.only_marks(found.seen.text):
        # A code's squares are not text: what the code holds is what the image says.
        image = found.image or tries[0]
        thought = words["help_code_thought"].format(image=image)
        code = yield Call(scanner, {"image_id": image}, thought)
        if answers.codes(code.text):
            return answers.result(image, code.text, job.language)
    if tool.uses_images and found.image is None:
        return answers.nothing(found.seen.text, found.empty, job.language)
    # What the look before already showed needs no second look.
    follows = [f for f in job.ranked[1:MAX_CHAINED_TOOLS] if not (looked and f.name == probe)]
    seen, last_image, parts = yield from chain(job, follows, found.image, found.seen)
    said = None
    if seen is found.seen:
        said = answers.spoken(tool, seen.text, job.language, job.question)
    parts.append(said or answers.result(last_image, seen.text, job.language, job.question))
    parts.extend(_notes(job, found, looked, seen.text))
    return "\n\n".join(part for part in parts if part)


def chain(
    job: Job, follows: list[Any], image: str | None, seen: Observed
) -> Generator[Call, Observed, tuple[Observed, str | None, list[str]]]:
    """Each tool of `follows` on the image the one before made, while one makes an image:
    the last observation, the image it is about, and the texts of the steps before it."""
    texts: list[str] = []
    for follow in follows:
        if not seen.images:
            break
        texts.append(seen.text)
        image = seen.images[0]
        thought = job.words["next"].format(tool=follow.name)
        seen = yield Call(follow.name, job.args_for(follow, image), thought)
        if answers.found_nothing(seen.text):
            seen = Observed(answers.nothing(seen.text, [image], job.language))
    return seen, image, texts


def _notes(job: Job, found: Found, looked: Found | None, result: str) -> list[str]:
    """Which image was used and why, and which ones showed nothing before it."""
    if not found.image:
        return []
    decided = looked or found
    # After a look, not finding what was named is worth saying, whatever the tool then saw.
    content_found = bool(decided.content_found) if looked else found.content_found
    if content_found and answers.codes(result):
        content_found = None  # "The QR code in img_2 says…" already tells
    notes = [
        answers.which(
            job.choice,
            found.image,
            job.language,
            content_found=content_found,
            looked=[i for i in [*decided.empty, *decided.others] if i != found.image],
            several=len(job.ids) > 1,
            sent=found.image in job.ids.turn_uploads,
        )
    ]
    if found.empty:
        notes.append(job.words["none_before"].format(images=listing(found.empty, job.language)))
    return notes


def help_plan(job: Job) -> Plan:
    """No tool was asked for, but an image is in play: read what is written in it (trying the
    other images the person could have meant when there is no text, or none with the receipt,
    sign or label they named), look for a code too, and answer with that, saying plainly that
    this is all the offline model can see."""
    words, choice = job.words, job.choice
    tries = choice.candidates[:MAX_LOOKS]
    named = with_role(job.tools, "text") or ""
    must_show = choice.content if probe_for(choice.content, job.tools) == named else None
    reader = job.tools[named]
    found = yield from search(job, reader, tries, must_show, words["help_thought"])
    image = found.image or tries[0]
    code = None
    scanner = with_role(job.tools, "codes")
    if scanner:
        thought = words["help_code_thought"].format(image=image)
        code = (yield Call(scanner, {"image_id": image}, thought)).text
    text = found.seen.text if found.image else None
    parts = [answers.help_answer(job.question, image, text, code, found.empty, job.language)]
    if found.content_found is False:
        parts.append(
            answers.which(choice, image, job.language, content_found=False, looked=found.others)
        )
    return "\n\n".join(parts)


def each_plan(job: Job, tool: Any, images: list[str]) -> Plan:
    """The request is about every image ("read all three", "每张"): the tool once on each, in
    the order they were sent, and an answer that covers each by its id. A tool that makes an
    image (a zoom) hands it to the next tool that fits on each image too ("zoom in, then read
    them all"), for fewer images at once so that the turn stays within its budget."""
    words, parts = job.words, []
    follows = [f for f in job.ranked[1:MAX_CHAINED_TOOLS] if f.name != tool.name]
    most = MAX_EACH // (1 + len(follows))
    shown, rest = images[:most], images[most:]
    for n, image in enumerate(shown, 1):
        thought = words["each"].format(tool=tool.name, image=image, n=n, count=len(shown))
        seen = yield Call(tool.name, job.args_for(tool, image), thought)
        if answers.found_nothing(seen.text):
            parts.append(answers.nothing(seen.text, [image], job.language))
            continue
        seen, last, chained = yield from chain(job, follows, image, seen)
        said = "\n".join([*chained, answers.result(last, seen.text, job.language, job.question)])
        # A result that does not name its image yet is headed by it.
        parts.append(said if image in said else f"{image}:\n{said}")
    if rest:
        # The message that does the rest: the same request, with the rest named by id.
        again = job.question.strip().rstrip("?？.。!！")
        listed = (listing(shown, job.language), listing(rest, job.language))
        parts.append(words["each_more"].format(shown=listed[0], rest=listed[1], again=again))
    return "\n\n".join(parts)
