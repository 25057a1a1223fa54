"""The person's words show in the chat as typed: HTML and Markdown marks are escaped, a link
stays whole."""

from __future__ import annotations

from ui.page_values import as_typed, user_message


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
