"""Token estimates where a service counts none, sums over calls, and the price table."""

from __future__ import annotations

import logging

import pytest

from agent.config import Settings
from agent.events import ModelCallEvent
from agent.prices import call_cost, read_prices, table_problem
from agent.tokens import IMAGE_TOKENS, MESSAGE_TOKENS, Tokens, request_tokens, text_tokens


def call(i: int | None, o: int | None, **more) -> ModelCallEvent:
    return ModelCallEvent(step=1, model="m", duration=0.1, input_tokens=i, output_tokens=o, **more)


def test_chinese_is_about_a_token_a_character_and_english_about_four_characters():
    assert text_tokens("") == 0
    assert text_tokens("abcd") == 1 and text_tokens("abcde") == 2
    assert text_tokens("图片里有什么") == 6
    assert text_tokens("图片 img_1") == 2 + 2  # two characters, then " img_1" is six others


def test_a_request_counts_each_message_and_a_fixed_figure_per_image():
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 9000}}
    messages = [
        {"role": "system", "content": "abcd" * 10},
        {"role": "user", "content": [{"type": "text", "text": "看图"}, image, image]},
    ]
    assert request_tokens(messages) == 2 * MESSAGE_TOKENS + 10 + 2 + 2 * IMAGE_TOKENS


def test_tokens_add_up_and_say_when_any_figure_is_a_guess():
    tokens = Tokens.of([call(100, 20, cached_tokens=40), call(50, 5, estimated=True)])
    assert (tokens.input, tokens.output, tokens.cached, tokens.total) == (150, 25, 40, 175)
    assert tokens.estimated
    assert Tokens.of([call(1, 1)]).cached is None  # nobody said: not zero


def test_a_cost_is_only_a_sum_of_priced_calls():
    assert Tokens.of([call(1, 1, cost=0.5), call(1, 1, cost=0.25)]).cost == 0.75
    assert Tokens.of([call(1, 1, cost=0.5), call(1, 1)]).cost is None
    # A call that failed before anything was read costs nothing and leaves the sum alone.
    assert Tokens.of([call(None, None), call(1, 1, cost=0.5)]).cost == 0.5


def test_the_price_table_prices_cached_input_at_its_own_rate():
    table = read_prices('{"m": {"input": 2, "output": 8, "cached": 1}}')
    assert call_cost(table, "m", 1_000_000, 500_000) == pytest.approx(6.0)
    assert call_cost(table, "m", 1_000_000, 0, cached=400_000) == pytest.approx(1.6)
    assert call_cost(table, "other", 10, 10) is None
    plain = read_prices('{"m": {"input": 2, "output": 8}}')
    assert call_cost(plain, "m", 1_000_000, 0, cached=400_000) == pytest.approx(2.0)


@pytest.mark.parametrize(
    "text", ["{not json", '{"m": {"input": 1}}', '{"m": {"input": -1, "output": 1}}', "[1]"]
)
def test_a_table_that_cannot_be_read_is_one_sentence_and_no_crash(text, monkeypatch, caplog):
    problem = table_problem(text)
    assert problem and problem.startswith("AGENT_PRICES is not a price table")
    assert "\n" not in problem and problem.endswith("costs are not shown.")
    read_prices.cache_clear()
    monkeypatch.setenv("AGENT_PRICES", text)
    with caplog.at_level(logging.WARNING, logger="agent.prices"):
        settings = Settings()
        Settings()
    assert settings.price_table() == {}
    assert [r.getMessage() for r in caplog.records] == [problem]  # said once


def test_the_setting_reads_a_table(monkeypatch):
    monkeypatch.setenv("AGENT_PRICES", '{"gpt-4o-mini": {"input": 0.15, "output": 0.6}}')
    assert Settings().price_table()["gpt-4o-mini"].output == 0.6
