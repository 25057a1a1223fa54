"""The concurrency benchmark still runs: two conversations at a short model delay, end to end."""

from __future__ import annotations

import pytest

from bench import concurrency

pytestmark = pytest.mark.bench


def test_the_app_and_the_bare_page_answer_parallel_conversations():
    rows = concurrency.measure(n=2, delay=0.2, repeat=1)

    by_name = {row.page: row for row in rows}
    assert set(by_name) == {"app", "bare"}
    # The bare page is held to the app's limit, whatever main() gives it.
    assert by_name["bare"].limit == by_name["app"].limit
    for row in rows:
        assert sorted(row.walls) == [1, 2]
        # Each turn waits for the model at least once.
        assert all(wall >= 0.2 for walls in row.walls.values() for wall in walls)
    text = concurrency.report(rows, n=2, delay=0.2)
    assert "app slowdown / bare slowdown" in text


def test_a_turn_with_the_wrong_answer_is_not_timed_as_a_success():
    chat = [{"role": "assistant", "content": [{"type": "text", "text": "no"}]}]
    assert concurrency.app_answer((chat,)) == "no"
    assert concurrency.app_answer(([],)) == ""
    assert concurrency.bare_answer("Thought: done\nAnswer: hello") == "hello"
