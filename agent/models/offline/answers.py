"""Tool results as answers a person reads: what was found, in which image, and why that one."""

from __future__ import annotations

import json
import re
from typing import Any

from tools.image_refs import ImageChoice
from tools.words import language_key

from . import picking
from .values import Pick, mend
from .words import CONTENT, listing, position_words, words_for

# The tools write their results in the conversation's language: each form is read in both.
_FOUND_NOTHING = re.compile(r"^(?:No\b[^.\n]*\bfound\b|图片中没有找到)", re.IGNORECASE)
_CODE_LINE = re.compile(
    r"^\d+\. (.+?)(?: at |，位置 )\(\d+,\d+\)-\(\d+,\d+\)(?:: |：)", re.MULTILINE
)
_PRICE = re.compile(r"\d+[.,]\d{2}\b")
_TEXT_HEAD = re.compile(r"^(?:Text found \([^\n]*\):|识别到的文字（[^\n]*）：)\n")
_PHOTO_FACTS = ("Camera:", "taken:", "JPEG", "相机：", "拍摄时间：")
# Words on a receipt, a sign or a label; an image shows the one whose words it has most.
_TEXT_CUES = {
    "receipt": (
        r"\btotal\b|\bsubtotal\b|\btax\b|\bvat\b|\bcash\b|\bchange\b|\breceipt\b|\binvoice\b|"
        r"\bamount\b|\bbalance\b|合计|总计|小计|金额|实收|找零|收据|发票|付款",
    ),
    "sign": (
        r"\bopen|\bclosed?\b|\bhours\b|\bexit\b|\bentrance\b|\bgate\b|\bplatform\b|\btoilets?\b|"
        r"\bparking\b|\bno \w+ing\b|\bwelcome\b|\blibrary\b|\bstation\b|\bdanger\b|\bcaution\b|"
        r"出口|入口|营业|开放|关门|闭馆|禁止|请勿|欢迎|停车|注意",
    ),
    "label": (
        r"\bingredients\b|\bnet\s*(?:wt|weight)\b|\bbest before\b|\buse by\b|\bexp(?:iry)?\b|"
        r"\blot\b|\bbatch\b|\bstore (?:in|at)\b|\bnutrition\b|\b\d+\s?(?:g|kg|ml|l)\b|"
        r"配料|净含量|保质期|生产日期|批号|贮存|储存|营养",
    ),
}
# A question's kind of answer, and what a line that gives it looks like.
_QUESTION_CUES = (
    (
        r"\bwhen\b|\bwhat time\b|\bhours?\b|\bopen|\bclos|几点|什么时候|时间|开门|关门|营业|开放",
        r"\d{1,2}\s*[:.：]\s*\d{2}|\b\d{1,2}\s*(?:am|pm)\b|\bopen|\bclos|\bhours\b|"
        r"\b(?:mon|tue|wed|thu|fri|sat|sun)(?:day|s)?\b|\d+\s*点|营业|开放|关门|闭馆|周[一二三四五六日天]|星期",
    ),
    (
        r"\bwhich (?:gate|platform|door|room|floor|terminal|exit)|\bwhere\b|\bgate\b|\bplatform\b|"
        r"哪个?(?:门|口|站台|楼|层|号)|哪里|在哪|登机口|站台",
        r"\bgate\b|\bplatform\b|\bterminal\b|\bexit\b|\bentrance\b|\broom\b|\bfloor\b|\blevel\b|"
        r"登机口|门|站台|出口|入口|楼|层",
    ),
    (
        r"how much|\bprice\b|\bcost\b|\btotal\b|\bpay\b|多少钱|价格|价钱|总共|合计|一共",
        r"\d+[.,]\d{2}\b|[$€£¥￥]|\btotal\b|合计|总计|金额",
    ),
    (
        r"\bexpir|best before|use by|\bdate\b|保质期|过期|日期|生产",
        r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|best before|use by|\bexp|"
        r"保质期|日期",
    ),
)
_PLAIN_WORDS = frozenset({
    "what", "does", "this", "that", "which", "where", "when", "there", "have", "with", "they",
    "about", "from", "your", "says", "tell", "read", "mean", "sign", "image", "picture", "photo",
    "text", "written", "write", "show", "please", "could", "would", "should",
})  # fmt: skip


def found_nothing(observation: str) -> bool:
    return bool(_FOUND_NOTHING.match(observation))


