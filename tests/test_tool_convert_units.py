import pytest
from pydantic import ValidationError

from tests.support.bounded import run_bounded
from tools.base import ToolInputError
from tools.convert_units import ConvertArgs, ConvertUnits


@pytest.fixture
def tool():
    return ConvertUnits()


def convert(tool, value, from_unit, to_unit):
    args = ConvertArgs.model_validate({"value": value, "from_unit": from_unit, "to_unit": to_unit})
    return tool.run(args, None)


@pytest.mark.parametrize(
    ("value", "from_unit", "to_unit", "expected"),
    [
        (5, "miles", "km", 8.04672),
        (5, "mi", "kilometres", 8.04672),
        (100, "°C", "°F", 212),
        (100, "celsius", "degF", 212),
        (-40, "℃", "℉", -40),
        (32, "fahrenheit", "K", 273.15),
        (20, "摄氏度", "华氏度", 68),
        (5, "公里", "英里", 3.10685596),
        (3, "kg", "lb", 6.613867866),
        (1, "公斤", "磅", 2.204622622),
        (2, "斤", "千克", 1),
        (1, "加仑", "升", 3.785411784),
        (100, "km/h", "mph", 62.13711922),
        (10, "fl oz", "ml", 295.7352956),
        (1, "米", "厘米", 100),
    ],
)
def test_converts(tool, value, from_unit, to_unit, expected):
    result = convert(tool, value, from_unit, to_unit)
    assert result.data["result"] == pytest.approx(expected, rel=1e-6)
    assert "=" in result.text


def test_offset_units_show_symbols(tool):
    assert convert(tool, 100, "°C", "°F").text == "100 °C = 212 °F"


def test_incompatible_units_name_both_dimensions(tool):
    with pytest.raises(ToolInputError) as error:
        convert(tool, 1, "kg", "km")
    assert str(error.value) == (
        "kg measures mass and km measures length: they measure different things, so one "
        "cannot become the other; choose units of the same kind."
    )


def test_infinite_result_is_refused(tool):
    with pytest.raises(ToolInputError, match="too large"):
        convert(tool, 1e50, "light_year^3*light_year^3", "planck_length^3*planck_length^3")


@pytest.mark.parametrize("value", [1e308, -1e51, "inf", "-inf", "nan", float("nan"), "9" * 5000])
def test_values_beyond_any_quantity_are_refused(value):
    with pytest.raises(ValidationError) as error:
        ConvertArgs.model_validate({"value": value, "from_unit": "km", "to_unit": "m"})
    assert "finite number between -1e50 and 1e50" in str(error.value)


@pytest.mark.parametrize(
    ("unit", "shown"),
    [("m²", "m²"), ("s⁻¹", "1/s"), ("m/s^2", "m/s²"), ("km**2", "km²"), ("N·m", "m·N")],
)
def test_units_with_one_small_exponent_still_work(tool, unit, shown):
    assert shown in convert(tool, 1, unit, unit).text


@pytest.mark.parametrize(
    "unit", ["furlongz", "../etc/passwd", "", "m**9999", "°F in celsius", "x" * 80]
)
def test_unknown_units_are_rejected_with_examples(unit):
    with pytest.raises(ValidationError) as error:
        ConvertArgs.model_validate({"value": 1, "from_unit": unit, "to_unit": "km"})
    assert "from_unit" in str(error.value)
    assert "Unknown unit" in str(error.value) and "km, mile" in str(error.value)


@pytest.mark.parametrize("word", ["cats", "hats", "mats", "rats", "units", "CATS"])
def test_everyday_words_are_no_units_though_pint_reads_a_prefix_in_them(tool, word):
    with pytest.raises(ValidationError, match="Unknown unit"):
        ConvertArgs.model_validate({"value": 1, "from_unit": word, "to_unit": "km"})
    assert tool.extract(word, [], {"value": 5, "from_unit": "mile"}) == {}


@pytest.mark.parametrize("unit", ["kcal", "cm", "kWh", "mph", "kPa", "at"])
def test_prefixed_units_and_symbols_still_resolve(unit):
    assert ConvertArgs.model_validate({"value": 1, "from_unit": unit, "to_unit": unit})


