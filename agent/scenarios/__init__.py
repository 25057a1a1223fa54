"""Scenarios: conversations written down with what each turn must do, run against the agent.

`python -m agent.scenarios PATH...` runs them (see `__main__`). The parts: `format` reads the
files, `run` plays them through `Agent.run`, `expect` checks each turn, `score` sums up,
`report` and `junit` write the results.
"""

from .format import Expect, FileError, InvalidFile, Scenario, TurnSpec, load_file, scenario_files
from .results import RunResult, TurnResult
from .run import run_all, run_scenario
from .score import Scores, macro_f1, score

__all__ = [
    "Expect",
    "FileError",
    "InvalidFile",
    "RunResult",
    "Scenario",
    "Scores",
    "TurnResult",
    "TurnSpec",
    "load_file",
    "macro_f1",
    "run_all",
    "run_scenario",
    "scenario_files",
    "score",
]
