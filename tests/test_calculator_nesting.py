"""Deep nesting in a calculator expression is one sentence, never a RecursionError: not from
the agent's tool call, not from the MCP endpoint, whatever part of the expression is deep."""

from __future__ import annotations

import ast

import gradio as gr
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent.config import Settings
from tools.arithmetic import MAX_EXPRESSION_CHARS, _refusal, _walked_refusal, evaluate
from tools.base import ToolInputError
from tools.calculator import Calculator, CalculatorArgs
from ui.handlers import PageHandlers
from ui.mcp_endpoints import run_tool

TOO_DEEP = "The expression is nested too deeply; split it into smaller calculations."

DEEP = [
    # The reported one: a call whose function is a tower of minus signs.
    "(" + "-" * 480 + "x)(1)",
    "(" + "-" * 480 + "sqrt)(1)",
    "(" + "+" * 490 + "1)(1)",
    "-" * 499 + "1",
    "~" * 499 + "1",
    "(" + "-" * 480 + "pi).real",
    "sqrt(" + "-" * 480 + "1)",
    "abs(" * 90 + "1" + ")" * 90,
    "max(1, " + "-" * 480 + "1)",
    "2" + "**-2" * 120,
]
# Past the length limit or the parser's own: refused before anything is built.
REFUSED = ["(" * 1000, "(" * 1000 + "1" + ")" * 1000, "(" * 201 + "1" + ")" * 201, "[" * 400]


@pytest.mark.parametrize("expression", DEEP, ids=lambda e: e[:12])
def test_deep_nesting_is_one_sentence(expression):
    assert len(expression) <= MAX_EXPRESSION_CHARS
    with pytest.raises(ToolInputError) as error:
        evaluate(expression)
    assert str(error.value) == TOO_DEEP


@pytest.mark.parametrize("expression", REFUSED, ids=lambda e: f"{e[:3]}x{len(e)}")
def test_past_the_limits_is_one_sentence(expression):
    with pytest.raises(ToolInputError) as error:
        evaluate(expression)
    assert "\n" not in str(error.value) and str(error.value).endswith(".")


def test_a_name_in_a_shallow_call_is_still_named():
    with pytest.raises(ToolInputError, match=r"os\.system is not an allowed function"):
        evaluate("os.system(1)")
    with pytest.raises(ToolInputError, match="-x is not an allowed function"):
        evaluate("(-x)(1)")


def test_the_tool_says_the_sentence():
    args = CalculatorArgs(expression="(" + "-" * 480 + "x)(1)")
    with pytest.raises(ToolInputError, match="nested too deeply"):
        Calculator().run(args, None)


@pytest.mark.parametrize("expression", [DEEP[0], DEEP[4], "(" * 201 + "1" + ")" * 201])
async def test_the_mcp_endpoint_says_one_sentence(expression):
    page = PageHandlers(env=Settings(), tools=[])
    with pytest.raises(gr.Error) as error:
        await run_tool(Calculator(), {"expression": expression}, page)
    message = str(error.value.message)
    assert "Recursion" not in message and "\n" not in message and message.endswith(".")


# Runs of its alphabet, and pieces of arithmetic joined, which parse far more often.
_PIECES = ["1", "23", "4.5", ".5", "7.", "+", "-", "*", "/", "//", "%", "**", "(", ")", " ", "..."]


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="0123456789 .+-*/%()\t", min_size=1, max_size=50)
    | st.lists(st.sampled_from(_PIECES), min_size=1, max_size=14).map("".join)
)
@example("-" * 49 + "1")
@example("9" * 49 + ".")
@example("(...)")
@example("()")
@example("2 (3)")
@example("(1)(2)")
@example("1.(2)")
@example("2 ** -1 // 3 % 4")
def test_plain_arithmetic_skips_only_walks_that_would_refuse_nothing(text):
    """The short cut for plain arithmetic (`_PLAIN`) answers as the full walk over the tree
    would, whatever of its alphabet parses."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return
    walked = _walked_refusal(text, text, tree)
    assert _refusal(text, text, tree) == walked
