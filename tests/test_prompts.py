"""Prompt text: protocols kept exactly, placeholders filled, both languages."""

from __future__ import annotations

import json

import pytest

from agent import prompts
from tests.conftest import BookTrip, Echo


@pytest.mark.parametrize("language", ["en", "zh"])
def test_react_header_lists_tools_and_control_actions(language):
    header = prompts.react_header([Echo(), BookTrip()], language)
    assert "> Tool Name: book_trip" in header
    args_line = next(line for line in header.splitlines() if line.startswith("Tool Args:"))
    assert json.loads(args_line.removeprefix("Tool Args: "))["required"] == ["text"]
    for name in prompts.CONTROL_ACTIONS:
        assert f"> Tool Name: {name}" in header
    for label in ("Thought:", "Action:", "Action Input:", "Observation:", "Answer:"):
        assert label in header
    assert '{"input": "hello world", "num_beams": 5}' in header
    assert "{tool_desc}" not in header and "{tool_names}" not in header


def test_react_header_has_no_stray_indentation():
    header = prompts.react_header([Echo()], "en")
    assert not any(line.startswith("    ") for line in header.splitlines())
    assert "should not assume knowledge of the image" not in header
    assert "image_id" in header


def test_intent_prompt_keeps_the_seed_protocol():
    text = prompts.intent_prompt([BookTrip()], "book a trip", "zh")
    assert "ASK_USER_FOR_REQUIRED_PARAMS: 当所列工具能够解决用户问题但缺少必要参数时" in text
    assert '"tool_to_use_for_user"' in text and '"known_params"' in text
    assert "should be one of [book_trip,end_conversation,ASK_USER_FOR_INTENT," in text
    assert text.rstrip().endswith("Question: book a trip")
    assert '"city": {"description": "The city to travel to.", "required": true' in text


def test_filling_slot_and_final_prompts():
    steps = 'Thought: {}\nAction: ASK_USER_FOR_REQUIRED_PARAMS\nAction Input: {"question": "?"}'
    text = prompts.filling_slot_prompt(BookTrip(), "book a trip", steps, "en")
    assert text.startswith("Answer the following questions as best you can.")
    assert "book_trip: Book a train trip" in text and "TOOL_OTHER" not in text
    assert text.rstrip().endswith(steps)
    final = prompts.final_prompt("book a trip", steps)
    assert final == f"Question: book a trip\n{steps}\nFinal Answer: "


def test_a_missing_placeholder_fails_loudly():
    with pytest.raises(prompts.PromptError, match="question"):
        prompts.render(prompts.FINAL_PROMPT, reAct_step_str="")
