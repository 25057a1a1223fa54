"""The operator's price table (`AGENT_PRICES`): what a model's tokens cost, per million.

`{"gpt-4o-mini": {"input": 0.15, "output": 0.6, "cached": 0.075}}`: `cached` (the price of
input tokens the service had cached) is optional and defaults to `input`. The figures are in
whatever currency the table is written in; the page shows the number as it comes out.
A table that cannot be read is said once, in one sentence in the log, and costs go unshown:
the page still starts.
"""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

log = logging.getLogger(__name__)


class Price(BaseModel):
    """One model's prices per million tokens."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached: float | None = Field(default=None, ge=0)


PriceTable = dict[str, Price]
_TABLE: TypeAdapter[PriceTable] = TypeAdapter(PriceTable)


def table_problem(text: str) -> str | None:
    """One sentence saying why `text` is not a price table, or None when it is one (or empty)."""
    if not text.strip():
        return None
    try:
        _TABLE.validate_python(json.loads(text))
    except ValueError as exc:  # JSON and pydantic's ValidationError alike
        if isinstance(exc, ValidationError):
            where = ".".join(str(p) for p in exc.errors()[0]["loc"])
            why = f"{where}: {exc.errors()[0]['msg']}"
        else:
            why = str(exc)
        return (
            "AGENT_PRICES is not a price table (JSON such as "
            '{"gpt-4o-mini": {"input": 0.15, "output": 0.6}}, prices per million tokens): '
            f"{why}; costs are not shown."
        )
    return None


@functools.lru_cache(maxsize=8)
def read_prices(text: str) -> PriceTable:
    """The table in `text` (AGENT_PRICES); empty, with the reason logged once, when it cannot
    be read."""
    problem = table_problem(text)
    if problem is not None:
        log.warning(problem)
        return {}
    return _TABLE.validate_python(json.loads(text)) if text.strip() else {}


def call_cost(
    table: PriceTable, model: str, input: int, output: int, cached: int | None = None
) -> float | None:
    """What one call cost by `table`, or None when the model has no price in it."""
    price = table.get(model)
    if price is None:
        return None
    cached = min(cached or 0, input)
    cached_price = price.input if price.cached is None else price.cached
    per_million = (input - cached) * price.input + cached * cached_price + output * price.output
    return per_million / 1_000_000


def priced(counts: dict[str, Any], table: PriceTable, model: str) -> dict[str, Any]:
    """A `model_call` event's token fields (`agent.tokens.call_counts`) with the call's cost."""
    if counts["input_tokens"] is None:
        return {**counts, "cost": None}
    inputs, outputs = counts["input_tokens"], counts["output_tokens"] or 0
    return {**counts, "cost": call_cost(table, model, inputs, outputs, counts["cached_tokens"])}
