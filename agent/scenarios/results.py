"""What running a scenario produced: per turn what was seen, per run whether it passed."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from agent.tokens import Tokens

Seen = Literal["answer", "ask", "end", "error"]
# The decision a turn made, as When2Call and the Orion-14B plugin table count them.
Decision = Literal["tool", "ask", "no_tool", "end", "error"]
# The decision of a turn that did not answer.
UNANSWERED: dict[str, Decision] = {"ask": "ask", "end": "end", "error": "error"}


class Call(BaseModel):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool | None = None


class TurnResult(BaseModel):
    user: str
    images: list[str] = Field(default_factory=list)
    outcome: Seen
    decision: Decision
    expected_decision: Decision | None = None
    calls: list[Call] = Field(default_factory=list)
    # The answer, the question asked, or the error message: whatever ended the turn.
    text: str = ""
    asked_for: list[str] = Field(default_factory=list)
    error_kind: str | None = None
    model_calls: int = 0
    # The model calls' tokens, and their cost by AGENT_PRICES (`agent.tokens.Tokens`).
    tokens: Tokens = Field(default_factory=Tokens)
    duration: float = 0.0
    # Expectations this turn stated, by name ("tools", "args", "answer"), and whether they held.
    checks: dict[str, bool] = Field(default_factory=dict)
    failures: list[str] = Field(default_factory=list)
    events: list[dict[str, Any]] = Field(default_factory=list)

    @computed_field
    @property
    def tools(self) -> list[str]:
        return [call.tool for call in self.calls]


class RunResult(BaseModel):
    scenario: str
    file: str
    run: int = 1
    style: str | None = None
    language: str | None = None
    turns: list[TurnResult] = Field(default_factory=list)
    duration: float = 0.0

    @computed_field
    @property
    def failures(self) -> list[str]:
        return [failure for turn in self.turns for failure in turn.failures]

    @computed_field
    @property
    def passed(self) -> bool:
        return not self.failures

    @computed_field
    @property
    def model_calls(self) -> int:
        return sum(turn.model_calls for turn in self.turns)

    @computed_field
    @property
    def tokens(self) -> Tokens:
        return Tokens.summed(turn.tokens for turn in self.turns)

    @computed_field
    @property
    def test_name(self) -> str:
        """The name a report gives this run: the scenario's, marked from the second run on."""
        return self.scenario if self.run == 1 else f"{self.scenario} [run {self.run}]"
