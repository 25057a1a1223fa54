"""What the Scenarios tab and the scenario files say about what went wrong, worded for people:
a broken JSON file is told of as JSON, a validator's sentence has no library prefix, one more
problem is singular, an erroring turn chose no tools rightly, an upload goes by the name it
was uploaded under, a JUnit file names its model."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from gradio.data_classes import FileData, ListFiles
from gradio.utils import NamedString

from agent.config import Settings
from agent.models import OfflineModel
from agent.scenarios import InvalidFile, load_file
from agent.scenarios.expect import check_turn
from agent.scenarios.format import Expect, FileError
from agent.scenarios.junit import junit_xml
from agent.scenarios.results import TurnResult
from ui.handlers import PageHandlers
from ui.layout import ScenarioFiles
from ui.scenarios_tab.handlers import ScenarioTab
from ui.scenarios_tab.runs import invalid_sentence

PASSING = """\
name: adds
turns:
  - user: "What is 3 + 4?"
    expect: {outcome: answer, tools: [calculator], answer_matches: "7"}
"""

pytestmark = pytest.mark.usefixtures("no_model_env")


# The run's progress bar, which no one watches here.
no_progress: Any = lambda *_, **__: None  # noqa: E731


def problems(path: Path) -> list[str]:
    with pytest.raises(InvalidFile) as caught:
        load_file(path)
    return caught.value.error.problems


def test_a_broken_json_file_is_said_to_be_broken_json(tmp_path):
    path = tmp_path / "case.json"
    path.write_text('{"name": "x",\n "turns": [}\n', encoding="utf-8")
    (problem,) = problems(path)
    assert f"{path}:2: not valid JSON: " in problem and "YAML" not in problem
    upper = tmp_path / "CASE.JSON"
    upper.write_text("{", encoding="utf-8")
    assert "not valid JSON" in problems(upper)[0]
    # A .yaml file is still told of as YAML.
    yaml_file = tmp_path / "case.yaml"
    yaml_file.write_text("name: [", encoding="utf-8")
    assert "not valid YAML" in problems(yaml_file)[0]


def test_a_validators_sentence_is_said_without_the_librarys_prefix(tmp_path):
    path = tmp_path / "case.yaml"
    body = """\
        name: x
        turns:
          - user: hi
            expect: {outcome: answer, asks_for: [place]}
        """
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    (problem,) = problems(path)
    assert problem.endswith("turn 1 expect: asks_for needs outcome: ask")
    assert "Value error" not in problem


def test_one_more_problem_is_said_in_the_singular():
    def said(count: int) -> str:
        problems = [f"f.yaml:{n}: wrong" for n in range(1, count + 2)]
        return invalid_sentence(FileError(file="f.yaml", problems=problems), "en")

    assert said(1).endswith("(1 more problem in the JSON and JUnit downloads.)")
    assert said(2).endswith("(2 more problems in the JSON and JUnit downloads.)")
    assert "problem(s)" not in said(1) + said(2)


def test_an_erroring_turn_has_not_chosen_its_tools_rightly():
    expect = Expect(outcome="end", tools=[])
    failed = TurnResult(user="bye", outcome="error", decision="error", text="500")
    assert check_turn(1, expect, failed).checks == {"tools": False}
    ended = TurnResult(user="bye", outcome="end", decision="end")
    assert check_turn(1, expect, ended).checks == {"tools": True}
    # A turn expected to end in an error still has its tools checked.
    assert check_turn(1, Expect(outcome="error", tools=[]), failed).checks == {"tools": True}


def test_a_junit_file_of_a_comparison_names_its_model():
    assert junit_xml([], [], "gpt-x · native").get("name") == "scenarios: gpt-x · native"
    assert junit_xml([], []).get("name") == "scenarios"


def test_the_file_input_keeps_the_name_each_upload_was_given(tmp_path):
    stored = tmp_path / "my case 1.yaml"
    stored.write_text(PASSING, encoding="utf-8")
    files = ScenarioFiles(file_count="multiple", file_types=[".yaml"])
    payload = ListFiles(root=[FileData(path=str(stored), orig_name="my case {1}!.yaml")])
    (path,) = files.preprocess(payload)
    assert path == str(stored) and path.orig_name == "my case {1}!.yaml"


async def test_an_upload_goes_by_the_name_it_was_uploaded_under(tmp_path):
    stored = tmp_path / "my case 1.yaml"  # as the server stored it, characters left out
    stored.write_text(PASSING, encoding="utf-8")
    upload = NamedString(str(stored))
    upload.orig_name = "my case {1}!.yaml"  # type: ignore[attr-defined]
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    out = await ScenarioTab(page).run([], [upload], None, no_progress)
    table = out[2]
    assert table.value["data"][0][-1] == "my case {1}!.yaml"
    # A name the browser sends with a folder in it is only a name here.
    upload = NamedString(str(stored))
    upload.orig_name = "../../etc/x.yaml"  # type: ignore[attr-defined]
    out = await ScenarioTab(page).run([], [upload], None, no_progress)
    assert out[2].value["data"][0][-1] == "x.yaml"
