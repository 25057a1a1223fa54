"""The ReAct step parser and the streaming answer forwarder, on replies as models write them."""

from __future__ import annotations

import pickle
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.react.parser import AnswerStream, ParseError, Step, parse_step
from tests.parser_cases import CASES, ERRORS, FENCE, TOOLS

FORMAT_LINES = ("Thought: ...", "Action:", "Action Input: <a JSON object>", "Answer: <your answer>")


@pytest.mark.parametrize(("reply", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_reads_the_step_a_careful_reader_would(reply: str, expected: dict) -> None:
    step = parse_step(reply, TOOLS)
    assert step.raw == reply
    assert isinstance(step.tool_input, dict)
    for field, value in expected.items():
        assert getattr(step, field) == value, field
    if step.kind == "answer":
        assert step.tool is None and step.answer
    else:
        assert step.tool and step.answer is None


def test_case_table_is_large_and_unique() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) >= 40
    assert len(set(ids)) == len(ids)


def test_without_tool_list_names_are_only_cleaned() -> None:
    step = parse_step('Action: **Image\\_Info**\nAction Input: {"image_id": "img_1"}')
    assert step.tool == "Image_Info"
    assert step.tool_input == {"image_id": "img_1"}


def test_bare_string_never_becomes_empty() -> None:
    # json_repair reads a bare word as "", which would silently lose the input.
    assert parse_step("Action: ocr\nAction Input: menu", TOOLS).tool_input == {"input": "menu"}


def test_free_text_call_is_not_an_action_unless_the_tool_is_known() -> None:
    step = parse_step("f(x) grows faster than g(x)", TOOLS)
    assert step.kind == "answer"


@pytest.mark.parametrize(("reply", "why"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_unusable_replies_raise_a_retry_instruction(reply: str, why: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_step(reply, TOOLS)
    error = caught.value
    assert isinstance(error, ValueError)
    message = str(error)
    assert message.startswith("Could not read your reply: ")
    assert why in error.reason
    assert error.reason in message
    for line in FORMAT_LINES:
        assert line in message
    assert "one of: calculator, image_info, zoom, ocr" in message


def test_retry_instruction_without_tools_and_after_pickling() -> None:
    with pytest.raises(ParseError) as caught:
        parse_step("Action:\n")
    assert "Action: <a tool name>" in str(caught.value)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert copy.reason == caught.value.reason
    assert str(copy) == str(caught.value)


LABELS = st.sampled_from(
    [
        "Thought: ",
        "Action: ",
        "Action Input: ",
        "Answer: ",
        "Final Answer: ",
        "Observation: ",
        "**Answer:** ",
        "**Action**: ",
        "ACTION：",
        "\n",
        "\n\n",
        "{",
        "}",
        '"',
        "'",
        "**",
        "`",
        FENCE,
        "zoom",
        "calculator(",
        ")",
        '{"a": 1}',
        "{'b': True}",
        "none",
        "\\_",
        "=",
        " ",
    ]
)
REPLIES = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(LABELS, st.text(max_size=12)), max_size=30).map("".join),
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPLIES)
def test_any_text_gives_a_step_or_a_parse_error(reply: str) -> None:
    try:
        step = parse_step(reply, TOOLS)
    except ParseError as error:
        assert error.reason
        return
    assert isinstance(step, Step)
    assert isinstance(step.tool_input, dict)
    assert all(isinstance(key, str) for key in step.tool_input)
    assert step.kind == "action" or step.answer
    assert step.kind == "answer" or step.tool


def stream(reply: str, size: int | None) -> str:
    """Feed `reply` in chunks of `size` characters (None: all at once)."""
    size = size or len(reply) or 1
    forward = AnswerStream()
    pieces = [forward.feed(reply[i : i + size]) for i in range(0, len(reply), size)]
    return "".join(pieces) + forward.finish()


SIZES = [1, 3, 7, None]
# Answers read from a line-start label; plain prose and JSON calls stream nothing (the caller
# sends the parsed answer then).
ANSWER_LABEL = re.compile(r"^[-#* ]*(final )?answer\**[:：]", re.IGNORECASE | re.MULTILINE)
LABELLED_ANSWERS = [c for c in CASES if c[2]["kind"] == "answer" and ANSWER_LABEL.search(c[1])]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "reply", [c[1] for c in LABELLED_ANSWERS], ids=[c[0] for c in LABELLED_ANSWERS]
)
def test_stream_forwards_exactly_the_parsed_answer(reply: str, size: int) -> None:
    assert stream(reply, size) == parse_step(reply, TOOLS).answer


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "reply",
    [c[1] for c in CASES if c[2]["kind"] == "action"],
    ids=[c[0] for c in CASES if c[2]["kind"] == "action"],
)
def test_stream_forwards_nothing_for_actions(reply: str, size: int) -> None:
    assert stream(reply, size) == ""


