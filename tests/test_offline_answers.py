"""The offline model answers the question asked about an image's text with the value and the line
it was read from, not the whole text: a receipt's total, the hours on a given day, a gate and
when it closes, in English and in Chinese. These run on text as the OCR reads it."""

from __future__ import annotations

import pytest

from agent.models.offline import answers, fields, opening_hours, picking

RECEIPT = [
    "FRESH MARKET", "Bread 2.40", "Milk 1.25", "Apples 3.00", "SUBTOTAL 15.40", "VAT 1.25",
    "TOTAL 16.65", "CARD PAYMENT",
]  # fmt: skip
HOURS = ["OPENING HOURS", "Mon-Fri 8:00-20:00", "Sat 10:00-16:00", "Sun closed"]
PASS = [
    "BOARDING PASS", "PASSENGER LEE/ANNA", "FLIGHT CA1234", "GATE B17 SEAT 23A",
    "BOARDING 09:10", "GATE CLOSES 09:40", "DEPARTURE 10:00",
]  # fmt: skip
# A pass printed in columns: the OCR reads a row of labels, then a row of values.
PASS_COLUMNS = [
    "BOARDING PASS", "FLIGHT GATE SEAT", "CA1234 B17 23A", "BOARDING GATE CLOSES", "09:10 09:40",
]  # fmt: skip
ZH_HOURS = ["营业时间", "周一至周五 9:00-21:00", "周六 10:00-16:00", "周日休息"]
ZH_PASS = ["登机牌", "航班 CA1234", "登机口 B17", "座位 23A", "登机时间 09:10", "登机口关闭 09:40"]
ZH_RECEIPT = ["便利店", "牛奶6.50", "面包 8.00", "合计 14.50", "谢谢惠顾"]
SIGN = ["CITY LIBRARY", "OPEN 9:00 - 18:00", "CLOSED ON SUNDAYS"]


def said(question, lines, language="en"):
    return answers.picked(question, "img_1", lines, language)


@pytest.mark.parametrize(
    ("question", "lines", "language", "expected"),
    [
        ("what's the total on this receipt?", RECEIPT, "en",
         "The total is 16.65 (img_1: “TOTAL 16.65”)."),
        ("How much did I pay?", RECEIPT, "en", "The total is 16.65 (img_1: “TOTAL 16.65”)."),
        ("how much was the milk?", RECEIPT, "en", "It cost 1.25 (img_1: “Milk 1.25”)."),
        ("When does it open on Saturday?", HOURS, "en",
         "Saturday 10:00-16:00 (img_1: “Sat 10:00-16:00”)."),
        ("when does it close on tuesday?", HOURS, "en",
         "Tuesday: closes 20:00 (img_1: “Mon-Fri 8:00-20:00”)."),
        ("Is it open on Sunday?", HOURS, "en", "Sunday: closed (img_1: “Sun closed”)."),
        ("Which gate, and when does it close?", PASS, "en",
         "Gate B17, closes 09:40 (img_1: “GATE B17 SEAT 23A”, “GATE CLOSES 09:40”)."),
        ("Which gate, and when does it close?", PASS_COLUMNS, "en",
         "Gate B17, closes 09:40 (img_1: “FLIGHT GATE SEAT”, “CA1234 B17 23A”, "
         "“BOARDING GATE CLOSES”, “09:10 09:40”)."),
        ("when do we board?", PASS, "en", "Boarding 09:10 (img_1: “BOARDING 09:10”)."),
        ("周六几点开门？", ZH_HOURS, "zh", "周六 10:00-16:00（img_1：“周六 10:00-16:00”）。"),
        ("星期天开门吗？", ZH_HOURS, "zh", "周日休息（img_1：“周日休息”）。"),
        ("周三几点关门？", ZH_HOURS, "zh", "周三 21:00 关门（img_1：“周一至周五 9:00-21:00”）。"),
        ("哪个登机口？几点关闭？", ZH_PASS, "zh",
         "登机口 B17，09:40 关闭（img_1：“登机口 B17”、“登机口关闭 09:40”）。"),
        ("一共多少钱？", ZH_RECEIPT, "zh", "合计 14.50（img_1：“合计 14.50”）。"),
        ("When does it open on Saturday?", SIGN, "en",
         "Saturday 9:00-18:00 (img_1: “OPEN 9:00 - 18:00”)."),
        ("is it open on sundays?", SIGN, "en", "Sunday: closed (img_1: “CLOSED ON SUNDAYS”)."),
    ],
)  # fmt: skip
def test_the_value_and_its_line_answer_the_question(question, lines, language, expected):
    assert said(question, lines, language) == expected