def codes(observation: str) -> list[tuple[str, str]]:
    """(type, content) of each code in a scan_code result."""
    heads = list(_CODE_LINE.finditer(observation))
    if not heads:
        return []
    return [
        (head.group(1), observation[head.end() : nxt.start() if nxt else None].strip())
        for head, nxt in zip(heads, [*heads[1:], None], strict=True)
    ]


def text_lines(observation: str) -> tuple[list[str], bool] | None:
    """The lines of a read_text result and whether any is doubtful; None for other results."""
    head = _TEXT_HEAD.match(observation)
    if not head:
        return None
    return observation[head.end() :].split("\n"), "(?)" in head.group(0)


def shows(content: str | None, observation: str) -> bool:
    """Whether a look at an image found what the request said it shows."""
    if content == "code":
        return bool(codes(observation))
    if content == "photo":
        return any(fact in observation for fact in _PHOTO_FACTS)
    read = text_lines(observation)
    if content not in _TEXT_CUES or read is None:
        return False
    text = "\n".join(read[0])
    scores = {kind: _score(cues, text) for kind, cues in _TEXT_CUES.items()}
    # Prices, one after another, are what a receipt is made of.
    scores["receipt"] += len(_PRICE.findall(text)) >= 2
    return scores[content] > 0 and scores[content] == max(scores.values())


def _score(cues: tuple[str, ...], text: str) -> int:
    return sum(len(set(re.findall(cue, text, re.IGNORECASE))) for cue in cues)


def code_kind(kind: str, language: str) -> str:
    words = words_for(language)
    return words["qr"] if "qr" in kind.lower() else words["barcode"].format(type=kind)


def result(image: str | None, observation: str, language: str, question: str = "") -> str:
    """A tool's result as a sentence naming the image it came from; of a text, the line that
    answers `question` when it asks for one."""
    words = words_for(language)
    found = codes(observation)
    if image and len(found) == 1:
        kind, content = found[0]
        return words["code_one"].format(kind=code_kind(kind, language), image=image, text=content)
    if image and found:
        # Several codes are listed by the decoder's own names: QR Code, EAN-13, ...
        lines = "\n".join(f"{n}. {kind}: {content}" for n, (kind, content) in enumerate(found, 1))
        return words["code_many"].format(n=len(found), image=image, lines=lines)
    read = text_lines(observation)
    if image and read and picking.asks(question):
        # "Read me the total": the line with it; the whole text when it is all that was asked.
        return picked(question, image, read[0], language) or ""
    if image and read:
        text = words["text_in"].format(image=image, lines="\n".join(read[0]))
        return text + (f"\n{words['doubtful']}" if read[1] else "")
    return observation


def spoken(tool: Any, observation: str, language: str, question: str = "") -> str | None:
    """A result in JSON as the sentence its tool says it in (a plugin's manifest gives one),
    with what `question` asks beyond it; None when the tool has none or the result is not
    whole JSON."""
    say = getattr(tool, "say", None)
    if not callable(say):
        return None
    try:
        said = say(json.loads(observation), language, question)
    except Exception:  # the tool's sentence is a nicety; its mistakes cost it, not the reply
        return None
    return said if isinstance(said, str) and said else None


def nothing(observation: str, images: list[str], language: str) -> str:
    words = words_for(language)
    tried = listing(images, language, "or")
    if observation.startswith(("No QR code", "图片中没有找到二维码")):
        return words["no_code"].format(images=tried)
    if observation.startswith(("No text", "图片中没有找到文字")):
        return words["no_text"].format(images=tried)
    return words["nothing_in"].format(observation=observation, images=tried)


def which(
    choice: ImageChoice,
    image: str,
    language: str,
    *,
    content_found: bool | None = None,
    looked: list[str] | None = None,
    several: bool = False,
    sent: bool = False,
) -> str:
    """A note saying which image was used and why, or "" when there was nothing to choose."""
    words = words_for(language)
    if choice.way == "position" and choice.position:
        return words["used_position"].format(
            image=image, position=position_words(choice.position, language)
        )
    if choice.way == "pointer" and several:
        return words["used_pointer"].format(image=image)
    if choice.way == "content" and content_found is not None and choice.content:
        content = CONTENT[language_key(language)][choice.content]
        if content_found:
            return words["used_content"].format(image=image, content=content)
        others = listing(looked or [], language, "or")
        return words["used_guess"].format(images=others, content=content, image=image)
    if choice.way == "newest" and several and image == choice.image_id:
        return words["used_sent" if sent else "used_newest"].format(image=image)
    return ""


