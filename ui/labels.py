"""The page's words: the trace panel's labels and the page text, from the word catalogs
(assets/words/).

The page text reaches the browser through Gradio's I18n and follows the browser's language; the
trace labels and the status line are made on the server and follow the session's language,
which starts as the browser's (`browser_language`) and changes with the Language setting.
"""

from __future__ import annotations

from typing import Any

from agent.models.offline import NAME as OFFLINE_NAME
from agent.tokens import Tokens
from tools import words as catalog
from tools.words import Language, language_key

# The trace labels and the page's own words, per language: the `trace` and `page` groups of
# the word catalogs.
LABELS: dict[str, dict[str, Any]] = catalog.both("trace")
UI_TEXT: dict[str, dict[str, str]] = catalog.both("page")


def t(key: str, language: str) -> str:
    return catalog.words(language, f"page.{key}")


def words(language: str) -> dict[str, Any]:
    """The trace labels in `language`."""
    return catalog.words(language, "trace")


# Between the parts of one line (the status line, a finished turn's summary).
SEPARATOR = " · "


def calls_text(calls: int, language: str, kind: str = "calls") -> str:
    """ "1 model call", "3 model calls", "3 次模型调用"; `kind` "tool_calls" for tools."""
    one, many = words(language)[kind]
    return (one if calls == 1 else many).format(calls=calls)


def duration_text(seconds: float, language: str) -> str:
    """The page's one way of writing a duration: "60 ms", "0.1 s", "2.4 s", "1 min 5 s"."""
    w = words(language)
    seconds = max(0.0, float(seconds))
    if seconds < 0.095:
        return w["ms"].format(ms=round(seconds * 1000))
    if seconds < 59.95:
        return w["seconds"].format(seconds=f"{seconds:.1f}")
    minutes, rest = divmod(round(seconds), 60)
    return w["minutes"].format(minutes=minutes, seconds=rest)


def joined(*parts: str) -> str:
    """Parts of one line with a separator between them and none at either end."""
    return SEPARATOR.join(p for p in parts if p and p.strip())


def model_name(model: str, offline: bool, language: str) -> str:
    """A model as the page names it: the offline demo model in the page's language, any other
    offline model with that said beside its name."""
    w = words(language)
    if offline and model == OFFLINE_NAME:
        return w["offline"]
    if offline and "offline" not in model.lower():
        return model + w["aside"].format(w["offline"])
    return model


def stats_text(calls: int, seconds: float, language: str, tokens: Tokens | None = None) -> str:
    """What a finished turn cost: "2 model calls · 1,234 tokens · 0.4 s", "2 次模型调用 ·
    1,234 个词元 · 0.4 秒"; "≈1,234 tokens" where any figure is estimated, and the cost when
    the price table prices every call."""
    counted = tokens_text(tokens, language) if tokens is not None else ""
    cost = cost_text(tokens, language) if tokens is not None else ""
    return joined(calls_text(calls, language), counted, cost, duration_text(seconds, language))


def tokens_text(tokens: Tokens, language: str) -> str:
    """ "1,234 tokens", "≈1,234 tokens", "约 1,234 个词元"; '' when nothing was counted."""
    if not tokens.total:
        return ""
    return t("tokens_about" if tokens.estimated else "tokens", language).format(
        n=f"{tokens.total:,}"
    )


def call_tokens_text(tokens: Tokens, language: str) -> str:
    """One model call's tokens for its trace step: "1,000 in, 234 out · 800 cached"."""
    if not tokens.total:
        return ""
    key = "tokens_io_about" if tokens.estimated else "tokens_io"
    counted = t(key, language).format(input=f"{tokens.input:,}", output=f"{tokens.output:,}")
    cached = t("tokens_cached", language).format(n=f"{tokens.cached:,}") if tokens.cached else ""
    return joined(counted, cached)


def cost_text(tokens: Tokens, language: str) -> str:
    """ "cost 0.0012" (in the price table's currency), "cost ≈0.0012" from estimated tokens;
    '' when not every call was priced."""
    if tokens.cost is None:
        return ""
    figure = cost_figure(tokens.cost)
    return t("cost_about" if tokens.estimated else "cost", language).format(cost=figure)


def cost_figure(cost: float) -> str:
    """A cost as the page writes it: four decimals below one, else two."""
    return f"{cost:.4f}" if cost < 1 else f"{cost:,.2f}"


def protocol_text(protocol: str | None, language: str) -> str:
    """The tool protocol in words ("native tool calls"); '' when none is known."""
    return words(language)["protocol"].get(protocol, protocol) if protocol else ""


def vision_text(state: str, language: str) -> str:
    """How images go to the model, in words ("text only: tools look at images"); '' when
    nothing is known yet."""
    return words(language)["vision"].get(state, "") if state else ""


def browser_language(accept_language: str | None) -> Language | None:
    """The session language for a browser's Accept-Language header: Chinese when the language
    the browser prefers is Chinese (zh, zh-CN, zh-TW...), else English, as Gradio's I18n picks
    the page text; None without a header (an API client), which keeps the default."""
    ranked = []
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        name, _, value = params.strip().partition("=")
        try:
            quality = float(value) if name.strip().lower() == "q" else 1.0
        except ValueError:
            quality = 0.0
        if tag.strip() and quality > 0:
            ranked.append((-quality, order, tag.strip()))
    return language_key(min(ranked)[2]) if ranked else None