def test_a_total_is_not_the_subtotal_and_may_be_on_the_next_line():
    assert fields.field("total", RECEIPT).value == "16.65"
    split = ["SUBTOTAL", "15.40", "TOTAL", "16.65"]
    assert fields.field("total", split).value == "16.65"


@pytest.mark.parametrize(
    ("line", "days"),
    [
        ("Mon-Fri 8:00-20:00", {0, 1, 2, 3, 4}),
        ("Fri - Mon 10:00-02:00", {4, 5, 6, 0}),
        ("Saturday & Sunday 10-16", {5, 6}),
        ("Weekends 10:00-14:00", {5, 6}),
        ("周一至周五 9:00-21:00", {0, 1, 2, 3, 4}),
        ("周六、周日 10:00-16:00", {5, 6}),
        ("星期一到五", {0, 1, 2, 3, 4}),
        ("每天 8:00-22:00", set(range(7))),
        ("OPEN 9:00 - 18:00", None),
    ],
)
def test_the_days_a_line_is_about(line, days):
    assert opening_hours.days_of(line) == days


def test_every_line_of_hours_without_a_day_asked():
    assert said("what are the opening hours?", HOURS) == (
        "Opening hours: Mon-Fri 8:00-20:00; Sat 10:00-16:00; Sun closed (img_1: "
        "“Mon-Fri 8:00-20:00”, “Sat 10:00-16:00”, “Sun closed”)."
    )


@pytest.mark.parametrize(
    ("question", "lines", "language", "expected"),
    [
        ("which gate is it?", SIGN, "en",
         "I read the text in img_1, but it does not show a gate. Ask “what does it say?” to see "
         "all of it."),
        ("what's the total?", SIGN, "en",
         "I read the text in img_1, but it does not show a total. Ask “what does it say?” to see "
         "all of it."),
        ("哪个登机口？", ZH_HOURS, "zh",
         "我读了 img_1 中的文字，但其中没有登机口。想看全部文字，可以问“上面写了什么？”"),
        ("Which gate, and what's my seat?", ["GATE B17"], "en",
         "Gate B17 (img_1: “GATE B17”). The text does not show a seat."),
    ],
)  # fmt: skip
def test_a_short_note_when_the_text_does_not_answer(question, lines, language, expected):
    assert said(question, lines, language) == expected


@pytest.mark.parametrize(
    "question", ["what does it say?", "what's this?", "read it", "这上面写了什么？", "", "help"]
)
def test_a_question_about_what_it_says_gets_the_whole_text(question):
    assert picking.wants_whole_text(question)
    assert said(question, SIGN) is None


def test_a_question_about_what_a_picture_shows_is_not_answered_from_the_text():
    assert said("is this a nice place to live?", SIGN) == (
        "I can't understand pictures by myself, and nothing written in img_1 answers that. Ask "
        "“what does it say?” to see all of its text."
    )


def test_a_question_sharing_words_with_lines_gets_those_lines():
    assert said("what's the name of the library?", SIGN) == (
        "What img_1 says about that: “CITY LIBRARY”."
    )


def test_the_whole_text_is_not_repeated_under_it():
    text = "Text found (3 lines, top to bottom):\n" + "\n".join(SIGN)
    answer = answers.help_answer("what's this?", "img_1", text, None, [], "en")
    assert answer.count("LIBRARY") == 1


def test_a_code_only_image_says_what_the_code_holds():
    text = "Text found (1 line, top to bottom):\n口"
    code = "Found 1 code:\n1. QR Code at (10,10)-(90,90): https://example.org/menu"
    answer = answers.help_answer("what is this?", "img_1", text, code, [], "en")
    assert "https://example.org/menu" in answer
    assert "口" not in answer and "(?)" not in answer and "doubtful" not in answer