def relevant(question: str, lines: list[str]) -> list[str]:
    """The lines that look like they answer `question`; none when that says nothing."""
    cues = [
        line_cue
        for question_cue, line_cue in _QUESTION_CUES
        if re.search(question_cue, question, re.I)
    ]
    keywords = {w for w in re.findall(r"[a-z]{4,}", question.lower()) if w not in _PLAIN_WORDS}
    picked = [
        line
        for line in lines
        if any(re.search(cue, line, re.IGNORECASE) for cue in cues)
        or keywords & set(re.findall(r"[a-z]{4,}", line.lower()))
    ]
    return picked if len(picked) < len(lines) else []


def picked(question: str, image: str, lines: list[str], language: str) -> str | None:
    """The value the question asks for with the line it was read from, or a short note that
    the text does not say; None when the question asks what the image says."""
    if picking.wants_whole_text(question):
        return None
    words = words_for(language)
    lines = [mend(line.removesuffix(" (?)")) for line in lines]
    picks = picking.pick(question, lines)
    if picks is None:
        shared = picking.matching(question, lines)
        if not shared:
            return words["picked_nothing"].format(image=image)
        return words["picked_lines"].format(image=image, lines=_quoted(shared, words))
    found = [p for p in picks if p.value]
    missing = words["missing_list"].join(_missing(p, words) for p in picks if not p.value)
    if not found:
        return words["picked_none"].format(image=image, missing=missing)
    said = words["parts"].join(_said(p, words) for p in found)
    said = said[:1].upper() + said[1:]
    quoted = _quoted([ln for p in found for ln in p.line.split("\n")], words)
    key = "picked_also_missing" if missing else "picked_from"
    return words[key].format(answer=said, image=image, lines=quoted, missing=missing)


def _quoted(lines: list[str], words: dict[str, str]) -> str:
    unique = list(dict.fromkeys(lines))
    return words["quotes"].join(words["quote"].format(line=line) for line in unique)


def _day(pick: Pick, words: dict[str, str]) -> str:
    return words["days"].split()[pick.day or 0]


def _said(pick: Pick, words: dict[str, str]) -> str:
    if pick.kind != "hours":
        return words[f"say_{pick.kind}"].format(value=pick.value)
    if pick.day is not None and pick.how != "list":
        return words[f"say_day_{pick.how}"].format(day=_day(pick, words), value=pick.value)
    return words[f"say_hours_{pick.how}"].format(value=pick.value)


def _missing(pick: Pick, words: dict[str, str]) -> str:
    if pick.kind == "hours" and pick.day is not None:
        return words["miss_day_hours"].format(day=_day(pick, words))
    return words[f"miss_{pick.kind}"]


def only_marks(observation: str) -> bool:
    """Whether a read found no words: nothing, or only marks and doubtful guesses."""
    read = text_lines(observation)
    if read is None:
        return found_nothing(observation)
    return all(line.endswith("(?)") or _marks(line) for line in read[0])


def _marks(line: str) -> bool:
    """A line the OCR made of a code's squares ("口", "回 (?)"): two signs or fewer."""
    return len(re.sub(r"\s|\(\?\)", "", line)) <= 2


def help_answer(
    question: str,
    image: str,
    text: str | None,
    code: str | None,
    empty: list[str],
    language: str,
) -> str:
    """What the offline model can say about an image nobody asked a tool for: its words."""
    words = words_for(language)
    read = text_lines(text or "")
    found = codes(code or "")
    if read and found:
        # The OCR's guesses at a code's squares are not text.
        kept = [line for line in read[0] if not line.endswith("(?)") and not _marks(line)]
        read = (kept, False) if kept else None
    answer = picked(question, image, read[0], language) if read else None
    if answer is not None:
        return answer
    parts = []
    if read:
        parts.append(words["help_text"].format(image=image, lines="\n".join(read[0])))
        if read[1]:
            parts.append(words["doubtful"])
        lines = relevant(question, read[0])
        if lines:
            parts.append(words["help_relevant"].format(lines="\n".join(lines)))
    for n, (kind, content) in enumerate(found):
        key = "help_code" if read or n else "help_code_only"
        parts.append(words[key].format(image=image, kind=code_kind(kind, language), text=content))
    if not parts:
        tried = list(dict.fromkeys([*empty, image]))
        # Without a scan, all that can be said is that there was no text.
        key = "help_nothing" if code is not None else "help_no_text"
        return words[key].format(images=listing(tried, language, "or"))
    if empty and read:
        parts.append(words["none_before"].format(images=listing(empty, language)))
    return "\n\n".join(parts)
