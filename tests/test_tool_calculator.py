import time

import pytest
from pydantic import ValidationError

from tests.support.bounded import run_bounded
from tools.base import ToolInputError
from tools.calculator import Calculator, CalculatorArgs, find_expression


@pytest.fixture
def calc():
    return Calculator()


def run(calc, expression):
    return calc.run(CalculatorArgs.model_validate({"expression": expression}), None)


@pytest.mark.parametrize(
    ("expression", "shown"),
    [
        ("12*(3+4)", "84"),
        ("2^10", "1024"),
        ("３＋４×２", "11"),
        ("7 ÷ 2", "3.5"),
        ("0.1 + 0.2", "0.3"),
        ("sqrt(16)", "4"),
        ("√2", "1.41421356237"),
        ("sin(pi/2)", "1"),
        ("log(8, 2)", "3"),
        ("log10(1000)", "3"),
        ("factorial(10)", "3628800"),
        ("round(2.567, 2)", "2.57"),
        ("floor(2.7) + ceil(2.1)", "5"),
        ("abs(-3)", "3"),
        ("15% of 80", "12"),
        ("80 + 15%", "92"),
        ("100 - 20%", "80"),
        ("20%", "0.2"),
        ("10 % 3", "1"),
        ("1,000,000 * 2", "2000000"),
        ("max(100,200)", "200"),
    ],
)
def test_evaluates(calc, expression, shown):
    result = run(calc, expression)
    assert result.text == f"{expression} = {shown}"
    assert result.data["expression"] == expression


@pytest.mark.parametrize(
    "expression",
    ["9**9**9", "10**10**10", "factorial(10**6)", "'a'*10**9", "2**5000", "exp(1000)", "1e308*10"],
)
def test_huge_results_are_refused_quickly(calc, expression):
    started = time.monotonic()
    with pytest.raises(ToolInputError) as error:
        run(calc, expression)
    assert time.monotonic() - started < 1.0
    assert "too large" in str(error.value) or "number" in str(error.value)


@pytest.mark.parametrize(
    ("expression", "hint"),
    [
        ("1/0", "divides by zero"),
        ("__import__('os').system('ls')", "Allowed functions"),
        ("open('../etc/passwd')", "Allowed functions"),
        ("(1).real", "Allowed functions"),
        ("foo(3)", "Allowed functions"),
        ("3 +", "Could not read"),
        ("sqrt(-1)", "math domain"),
        ("(-8)**(1/3)", "complex"),
        ("1 < 2", "Could not"),
    ],
)
def test_bad_expressions_say_what_to_fix(calc, expression, hint):
    with pytest.raises(ToolInputError, match=hint):
        run(calc, expression)


def test_arguments_are_validated():
    with pytest.raises(ValidationError, match="expression"):
        CalculatorArgs.model_validate({})
    with pytest.raises(ValidationError, match="at most 500"):
        CalculatorArgs.model_validate({"expression": "1+" * 400 + "1"})
    assert CalculatorArgs.model_validate({"expression": 42}).expression == "42"


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("what is 12*(3+4)?", "12*(3+4)"),
        ("What's 15% of 80?", "15% of 80"),
        ("calculate the square root of 2", "sqrt(2)"),
        ("what is 7 times 6", "7 * 6"),
        ("compute log(8,2) please", "log(8,2)"),
        ("计算 3的平方根", "sqrt(3)"),
        ("计算１２×３", "12*3"),
        ("3加5乘2等于多少", "3+5*2"),
        ("10除以4", "10/4"),
        ("百分之20乘以50", "20%*50"),
        ("2的10次方是多少", "(2)**(10)"),
        ("计算2480的12.5%", "12.5% of 2480"),
        ("2480 的 12.5% 是多少", "12.5% of 2480"),
        ("80 的 15%", "15% of 80"),
        ("15%的80是多少", "15% of 80"),
        ("12.5% 的 2480", "12.5% of 2480"),
        ("百分之15的80", "15% of 80"),
        ("2480的百分之12.5", "12.5% of 2480"),
        ("Which is bigger, 3^20 or 20^3?", "3**20"),
        # A bare number in parentheses earlier in the sentence is not the arithmetic asked for.
        ("is x <y> then <script>alert(1)</script> what is 2+2", "2+2"),
        ("see note (12) and compute 7*8", "7*8"),
    ],
)
def test_extracts_the_expression(calc, text, expression):
    assert calc.extract(text, [], {}) == {"expression": expression}


@pytest.mark.parametrize("text", ["What is the weather?", "帮我算算", "hello there"])
def test_extracts_nothing_without_numbers(calc, text):
    assert calc.extract(text, [], {}) == {}


def test_extracted_expressions_evaluate(calc):
    found = calc.extract("计算 3的平方根", [], {})
    assert run(calc, found["expression"]).text.endswith("= 1.73205080757")
    found = calc.extract("2的10次方是多少", [], {})
    assert run(calc, found["expression"]).text.endswith("= 1024")


def calculate(expression: str) -> str:
    """What a person sees for `expression`: the tool's answer or its one-sentence refusal."""
    try:
        args = CalculatorArgs.model_validate({"expression": expression})
    except ValidationError as error:
        return f"invalid: {error.errors()[0]['msg']}"
    try:
        return Calculator().run(args, None).text
    except ToolInputError as error:
        return f"refused: {error}"


