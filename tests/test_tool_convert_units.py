import pytest
from pydantic import ValidationError

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
    assert "[mass]" in str(error.value) and "[length]" in str(error.value)


def test_infinite_result_is_refused(tool):
    with pytest.raises(ToolInputError, match="too large"):
        convert(tool, 1e308, "km", "nm")


@pytest.mark.parametrize(
    "unit", ["furlongz", "../etc/passwd", "", "m**9999", "°F in celsius", "x" * 80]
)
def test_unknown_units_are_rejected_with_examples(unit):
    with pytest.raises(ValidationError) as error:
        ConvertArgs.model_validate({"value": 1, "from_unit": unit, "to_unit": "km"})
    assert "from_unit" in str(error.value)
    assert "Unknown unit" in str(error.value) and "km, mile" in str(error.value)


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


def test_extracted_arguments_validate_and_run(tool):
    found = tool.extract("5公里等于多少英里", [], {})
    result = tool.run(ConvertArgs.model_validate(found), None)
    assert result.data["result"] == pytest.approx(3.10685596)
