"""Reading scenario files: the forms a file may take, and mistakes reported with their line."""

import json
import textwrap
from pathlib import Path

import pytest

from agent.scenarios import InvalidFile, load_file, scenario_files

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(InvalidFile) as caught:
        load_file(path)
    return caught.value.error.problems


def test_one_scenario_in_a_file(tmp_path):
    path = write(
        tmp_path / "one.yaml",
        """
        name: conversion asks for the unit
        language: en
        style: plugin-task
        turns:
          - user: "Convert 5 miles"
            expect: {outcome: ask, asks_for: [to_unit]}
          - user: km
            expect:
              outcome: answer
              tools: [convert_units]
              args: {convert_units: {from_unit: mile}}
              answer_matches: "8\\\\.0[45]"
              answer_contains: km
        """,
    )
    (scenario,) = load_file(path)
    assert scenario.name == "conversion asks for the unit"
    assert (scenario.language, scenario.style) == ("en", "plugin-task")
    assert scenario.turns[0].expect.asks_for == ["to_unit"]
    second = scenario.turns[1].expect
    assert second.args == {"convert_units": {"from_unit": "mile"}}
    assert second.answer_matches == r"8\.0[45]"
    # A single string is a list of one.
    assert second.answer_contains == ["km"]
    assert scenario.file == str(path) and scenario.line == 1


def test_a_list_of_scenarios_keeps_their_order_and_lines(tmp_path):
    path = write(
        tmp_path / "many.yml",
        """
        - name: first
          turns:
            - {user: hi, expect: {outcome: ask}}
        - name: second
          turns:
            - {user: bye, expect: {outcome: end}}
        """,
    )
    first, second = load_file(path)
    assert (first.name, second.name) == ("first", "second")
    assert (first.line, second.line) == (1, 4)


def test_the_same_scenarios_as_json(tmp_path):
    document = [
        {"name": "json one", "turns": [{"user": "hi", "expect": {"outcome": "ask"}}]},
        {"name": "json two", "turns": [{"user": "3 + 4", "expect": {"outcome": "answer"}}]},
    ]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert [s.name for s in load_file(path)] == ["json one", "json two"]


def test_json_that_yaml_cannot_read_is_still_read(tmp_path):
    path = tmp_path / "escaped.json"
    # "\/" is a valid JSON escape that YAML refuses.
    path.write_text(
        '{"name": "a\\/b", "turns": [{"user": "hi", "expect": {"outcome": "ask"}}]}',
        encoding="utf-8",
    )
    assert load_file(path)[0].name == "a/b"


def test_images_are_relative_to_the_scenario_file(tmp_path):
    folder = tmp_path / "nested"
    folder.mkdir()
    (folder / "pics").mkdir()
    (folder / "pics" / "sign.png").write_bytes((EXAMPLES / "sign.png").read_bytes())
    path = write(
        folder / "images.yaml",
        """
        name: reads a sign
        turns:
          - user: read the text
            images: [pics/sign.png]
            expect: {outcome: answer}
        """,
    )
    from agent.scenarios.format import image_paths

    (scenario,) = load_file(path)
    (image,) = image_paths(scenario, scenario.turns[0])
    assert image.resolve() == (folder / "pics" / "sign.png").resolve()


def test_an_unknown_key_is_named_with_its_line(tmp_path):
    path = write(
        tmp_path / "typo.yaml",
        """
        name: typo
        turns:
          - user: hi
            expect:
              outcome: ask
              asks_fro: [place]
        """,
    )
    (problem,) = problems(path)
    assert f"{path}:6:" in problem
    assert "unknown key 'asks_fro'" in problem and "turn 1" in problem


def test_an_unknown_key_at_the_top_and_in_a_later_scenario(tmp_path):
    path = write(
        tmp_path / "typos.yaml",
        """
        - name: fine
          turns:
            - {user: hi, expect: {outcome: ask}}
        - name: typo
          descripton: misspelt
          turns:
            - {user: hi, expect: {outcome: ask}}
        """,
    )
    (problem,) = problems(path)
    assert f"{path}:5:" in problem and "'descripton'" in problem and "scenario 2" in problem


def test_a_missing_required_key_points_at_its_mapping(tmp_path):
    path = write(
        tmp_path / "missing.yaml",
        """
        name: no outcome
        turns:
          - user: hi
            expect:
              tools: [calculator]
        """,
    )
    (problem,) = problems(path)
    assert f"{path}:5:" in problem and "missing key 'outcome'" in problem


@pytest.mark.parametrize(
    ("expect", "words"),
    [
        ("{outcome: maybe}", "outcome"),
        ("{outcome: answer, answer_matches: '(unclosed'}", "regular expression"),
        ("{outcome: answer, asks_for: [place]}", "asks_for needs outcome: ask"),
    ],
)
def test_values_the_format_refuses(tmp_path, expect, words):
    path = write(tmp_path / "bad.yaml", f"name: x\nturns:\n  - user: hi\n    expect: {expect}\n")
    (problem,) = problems(path)
    assert words in problem and f"{path}:4:" in problem


def test_invalid_yaml_is_reported_with_its_line(tmp_path):
    path = write(tmp_path / "broken.yaml", "name: x\nturns:\n  - user: [unclosed\n")
    (problem,) = problems(path)
    assert "not valid YAML" in problem and str(path) in problem


def test_an_unclosed_quote_names_the_line_it_began_on(tmp_path):
    text = 'name: x\nturns:\n  - user: "hi\n    expect:\n      tools: []\n'
    path = write(tmp_path / "quote.yaml", text)
    (problem,) = problems(path)
    assert "while scanning a quoted scalar, which began on line 3" in problem


def test_a_key_written_twice_is_an_error(tmp_path):
    path = write(
        tmp_path / "twice.yaml",
        """
        name: x
        turns:
          - user: hi
            expect: {outcome: ask}
        name: y
        """,
    )
    (problem,) = problems(path)
    assert "appears twice" in problem and ":5" in problem


def test_a_missing_image_is_named(tmp_path):
    path = write(
        tmp_path / "noimage.yaml",
        """
        name: x
        turns:
          - user: read it
            images:
              - nowhere.png
            expect: {outcome: answer}
        """,
    )
    (problem,) = problems(path)
    assert "'nowhere.png' not found" in problem and f"{path}:5:" in problem


def test_the_same_name_twice_in_a_file_is_an_error(tmp_path):
    path = write(
        tmp_path / "dupes.yaml",
        """
        - {name: same, turns: [{user: hi, expect: {outcome: ask}}]}
        - {name: same, turns: [{user: hi, expect: {outcome: ask}}]}
        """,
    )
    (problem,) = problems(path)
    assert "'same' is used twice" in problem


@pytest.mark.parametrize("text", ["", "[]", "just words\n", "- 3\n"])
def test_files_that_hold_no_scenario(tmp_path, text):
    path = tmp_path / "empty.yaml"
    path.write_text(text, encoding="utf-8")
    assert problems(path)


def test_folders_list_their_scenario_files_sorted(tmp_path):
    for name in ("b.yaml", "a.json", "c.yml", "notes.txt"):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    files, errors = scenario_files([tmp_path, tmp_path / "nowhere.yaml"])
    assert [f.name for f in files] == ["a.json", "b.yaml", "c.yml"]
    (error,) = errors
    assert error.file.endswith("nowhere.yaml") and "no such file" in error.message