def test_every_argument_is_required():
    assert set(ConvertUnits.required_fields()) == {"value", "from_unit", "to_unit"}
    with pytest.raises(ValidationError, match="to_unit"):
        ConvertArgs.model_validate({"value": 5, "from_unit": "mile"})
    with pytest.raises(ValidationError, match="valid number"):
        ConvertArgs.model_validate({"value": "five", "from_unit": "mile", "to_unit": "km"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("convert 5 miles to km", {"value": 5, "from_unit": "miles", "to_unit": "km"}),
        ("convert 5 miles", {"value": 5, "from_unit": "miles"}),
        ("convert 5 to km", {"value": 5, "to_unit": "km"}),
        ("how many pounds is 3 kg?", {"value": 3, "from_unit": "kg", "to_unit": "pounds"}),
        ("how many feet in 3 meters", {"value": 3, "from_unit": "meters", "to_unit": "feet"}),
        ("What is 100 °F in celsius?", {"value": 100, "from_unit": "°F", "to_unit": "celsius"}),
        ("2 nautical miles to km", {"value": 2, "from_unit": "nautical miles", "to_unit": "km"}),
        (
            "60 miles per hour in km/h",
            {"value": 60, "from_unit": "miles per hour", "to_unit": "km/h"},
        ),
        ("5公里等于多少英里", {"value": 5, "from_unit": "公里", "to_unit": "英里"}),
        ("把20摄氏度换算成华氏度", {"value": 20, "from_unit": "摄氏度", "to_unit": "华氏度"}),
        ("1斤是多少公斤", {"value": 1, "from_unit": "斤", "to_unit": "公斤"}),
        ("换算一下单位", {}),
        # Thousands, a decimal comma, an exponent; "到", "为", "->" before the target unit.
        ("convert 2,500 feet to meters", {"value": 2500, "from_unit": "feet", "to_unit": "meters"}),
        ("convert 1,234.5 km to miles", {"value": 1234.5, "from_unit": "km", "to_unit": "miles"}),
        ("convert 2,5 km to m", {"value": 2.5, "from_unit": "km", "to_unit": "m"}),
        ("convert 1e3 m to km", {"value": 1000, "from_unit": "m", "to_unit": "km"}),
        ("把 1,000 英里换算成公里", {"value": 1000, "from_unit": "英里", "to_unit": "公里"}),
        ("换算 5 英里到公里", {"value": 5, "from_unit": "英里", "to_unit": "公里"}),
        ("换算 5 英里 为 公里", {"value": 5, "from_unit": "英里", "to_unit": "公里"}),
        ("convert 5 mi -> km", {"value": 5, "from_unit": "mi", "to_unit": "km"}),
        # A number of things, not of a unit: nothing to convert.
        ("I have 3 cats", {}),
        ("my 2 dogs weigh a lot", {}),
        ("我有3只猫", {}),
        ("convert 5 please", {"value": 5}),
        # ... unless a conversion is asked for: then the number is the value.
        ("convert 5 blargs", {"value": 5}),
        ("convert 3 rats to km", {"value": 3, "to_unit": "km"}),
    ],
)
def test_extracts_what_is_there(tool, text, expected):
    assert tool.extract(text, [], {}) == expected


def test_a_bare_unit_answers_the_missing_one(tool):
    known = {"value": 5, "from_unit": "mile"}
    assert tool.extract("km", [], known) == {"to_unit": "km"}
    assert tool.extract("公里。", [], known) == {"to_unit": "公里"}
    assert tool.extract("miles", [], {"value": 5}) == {"from_unit": "miles"}
    assert tool.extract("banana", [], known) == {}
    # one unit fills one slot, even when the reply is read again after it filled it
    assert tool.extract("km", [], {"value": 5, "from_unit": "km"}) == {"from_unit": "km"}
    # a unit of another kind answers nothing: the question is asked again
    assert tool.extract("celsius", [], known) == {}
    assert tool.extract("摄氏度", [], known) == {}
    assert tool.extract("miles", [], {"value": 5, "to_unit": "°F"}) == {}


def test_a_unit_of_another_kind_as_the_reply_is_explained(tool):
    known = {"value": 5, "from_unit": "miles"}
    said = tool.reply_problem("celsius", known, "en")
    assert said == "“celsius” and “miles” measure different things, so one cannot become the other."
    assert tool.reply_problem("摄氏度。", known, "zh").startswith("“摄氏度”和“miles”")
    for fine in ("km", "ok", "10", "what is 2+2", "x" * 5000):
        assert tool.reply_problem(fine, known, "en") is None


@pytest.mark.parametrize(
    ("reply", "language", "said"),
    [
        ("blargs", "en", "I do not know a unit called “blargs”."),
        ("Banana!", "en", "I do not know a unit called “Banana”."),
        ("blargs", "zh", "我不认识“blargs”这个单位。"),
    ],
)
def test_a_word_that_is_no_unit_as_the_reply_is_said(tool, reply, language, said):
    assert tool.reply_problem(reply, {"value": 5, "from_unit": "miles"}, language) == said
    assert tool.reply_problem("celsius", {"value": 5}, "en") is None


