"""The person's words show in the chat as typed: HTML and Markdown marks are escaped, a link
stays whole."""

from __future__ import annotations

import pytest

from ui.page.values import as_typed, user_message


def test_markdown_marks_are_escaped():
    assert as_typed("9**9**9") == r"9\*\*9\*\*9"
    assert as_typed("<b>x</b> _a_") == r"&lt;b&gt;x&lt;/b&gt; \_a\_"
    assert as_typed("- item\n1. one") == "\\- item\n1\\. one"
    assert as_typed("3.50 + 4 = 7.50") == "3.50 + 4 = 7.50"


def test_a_link_is_left_whole():
    assert (
        as_typed("see https://example.org/a_b and a_b") == r"see https://example.org/a_b and a\_b"
    )


def test_the_images_of_the_row_stay_beside_the_words(tmp_path):
    image = tmp_path / "img_1-abc.png"
    image.write_bytes(b"")
    message = user_message("**hi**", [(str(image), "img_1")])
    assert message["content"][0] == r"\*\*hi\*\*" and len(message["content"]) > 1


@pytest.mark.parametrize(
    ("typed", "drawn"),
    [
        ("9**9**9", "9\\*\\*9\\*\\*9"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        (
            "<a href='javascript:alert(2)'>click</a>",
            "&lt;a href='javascript:alert(2)'&gt;click&lt;/a&gt;",
        ),
        ("_a_ and # title", "\\_a\\_ and \\# title"),
    ],
)
def test_the_trace_titles_a_turn_with_the_words_as_typed(typed, drawn):
    from ui.trace.view import TurnView

    view = TurnView(1, "en", typed)
    title = view.messages[0]["metadata"]["title"]
    assert title == f"Turn 1: {drawn}"
