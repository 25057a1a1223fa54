"""Arithmetic evaluated safely: `evaluate(expression)` and the notation it accepts.

Expressions are evaluated by `simpleeval` with a closed set of operators, functions and names,
never by `eval`; any other syntax (text, f-strings, attributes) is refused before evaluation.
Every operator that can grow a number checks the size first, so `9**9**9` answers with an
error at once instead of computing for hours.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import threading
import unicodedata
from typing import Any

from simpleeval import SimpleEval

from tools.base import ToolInputError

MAX_EXPRESSION_CHARS = 500
# About 1,200 decimal digits: enough for any everyday answer, cheap to compute and print.
MAX_INT_BITS = 4000
MAX_FACTORIAL = 450


class _TooLarge(ArithmeticError):
    pass


def _check_size(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _TooLarge
    if isinstance(value, float) and math.isinf(value):
        raise _TooLarge
    return value


def _power(base: Any, exponent: Any) -> Any:
    # Estimate the size of the result from logarithms before computing it.
    if isinstance(base, int | float) and isinstance(exponent, int | float):
        magnitude = abs(base)
        if magnitude > 1 and exponent > 0 and exponent * math.log2(magnitude) > MAX_INT_BITS:
            raise _TooLarge
        if 0 < magnitude < 1 and exponent < 0 and -exponent * -math.log2(magnitude) > MAX_INT_BITS:
            raise _TooLarge
    return _check_size(operator.pow(base, exponent))


def _sized(op: Any) -> Any:
    def apply(a: Any, b: Any) -> Any:
        if not isinstance(a, int | float) or not isinstance(b, int | float):
            raise TypeError("only numbers can be combined")
        return _check_size(op(a, b))

    return apply


def _factorial(n: Any) -> int:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or n < 0:
        raise ValueError("factorial needs a whole number of 0 or more")
    if n > MAX_FACTORIAL:
        raise _TooLarge
    return math.factorial(n)


def _log(x: float, base: float | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


def _round(x: float, digits: int = 0) -> float:
    if not isinstance(digits, int) or abs(digits) > 15:
        raise ValueError("round takes a whole number of digits between -15 and 15")
    return round(x, digits) if digits else round(x)


OPERATORS = {
    ast.Add: _sized(operator.add),
    ast.Sub: _sized(operator.sub),
    ast.Mult: _sized(operator.mul),
    ast.Div: _sized(operator.truediv),
    ast.FloorDiv: _sized(operator.floordiv),
    ast.Mod: _sized(operator.mod),
    ast.Pow: _power,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}

FUNCTIONS = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "log": _log,
    "ln": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": lambda x: _check_size(math.exp(x)),
    "abs": abs,
    "round": _round,
    "floor": math.floor,
    "ceil": math.ceil,
    "factorial": _factorial,
    "radians": math.radians,
    "degrees": math.degrees,
    "min": min,
    "max": max,
}

NAMES = {"pi": math.pi, "e": math.e, "tau": math.tau}

# No digit before a number: matches tried from inside a run of digits would be quadratic.
NUMBER = r"(?<![\d.])\d+(?:\.\d+)?"
# "15% of 80" -> the share; "80 + 15%" -> raise or lower 80 by 15 percent; "20%" -> 0.2.
_PERCENT_OF = re.compile(rf"({NUMBER})\s*%\s*of\s*", re.IGNORECASE)
_PERCENT_CHANGE = re.compile(rf"({NUMBER})\s*([+-])\s*({NUMBER})\s*%(?!\s*[\d(])")
_PERCENT = re.compile(rf"({NUMBER})\s*%(?!\s*[\d(.])")
# 1,000,000 but not the argument list of max(100,200).
_THOUSANDS = re.compile(r"(?<![\w(,.])\d{1,3}(?:,\d{3})+(?![\d,])")
_SQRT_NUMBER = re.compile(r"sqrt\s*(\d+(?:\.\d+)?)")


def normalise(expression: str) -> str:
    """Turn everyday notation into the evaluator's: ×, ÷, ^, full-width forms, percentages."""
    # Each rewrite is tried only when its mark is there: plain "3 + 4" skips them all.
    text = expression if expression.isascii() else unicodedata.normalize("NFKC", expression)
    for old, new in (("×", "*"), ("÷", "/"), ("−", "-"), ("^", "**"), ("√", "sqrt")):
        text = text.replace(old, new)
    if "," in text:
        text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    if "sqrt" in text:
        text = _SQRT_NUMBER.sub(r"sqrt(\1)", text)
    if "%" in text:
        text = _PERCENT_OF.sub(r"\1/100*", text)
        text = _PERCENT_CHANGE.sub(r"(\1\2\1*\3/100)", text)
        text = _PERCENT.sub(r"(\1/100)", text)
    return text.strip().rstrip("=?").strip()


def format_number(value: float | int) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.12g}"


# The closed set of syntax an arithmetic expression needs. Everything else is refused before
# evaluation: simpleeval checks a string's length only after building it, so f"{1:>1999999999}"
# would allocate two gigabytes first.
_EVALUATED = (ast.BinOp, ast.UnaryOp, ast.Call, ast.keyword, ast.Name, ast.Constant)
_SYNTAX = (*_EVALUATED, ast.Expression, ast.Load)
MAX_NESTING = 60


TOO_DEEP = "The expression is nested too deeply; split it into smaller calculations."


