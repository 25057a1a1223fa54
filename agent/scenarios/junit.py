"""JUnit XML for CI: a test suite per file, a test case per scenario run (named after the
scenario, `name [run 2]` for repeats), an error case for each file that could not be read."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from .format import FileError
from .report import transcript
from .results import RunResult

# Characters XML 1.0 cannot carry at all; a model's reply may contain them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def junit_xml(
    results: Sequence[RunResult], invalid: Sequence[FileError], model: str | None = None
) -> ET.Element:
    """The results as JUnit XML; `model` names the model they are of, when several are
    compared (each has a file of its own, and CI shows the root's name)."""
    root = ET.Element("testsuites", name=f"scenarios: {_safe(model)}" if model else "scenarios")
    suites: dict[str, ET.Element] = {}
    for result in results:
        suite = suites.get(result.file)
        if suite is None:
            suite = suites[result.file] = ET.SubElement(root, "testsuite", name=result.file)
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_class_name(result.file),
            name=_safe(result.test_name),
            time=f"{result.duration:.3f}",
        )
        _properties(case, result)
        if not result.passed:
            failure = ET.SubElement(
                case, "failure", message=_safe(result.failures[0]), type="ScenarioFailed"
            )
            failure.text = _safe("\n".join(result.failures))
        ET.SubElement(case, "system-out").text = _safe(transcript(result))
    for error in invalid:
        suite = ET.SubElement(root, "testsuite", name=error.file)
        case = ET.SubElement(
            suite, "testcase", classname=_class_name(error.file), name=Path(error.file).name
        )
        problem = ET.SubElement(
            case, "error", message=_safe(error.message), type="InvalidScenarioFile"
        )
        problem.text = _safe("\n".join(error.problems))
        suites[error.file] = suite
    for suite in [root, *suites.values()]:
        _count(suite)
    return root


def write_junit(
    path: str | Path,
    results: Sequence[RunResult],
    invalid: Sequence[FileError],
    model: str | None = None,
) -> None:
    tree = ET.ElementTree(junit_xml(results, invalid, model))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def _properties(case: ET.Element, result: RunResult) -> None:
    """The run's model calls and tokens (and cost, when priced), as CI shows a case's data."""
    tokens = result.tokens
    named = {
        "model_calls": result.model_calls,
        "tokens.input": tokens.input,
        "tokens.output": tokens.output,
        "tokens.cached": tokens.cached,
        "tokens.estimated": str(tokens.estimated).lower(),
        "cost": None if tokens.cost is None else f"{tokens.cost:.6f}",
    }
    properties = ET.SubElement(case, "properties")
    for name, value in named.items():
        if value is not None:
            ET.SubElement(properties, "property", name=name, value=str(value))


def _count(element: ET.Element) -> None:
    cases = list(element.iter("testcase"))
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    element.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    element.set("time", f"{sum(float(c.get('time', 0)) for c in cases):.3f}")


def _class_name(file: str) -> str:
    stem = Path(file).with_suffix("").as_posix().strip("./")
    return re.sub(r"[/\\]+", ".", stem) or "scenarios"


def _safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