def test_extracted_arguments_validate_and_run(tool):
    found = tool.extract("5公里等于多少英里", [], {})
    result = tool.run(ConvertArgs.model_validate(found), None)
    assert result.data["result"] == pytest.approx(3.10685596)


# Unit text that once made pint compute a power tower (3**7625597484987 for m^3^3^3^3) and hold
# the process at full CPU, and other shapes no unit has. Each runs in a child process with a
# two-second budget, so a regression fails here instead of hanging the test run.
REGISTRY = "tools.convert_units:registry"
HOSTILE_UNITS = [
    "m^3^3^3^3",
    "m^3^3^3",
    "m^3^3",
    "m**3**3**3",
    "m**9**9**9",
    "km^2^2^2^2^2^2",
    "m ^3 ^3 ^3 ^3",
    "m^ 3^ 3^ 3^ 3",
    "m^(3^3^3^3)",
    "(m^3)^3^3",
    "((((((((m))))))))^3",
    "m³³³",
    "m²²²²",
    "m⁹⁹⁹",
    "m³^3^3",
    "m^99",
    "m**-9999",
    "m^1e9",
    "m^3.0^3",
    "m^²",
    "m/s/s/s/s/s/s/s/s/s/s/s",
    "m^3*m^3*m^3*m^3*m^3",
    "m " * 30,
    "m" + "/s" * 5000,
    "x" * 100_000,
    "m*" * 20 + "m",
    "**3",
    "m^",
    "__import__('os')",
    "m\x00^3",
]


def offline_turn(text: str) -> str:
    """One turn of the offline agent with this tool: what the person is shown at the end."""
    import asyncio

    from agent import Agent
    from agent.models import OfflineModel

    async def turn() -> str:
        events = [e async for e in Agent(OfflineModel(), [ConvertUnits()]).run(text)]
        return f"{events[-1].type}: {getattr(events[-1], 'question', '') or events[-1].text}"

    return asyncio.run(turn())


@pytest.fixture(scope="module")
def validated():
    calls = [[{"value": 5, "from_unit": unit, "to_unit": "km"}] for unit in HOSTILE_UNITS]
    calls += [[{"value": 5, "from_unit": "m", "to_unit": unit}] for unit in HOSTILE_UNITS]
    return run_bounded("tools.convert_units:ConvertArgs.model_validate", calls, setup=[REGISTRY])


@pytest.mark.parametrize("index", range(len(HOSTILE_UNITS)))
def test_hostile_units_from_the_model_are_refused_at_once(validated, index):
    for outcome, field in ((validated[index], "from_unit"),
                           (validated[len(HOSTILE_UNITS) + index], "to_unit")):  # fmt: skip
        assert outcome.finished and outcome.seconds < 2, f"{outcome.args} ran too long"
        assert outcome.raised("ValidationError"), outcome
        assert field in outcome.message and "Unknown unit" in outcome.message


def test_chained_exponents_say_what_a_unit_may_carry(validated):
    message = validated[0].message
    assert "at most one exponent, a whole number from -3 to 3" in message


HOSTILE_REQUESTS = [
    "convert 5 m^3^3^3^3 to km",
    "convert 5 m**9**9**9 to km",
    "convert 5 m³³³ to km",
    "5 km^2^2^2^2^2 in m",
    "how many m^3^3^3^3 in 5 km",
    "convert 5 " + "m/" * 5000 + "s to km",
    "convert " + "9" * 5000 + " m to km",
    "5公里^3^3^3^3等于多少英里",
]


@pytest.fixture(scope="module")
def requests_handled():
    calls = [[text, [], {}] for text in HOSTILE_REQUESTS]
    extracted = run_bounded("tools.convert_units:ConvertUnits().extract", calls, setup=[REGISTRY])
    turns = run_bounded(
        "tests.test_tool_convert_units:offline_turn",
        [[text] for text in HOSTILE_REQUESTS],
        setup=[REGISTRY],
        seconds=5,
    )
    return list(zip(extracted, turns, strict=True))


@pytest.mark.parametrize("index", range(len(HOSTILE_REQUESTS)))
def test_hostile_units_in_the_request_end_quickly(requests_handled, index):
    extracted, turn = requests_handled[index]
    text = HOSTILE_REQUESTS[index][:40]
    assert extracted.finished and extracted.seconds < 2, f"extract({text!r}) ran too long"
    assert extracted.result is not None and "^3^3" not in extracted.result, extracted
    assert turn.finished and turn.result is not None, f"the turn for {text!r} hung"
    # Asked again, told why not, or declined: never a conversion of a unit it misread.
    assert " = " not in turn.result, turn.result