def test_stream_forwards_while_streaming_and_holds_only_what_may_change() -> None:
    forward = AnswerStream()
    assert forward.feed("Thought: the user asks about the ") == ""
    assert forward.feed("cat.\nAns") == ""
    assert forward.feed("wer") == ""
    assert forward.feed(": It is a ") == "It is a"
    assert forward.feed("**tabby") == " **tabby"
    assert forward.feed("** cat") == "** cat"
    assert forward.feed(".\nThe fur is ") == ".\nThe fur is"
    assert forward.feed("orange.  \n") == " orange."
    assert forward.finish() == ""


def test_stream_waits_for_a_closing_bold_after_the_label() -> None:
    forward = AnswerStream()
    assert forward.feed("**Answer:*") == ""
    assert forward.feed("* Yes") == "Yes"
    assert forward.finish() == ""


def test_stream_drops_an_unmatched_closing_bold_at_the_end() -> None:
    forward = AnswerStream()
    assert forward.feed("**Answer: Paris") == "Paris"
    assert forward.feed("**") == ""
    assert forward.finish() == ""


def test_stream_stops_at_the_next_label_and_after_an_action() -> None:
    assert stream("Answer: 4\nAction: calculator\nAction Input: {}", 1) == "4"
    made_up = 'Action: zoom\nAction Input: {"a": 1}\nObservation: made up\nAnswer: guessed'
    assert stream(made_up, 1) == ""
    assert stream('Action: zoom\nAction Input: {"a": 1}\nAction: ocr\nAnswer: guessed', 1) == ""
    assert stream("Thought: no answer yet", 1) == ""


def test_stream_forwards_an_answer_concluded_after_the_call() -> None:
    reply = 'Action: zoom\nAction Input: {"a": 1}\nThought: I know it\nAnswer: A cat.'
    assert [stream(reply, size) for size in SIZES] == ["A cat."] * 4
    assert parse_step(reply, TOOLS).answer == "A cat."


def test_stream_never_leaks_the_thought_or_the_label() -> None:
    reply = "**Thought:** secret plan\n**Final Answer:** The answer."
    for size in SIZES:
        out = stream(reply, size)
        assert out == "The answer."


def test_stream_of_a_label_at_the_very_end() -> None:
    assert stream("Thought: x\nAnswer: done", 4) == "done"
    assert stream("Thought: x\nAnswer:", 4) == ""


def test_stream_releases_a_held_line_at_the_end() -> None:
    # A line that might have become a label is held; at the end it belongs to the answer.
    assert stream("ANSWER:0\n#", 1) == "0\n#" == parse_step("ANSWER:0\n#").answer


def test_stream_sees_a_bold_action_label_in_any_chunking() -> None:
    reply = "**ACTION**: zoom\nOBSERVATION: 1\nANSWER: 0"
    assert [stream(reply, size) for size in SIZES] == ["", "", "", ""]
    reply = "**ACTION**: zoom\nANSWER: I will zoom in first."
    assert [stream(reply, size) for size in SIZES] == ["", "", "", ""]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPLIES, st.integers(min_value=1, max_value=9))
def test_stream_agrees_with_the_parser_for_any_chunking(reply: str, size: int) -> None:
    out = stream(reply, size)
    assert out == stream(reply, None)
    if out:
        assert parse_step(reply, TOOLS).answer == out
