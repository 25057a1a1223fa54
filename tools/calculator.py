"""`calculator`: arithmetic and common math functions, evaluated safely (`tools.arithmetic`),
and the expression found in a sentence such as "what is 15% of 80" or "根号2乘以3"."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from tools.arithmetic import (
    FUNCTIONS,
    MAX_EXPRESSION_CHARS,
    NAMES,
    NUMBER,
    evaluate,
    format_number,
    normalise,
)
from tools.base import StrictArgs, Tool, ToolContext, ToolResult, language_of
from tools.words import both


class CalculatorArgs(StrictArgs):
    expression: str = Field(
        description=(
            "The arithmetic to evaluate, e.g. 12*(3+4), sqrt(2), 15% of 80, 2**10. "
            "Operators: + - * / // % **; functions: sqrt, sin, cos, tan, log, log10, exp, abs, "
            "round, floor, ceil, factorial; constants: pi, e."
        ),
        min_length=1,
        max_length=MAX_EXPRESSION_CHARS,
        json_schema_extra={"ask": both("tools.calculator.ask.expression")},
    )


# Chinese arithmetic words, longest first so that 除以 wins over 除.
_CHINESE = (
    (re.compile(r"百分之\s*(\d+(?:\.\d+)?)"), r"\1%"),
    # "12.5%的2480" and "2480的12.5%": the share, as "12.5% of 2480" says it.
    (re.compile(rf"({NUMBER})\s*%\s*的\s*({NUMBER})"), r"\1% of \2"),
    (re.compile(rf"({NUMBER})\s*的\s*(\d+(?:\.\d+)?)\s*%"), r"\2% of \1"),
    (re.compile(r"根号\s*(\d+(?:\.\d+)?)"), r"sqrt(\1)"),
    (re.compile(rf"({NUMBER})\s*的\s*平方根"), r"sqrt(\1)"),
    (re.compile(rf"({NUMBER})\s*的\s*立方根"), r"(\1)**(1/3)"),
    (re.compile(rf"({NUMBER})\s*的\s*(\d+(?:\.\d+)?)\s*次方"), r"(\1)**(\2)"),
    (re.compile(rf"({NUMBER})\s*的\s*平方"), r"(\1)**2"),
    (re.compile(rf"({NUMBER})\s*的\s*立方"), r"(\1)**3"),
    (re.compile(rf"({NUMBER})\s*的\s*阶乘"), r"factorial(\1)"),
    (re.compile(r"乘以|乘"), "*"),
    (re.compile(r"除以"), "/"),
    (re.compile(r"加上|加"), "+"),
    (re.compile(r"减去|减"), "-"),
)
_ENGLISH = (
    (re.compile(r"square root of\s*(\d+(?:\.\d+)?)", re.I), r"sqrt(\1)"),
    (re.compile(rf"({NUMBER})\s*squared\b", re.I), r"(\1)**2"),
    (re.compile(rf"({NUMBER})\s*cubed\b", re.I), r"(\1)**3"),
    (re.compile(r"\btimes\b|\bmultiplied by\b", re.I), "*"),
    (re.compile(r"\bdivided by\b", re.I), "/"),
    (re.compile(r"\bplus\b", re.I), "+"),
    (re.compile(r"\bminus\b", re.I), "-"),
)
_FUNCTION_WORDS = "|".join(sorted((*FUNCTIONS, *NAMES), key=len, reverse=True))
_EXPRESSION_RUN = re.compile(
    rf"(?:\b(?:{_FUNCTION_WORDS})\b|\d+(?:\.\d+)?|\*\*|[-+*/%().,]|\s+|\bof\b)+", re.IGNORECASE
)


# "12.5% of 2480" as a Chinese sentence says it: "2480 的 12.5%".
_SHARE = re.compile(rf"({NUMBER})\s*%\s*of\s*({NUMBER})", re.IGNORECASE)


def shown_expression(expression: str, language: str) -> str:
    """The expression as the person reads it in their language (the tool computes the same)."""
    return _SHARE.sub(r"\2 的 \1%", expression) if language == "zh" else expression


_COMPUTES = re.compile(r"[-+*/%]|\bof\b|[A-Za-z]\s*\(", re.IGNORECASE)


_LEADING = re.compile(r"^(?:of\b|[*/%),\s])+", re.IGNORECASE)
_TRAILING = "-+*/(.,"


def _trim_end(candidate: str) -> str:
    """`candidate` without the operators and "of" it ends with. A loop, not a pattern anchored
    at the end: that one is tried at every position of a run of ten thousand minus signs."""
    while True:
        trimmed = candidate.rstrip(_TRAILING)
        if trimmed[-2:].lower() == "of" and (len(trimmed) == 2 or not trimmed[-3].isalnum()):
            trimmed = trimmed[:-2]
        if trimmed == candidate:
            return candidate
        candidate = trimmed


def find_expression(text: str) -> str | None:
    """The longest stretch of `text` that reads as arithmetic and contains a number."""
    text = unicodedata.normalize("NFKC", text)
    for old, new in (("×", "*"), ("÷", "/"), ("−", "-"), ("^", "**"), ("√", "sqrt")):
        text = text.replace(old, new)
    for pattern, replacement in (*_CHINESE, *_ENGLISH):
        text = pattern.sub(replacement, text)
    best, best_rank = "", (False, 0)
    for match in _EXPRESSION_RUN.finditer(text):
        candidate = match.group(0).strip()
        candidate = _trim_end(_LEADING.sub("", candidate)).strip()
        while candidate.endswith(")") and candidate.count(")") > candidate.count("("):
            candidate = candidate[:-1].rstrip()
        has_value = re.search(r"\d|\b(?:pi|e|tau)\b", candidate)
        # Something to compute beats a longer bare number ("alert(1) … what is 2+2").
        rank = (bool(_COMPUTES.search(candidate)), len(candidate))
        if has_value and rank > best_rank:
            best, best_rank = candidate, rank
    return best or None


class Calculator(Tool[CalculatorArgs]):
    name = "calculator"
    quick = True
    description = (
        "Evaluate arithmetic exactly: + - * / ** %, percentages (15% of 80, 80 + 15%), and "
        "sqrt, sin, cos, tan (radians), log, log10, exp, abs, round, floor, ceil, factorial, pi, e."
    )
    Args = CalculatorArgs

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        expression = find_expression(text)
        # A number alone ("算一下5英里") has nothing to compute: "5 = 5" answers nobody.
        if expression and re.fullmatch(r"[-+]?\(*\s*[\d.,]+\s*\)*%?", expression):
            return {}
        return {"expression": expression} if expression else {}

    def run(self, args: CalculatorArgs, ctx: ToolContext) -> ToolResult:
        result = evaluate(args.expression)
        shown = format_number(result)
        return ToolResult(
            text=f"{shown_expression(args.expression, language_of(ctx))} = {shown}",
            data={
                "expression": args.expression,
                "normalised": normalise(args.expression),
                "result": result if isinstance(result, float) else shown,
            },
        )