# Each runs in a child process with two seconds and 512 MB more than it started with, so that a
# regression (f"{1:>1999999999}" builds a 2 GB string before anything checks its length) fails
# here instead of hanging or exhausting the machine.
TEXT = "numbers only: quoted text, f-strings and string formatting are not supported"
HOSTILE_EXPRESSIONS = [
    ('f"{1:>1999999999}"', TEXT),
    ("f'{1:>1999999999}'", TEXT),
    ("f'{1:{9}{99999999}}'", TEXT),
    ("f'{9**9**9}'", TEXT),
    ("'{:>1999999999}'.format(1)", "not an allowed function"),
    ("format(1, '>1999999999')", "not an allowed function"),
    ("'%1999999999d' % 1", TEXT),
    ("'a' * 10**9", TEXT),
    ("10**9 * 'ab'", TEXT),
    ("b'x' * 10**9", TEXT),
    ("'x' + 'y'", TEXT),
    ("1; f'{1:>1999999999}'", "Could not read"),
    ("1 if 1 else f'{1:>99999999}'", TEXT),
    ("1 if 2 else 3", "Could not read"),
    ("[1] * 10**9", "Could not read"),
    ("'x'[0]", TEXT),
    ("(1).__class__", "not an allowed function"),
    ("str(10**1000)", "not an allowed function"),
    ("(lambda: 1)()", "not an allowed function"),
    ("-" * 400 + "1", "nested too deeply"),
    ("sqrt(" * 80 + "4" + ")" * 80, "nested too deeply"),
    ("(" * 240 + "1" + ")" * 240, "Could not read"),
    ("1e999", "too large"),
    ("factorial(450) ** factorial(450)", "too large"),
    ("9**9**9**9**9", "too large"),
    ("10**1000 * 10**1000 * 10**1000", "too large"),
    ("sqrt(10**1000)", "too large"),
    ("1.0000001 ** 10**15", "too large"),
    ("0.5 ** -10**6", "too large"),
    ("True + True", "Could not read"),
]


@pytest.fixture(scope="module")
def hostile_outcomes():
    calls = [[expression] for expression, _ in HOSTILE_EXPRESSIONS]
    return run_bounded("tests.test_tool_calculator:calculate", calls, setup=[])


@pytest.mark.parametrize("index", range(len(HOSTILE_EXPRESSIONS)))
def test_hostile_expressions_are_refused_at_once_in_one_sentence(hostile_outcomes, index):
    expression, hint = HOSTILE_EXPRESSIONS[index]
    outcome = hostile_outcomes[index]
    assert outcome.finished and outcome.seconds < 2, f"{expression[:40]!r} ran too long"
    assert not outcome.error, outcome  # not a MemoryError or a crash: a refusal
    shown = eval(outcome.result)  # the repr of the text a person would see
    assert shown.startswith("refused: ") and hint in shown, shown
    assert "\n" not in shown and shown.endswith(".")


def test_keywords_and_nesting_within_reason_still_work(calc):
    assert run(calc, "round(2.567, digits=2) * 100").text.endswith("= 257")
    assert run(calc, "sqrt(" * 20 + "1" + ")" * 20).text.endswith("= 1")


@pytest.mark.parametrize(
    "text",
    ["计算2480的12.5%", "2480的12.5%是多少", "80 的 15%", "15%的80是多少", "12.5% 的 2480 等于几"],
)
async def test_a_chinese_share_of_a_number_is_answered_offline(text):
    from agent import Agent, Session
    from agent.models import OfflineModel
    from tools import default_tools

    events = [e async for e in Agent(OfflineModel(), default_tools()).run(text, [], Session())]
    assert events[-1].type == "answer"
    assert "= 310" in events[-1].text or "= 12" in events[-1].text


@pytest.mark.parametrize(
    ("language", "said"),
    [("zh", "2480 的 12.5% = 310"), ("en", "12.5% of 2480 = 310")],
)
def test_a_share_is_said_in_the_conversations_language(calc, store, language, said):
    from tools.base import ToolContext

    args = CalculatorArgs(expression="12.5% of 2480")
    result = calc.run(args, ToolContext(store, language=language))
    assert result.text == said
    assert result.data["expression"] == "12.5% of 2480"  # the data stays as computed


@pytest.mark.parametrize(
    "text",
    [
        "calculate " + "-" * 15_000 + "1",
        "calculate 1" + "-" * 15_000,
        "calculate " + "of " * 5_000 + "1",
        "calculate " + "(-" * 7_000 + "1",
    ],
)
def test_a_long_run_of_operators_is_read_in_one_pass(text):
    # Each of these held the interpreter for seconds when the end of a run was trimmed by a
    # pattern anchored at the end; the reading itself is what is checked here, its time in
    # bench/stall.py.
    expression = find_expression(text)
    assert expression is None or len(expression) <= len(text)


def test_operators_and_of_at_the_ends_are_trimmed():
    assert find_expression("what is 2 + 3 of") == "2 + 3"
    assert find_expression("calculate (3+4)*2-") == "(3+4)*2"
    assert find_expression("12.5% of 2480 ,") == "12.5% of 2480"
