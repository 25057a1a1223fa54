"""Scores over scenario runs.

- pass rate over runs, and pass^k: a scenario counts only if all its k runs passed;
- decision macro-F1 over turns (When2Call; the Orion-14B plugin table): did the turn use a
  tool, ask for a parameter, find that no tool fits, or end. Averaged over the decisions the
  scenarios expect; a turn that errors is simply a wrong decision;
- tool, argument and answer accuracy (GTA), each over the turns that state that expectation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, Field, computed_field

from .results import RunResult

DECISIONS = ("tool", "ask", "no_tool", "end", "error")


class Ratio(BaseModel):
    hits: int = 0
    total: int = 0

    @computed_field
    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def text(self) -> str:
        if not self.total:
            return "n/a"
        return f"{self.hits}/{self.total} ({100 * self.hits / self.total:.1f}%)"


class Scores(BaseModel):
    runs: Ratio
    pass_k: Ratio
    k: int
    decision_f1: float | None
    decision_turns: int
    per_decision: dict[str, float] = Field(default_factory=dict)
    tool_accuracy: Ratio
    args_accuracy: Ratio
    answer_accuracy: Ratio


def score(results: Sequence[RunResult], repeat: int = 1) -> Scores:
    by_scenario: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for result in results:
        by_scenario[(result.file, result.scenario)].append(result.passed)
    pairs = [
        (turn.expected_decision, turn.decision)
        for result in results
        for turn in result.turns
        if turn.expected_decision is not None
    ]
    f1, per_class = macro_f1(pairs)
    return Scores(
        runs=Ratio(hits=sum(r.passed for r in results), total=len(results)),
        pass_k=Ratio(hits=sum(all(p) for p in by_scenario.values()), total=len(by_scenario)),
        k=repeat,
        decision_f1=f1,
        decision_turns=len(pairs),
        per_decision=per_class,
        tool_accuracy=_accuracy(results, "tools"),
        args_accuracy=_accuracy(results, "args"),
        answer_accuracy=_accuracy(results, "answer"),
    )


def macro_f1(pairs: Sequence[tuple[str, str]]) -> tuple[float | None, dict[str, float]]:
    """Macro-averaged F1 of (expected, seen) pairs over the classes that are expected.

    A class never expected is left out of the average (it has no recall to speak of), but
    seeing it where something else was expected still costs that class its recall and F1.
    """
    expected = [e for e, _ in pairs]
    classes = [c for c in DECISIONS if c in expected] + sorted(set(expected) - set(DECISIONS))
    per_class: dict[str, float] = {}
    for cls in classes:
        true_pos = sum(1 for e, s in pairs if e == cls and s == cls)
        predicted = sum(1 for _, s in pairs if s == cls)
        actual = sum(1 for e, _ in pairs if e == cls)
        precision = true_pos / predicted if predicted else 0.0
        recall = true_pos / actual if actual else 0.0
        total = precision + recall
        per_class[cls] = 2 * precision * recall / total if total else 0.0
    if not per_class:
        return None, {}
    return sum(per_class.values()) / len(per_class), per_class


def _accuracy(results: Sequence[RunResult], check: str) -> Ratio:
    held = [turn.checks[check] for r in results for turn in r.turns if check in turn.checks]
    return Ratio(hits=sum(held), total=len(held))


def score_lines(scores: Scores) -> list[str]:
    """The scores as the command prints them."""
    f1 = "n/a" if scores.decision_f1 is None else f"{scores.decision_f1:.3f}"
    classes = ", ".join(f"{name} {value:.2f}" for name, value in scores.per_decision.items())
    rows = [
        ("pass rate", f"{scores.runs.text()} of scenario runs"),
        (f"pass^{scores.k}", f"{scores.pass_k.text()} of scenarios passing all {scores.k} runs"),
        (
            "decision F1",
            f"{f1} macro over {scores.decision_turns} turns" + (f" ({classes})" if classes else ""),
        ),
        ("tool accuracy", f"{scores.tool_accuracy.text()} of turns that state tools"),
        ("args accuracy", f"{scores.args_accuracy.text()} of turns that state args"),
        ("answer accuracy", f"{scores.answer_accuracy.text()} of turns that check the answer"),
    ]
    return [f"{label:<17}{value}" for label, value in rows]