def _too_deep(tree: ast.AST) -> bool:
    """Whether any node lies deeper than `MAX_NESTING`, found without recursion: everything
    after this (naming a part, evaluating) recurses, and a deep tree must not reach it."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


# Text that can only parse to numbers, operators and brackets, short enough that no literal
# overflows a float and no tree nests past MAX_NESTING: nothing in it to refuse, so the walks
# below are skipped for the everyday "12 * (3 + 4)". Its alphabet can still spell an Ellipsis,
# an empty tuple and a call ("2(3)"), which the walks refuse.
_PLAIN = re.compile(r"[\d\s.+\-*/%()]{1,50}")
_NOT_PLAIN = re.compile(r"\.\.\.|[\d.)]\s*\(|\(\s*\)")


def _refusal(expression: str, text_read: str, tree: ast.Expression) -> str | None:
    """Why `tree` (parsed from `text_read`) is not plain arithmetic, as the sentence to show;
    None when it is."""
    if _PLAIN.fullmatch(text_read) and not _NOT_PLAIN.search(text_read):
        return None
    return _walked_refusal(expression, text_read, tree)


def _walked_refusal(expression: str, text_read: str, tree: ast.Expression) -> str | None:
    """`_refusal` found by walking every node of `tree`."""
    if _too_deep(tree):
        return TOO_DEEP
    unknown_name = text = other = None
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
        ):
            unknown_name = unknown_name or _part(text_read, node.func)
        elif isinstance(node, ast.Name) and node.id not in FUNCTIONS and node.id not in NAMES:
            unknown_name = unknown_name or node.id[:40]
        elif isinstance(node, ast.Attribute):
            unknown_name = unknown_name or _part(text_read, node)
        elif isinstance(node, ast.JoinedStr | ast.FormattedValue) or (
            isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
        ):
            text = True
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, float) and not math.isfinite(node.value):
                return "The number is too large for a floating point number."
            if isinstance(node.value, bool) or not isinstance(node.value, int | float | complex):
                other = True
        elif not isinstance(node, _SYNTAX) and type(node) not in OPERATORS:
            other = True
        stack.extend(ast.iter_child_nodes(node))
    if unknown_name:
        return (
            f"Could not evaluate {_quoted(expression)}: {unknown_name} is not an allowed "
            f"function or constant. Allowed functions: {', '.join(sorted(FUNCTIONS))}; "
            "constants: pi, e, tau."
        )
    if text:
        return (
            "The calculator works with numbers only: quoted text, f-strings and string "
            "formatting are not supported."
        )
    return _unreadable(expression) if other else None


def _part(text: str, node: ast.AST) -> str:
    """The text of `node`, at most 40 characters, cut from the source (no recursion)."""
    return " ".join((ast.get_source_segment(text, node) or "?").split())[:40]


def _quoted(expression: str, limit: int = 80) -> str:
    """The expression as a sentence quotes it: cut short, so that the sentence stays one a
    person reads (and the part after the quote survives a cut to one line)."""
    if len(expression) > limit:
        expression = expression[: limit - 1] + "…"
    return repr(expression)


def _unreadable(expression: str) -> str:
    return (
        f"Could not read {_quoted(expression)} as arithmetic; use numbers, + - * / ** %, "
        "parentheses and functions such as sqrt, sin, log, factorial."
    )


_local = threading.local()


def _evaluator() -> SimpleEval:
    """This thread's evaluator, made once: building one costs more than most evaluations."""
    evaluator = getattr(_local, "evaluator", None)
    if evaluator is None:
        evaluator = SimpleEval(operators=OPERATORS, functions=FUNCTIONS, names=NAMES)
        handlers = evaluator.nodes
        assert handlers is not None  # made with the evaluator; None only in its type
        evaluator.nodes = {kind: handlers[kind] for kind in _EVALUATED}
        _local.evaluator = evaluator
    return evaluator


def evaluate(expression: str) -> int | float:
    """The value of `expression`; ToolInputError with a fix-it sentence when there is none."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolInputError(
            f"The expression is longer than {MAX_EXPRESSION_CHARS} characters; split it into "
            "smaller calculations."
        )
    text = normalise(expression)
    if not text:
        raise ToolInputError("The expression is empty; give arithmetic such as 12*(3+4).")
    try:
        tree = ast.parse(text, mode="eval")
    except RecursionError:
        raise ToolInputError(TOO_DEEP) from None
    except (SyntaxError, ValueError, MemoryError):
        raise ToolInputError(_unreadable(expression)) from None
    refusal = _refusal(expression, text, tree)
    if refusal:
        raise ToolInputError(refusal)
    try:
        result = _evaluator().eval(text, previously_parsed=tree.body)
    except RecursionError:  # a last guard; the depth check above keeps trees far shallower
        raise ToolInputError(TOO_DEEP) from None
    except _TooLarge:
        raise ToolInputError(
            "The result would be too large to compute; use smaller numbers or exponents."
        ) from None
    except ZeroDivisionError:
        raise ToolInputError("The expression divides by zero.") from None
    except OverflowError:
        raise ToolInputError("The result is too large for a floating point number.") from None
    except Exception as error:
        known = ", ".join(sorted(FUNCTIONS))
        raise ToolInputError(
            f"Could not evaluate {_quoted(expression)}: {error}. Allowed functions: {known}; "
            "constants: pi, e, tau."
        ) from None
    if isinstance(result, complex):
        raise ToolInputError("The result is a complex number; this calculator works with reals.")
    if isinstance(result, bool) or not isinstance(result, int | float):
        raise ToolInputError("The expression must produce a number; use arithmetic only.")
    if isinstance(result, float) and math.isnan(result):
        raise ToolInputError("The expression has no numeric value (the result is not a number).")
    return result
