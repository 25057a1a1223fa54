"""Everything the offline model says, in English and Chinese: the `offline` group of the word
catalogs (assets/words/), and the ordinals it counts images with."""

from __future__ import annotations

from tools import words

# What the offline model says, and the kinds of picture a person may mean, per language.
TEXT: dict[str, dict[str, str]] = words.both("offline.text")
CONTENT: dict[str, dict[str, str]] = words.both("offline.content")

_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth",
)  # fmt: skip


def words_for(language: str) -> dict[str, str]:
    return words.words(language, "offline.text")


def position_words(number: int, language: str) -> str:
    """1 -> "first" / "第 1 张"; -1 -> "last" / "最后一张"; -3 -> "third from the end"."""
    zh = words.language_key(language) == "zh"
    if number == -1:
        return words_for(language)["last"]
    count = abs(number)
    if zh:
        spelled = f"第 {count} 张"
    elif 1 <= count <= len(_ORDINALS):
        spelled = _ORDINALS[count - 1]
    else:
        suffix = (
            "th" if 10 <= count % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(count % 10, "th")
        )
        spelled = f"{count}{suffix}"
    return words_for(language)["from_end"].format(position=spelled) if number < 0 else spelled


def listing(items: list[str], language: str, joiner: str = "and") -> str:
    """ "img_3, img_2 and img_1"; in Chinese "img_3、img_2和img_1"."""
    said = words_for(language)
    if len(items) <= 1:
        return "".join(items)
    return said["comma"].join(items[:-1]) + said[joiner] + items[-1]


def image_count(count: int, language: str) -> str:
    return words_for(language)["image_count" if count == 1 else "image_count_many"].format(n=count)
