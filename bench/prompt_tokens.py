"""Prompt tokens per task in each prompt style, on the shipped scenarios.

Every shipped scenario runs twice on the offline model, once in each prompt style (`react`,
the multimodal ReAct header; `plugin-task`, the task-dialogue prompts), the style forced on
every scenario whatever its file says. Per style: the turns, the model calls, the prompt and
reply tokens per turn (the offline model's estimate, about four characters a token: the same
estimate for both, so the ratio holds), and the scenarios that passed. The two tool protocols
are compared with a model that makes native calls in `bench/protocols.py`.

Run from the repository root:

    .venv/bin/python bench/prompt_tokens.py
    .venv/bin/python bench/prompt_tokens.py scenarios/tools_en.yaml
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent import Agent
from agent.models import OfflineModel
from agent.scenarios.format import Scenario, load_file, scenario_files
from agent.scenarios.results import RunResult
from agent.scenarios.run import run_scenario

STYLES = ("react", "plugin-task")


async def run_style(scenarios: list[Scenario], style: str) -> list[RunResult]:
    def make_agent(scenario: Scenario, model: object) -> Agent:
        return Agent(model, language=scenario.language, style=style, approval=scenario.approval)

    return [await run_scenario(s, OfflineModel(), make_agent=make_agent) for s in scenarios]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["scenarios/"], help="scenario files")
    args = parser.parse_args(argv)
    files, invalid = scenario_files(args.paths)
    if invalid:
        sys.exit("; ".join(e.message for e in invalid))
    scenarios = [s for f in files for s in load_file(f)]
    rows = []
    for style in STYLES:
        results = asyncio.run(run_style(scenarios, style))
        turns = [t for r in results for t in r.turns]
        prompt = sum(t.tokens.input for t in turns)
        reply = sum(t.tokens.output for t in turns)
        calls = sum(t.model_calls for t in turns)
        passed = sum(r.passed for r in results)
        rows.append((style, len(turns), calls, prompt, reply, passed, len(results)))
    print(f"{len(scenarios)} scenarios, offline model (tokens estimated alike for both styles)\n")
    print(f"{'style':<12} {'turns':>5} {'calls':>6} {'prompt/turn':>12} {'reply/turn':>11}  passed")
    for style, turns, calls, prompt, reply, passed, total in rows:
        print(
            f"{style:<12} {turns:>5} {calls:>6} {prompt / turns:>12,.0f} {reply / turns:>11,.1f}"
            f"  {passed}/{total}"
        )
    react, plugin = rows[0][3] / rows[0][1], rows[1][3] / rows[1][1]
    print(f"\nplugin-task / react prompt tokens per turn = {plugin / react:.2f}")


if __name__ == "__main__":
    main()
