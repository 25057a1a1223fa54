"""Tables for a pending task while the conversation turns to something else
(`agent.waiting`, `agent.images.intake.turn_language`): the messages a new user and a hostile
tester type in both languages, and what each turn must come to."""

from __future__ import annotations

# (text, default, previous turn's language, language the pending task was asked in or None
# when the message answers no task, the language the turn speaks)
LANGUAGES = [
    # A reply to the pending task keeps its language: a place, a unit, a number.
    ("Tokyo", "en", "zh", "zh", "zh"),
    ("New York", "en", "zh", "zh", "zh"),
    ("km", "en", "zh", "zh", "zh"),
    ("in km", "en", "zh", "zh", "zh"),
    ("Tokyo please", "en", "zh", "zh", "zh"),
    ("42", "en", "zh", "zh", "zh"),
    ("2026-12-24", "en", "zh", "zh", "zh"),
    ("东京", "en", "en", "en", "en"),
    ("公里", "zh", "en", "en", "en"),
    ("用公里", "en", "en", "en", "en"),
    ("多伦多", "en", "en", "en", "en"),
    ("东京", "zh", "zh", "zh", "zh"),
    # ... unless it is itself written in the other language, whole words.
    ("what time is it in London", "en", "zh", "zh", "en"),
    ("the one in Tokyo, please", "zh", "zh", "zh", "en"),
    ("换成公里", "en", "en", "en", "zh"),
    ("东京现在几点", "en", "en", "en", "zh"),
    ("请用公里", "en", "en", "en", "zh"),
    # The task's language, not the last turn's: a Chinese question, an English aside, "km".
    ("km", "en", "en", "zh", "zh"),
    # A message that answers no task speaks its own language.
    ("15% of 80", "en", "zh", None, "en"),
    ("what is 2+2", "en", "zh", None, "en"),
    ("2+2等于几", "en", "en", None, "zh"),
    ("谁会赢得下一届世界杯？", "en", "en", None, "zh"),
    ("Who will win the next World Cup?", "zh", "zh", None, "en"),
    # ... and one that says nothing of its own keeps the conversation's.
    ("Tokyo", "en", "zh", None, "zh"),
    ("km", "en", "zh", None, "zh"),
    ("2+2", "en", "zh", None, "zh"),
    ("42", "zh", None, None, "zh"),
    ("ok", "en", "zh", None, "zh"),
    # Mixed: the sentence's language, not the name's or the unit's.
    ("what time is it in 东京", "zh", "zh", None, "en"),
    ("what does 出口 mean?", "zh", "zh", None, "en"),
    ("把 5 miles 换算成 km", "en", "en", None, "zh"),
    ("convert 5 英里 to km", "zh", "zh", None, "en"),
    ("", "en", None, None, "en"),
]

# A conversation with the offline model (the page's default language, English), one row per
# turn: (message, last event type, text the answer or question holds, the turn's language),
# and the tool whose task is still pending after the last turn.
UNRELATED_QUESTION = ("what is 2+2", "answer", "2+2 = 4", "en")
CONVERSATIONS = {
    "another conversion while one waits for its unit": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("convert 30 celsius to fahrenheit", "answer", "86 °F", "en"),
            ("km", "answer", "5 mi = 8.04672 km", "en"),
        ],
        None,
    ),
    "a unit of another kind for the waiting conversion": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("celsius", "ask_user", "measure different things, so one cannot become", "en"),
            ("km", "answer", "5 mi = 8.04672 km", "en"),
        ],
        None,
    ),
    "a unit of another kind for the waiting conversion, in Chinese": (
        [
            ("换算 5 英里", "ask_user", "单位", "zh"),
            ("摄氏度", "ask_user", "无法互相换算。要换算成什么单位？", "zh"),
            ("公里", "answer", "5 英里 = 8.04672 公里", "zh"),
        ],
        None,
    ),
    "two units missing, given one at a time": (
        [
            ("convert 5", "ask_user", "Which unit is it in?", "en"),
            ("km", "ask_user", "Which unit should I convert it to?", "en"),
            ("miles", "answer", "5 km = 3.106856 mi", "en"),
        ],
        None,
    ),
    "two units missing, given one at a time, in Chinese": (
        [
            ("换算 5", "ask_user", "原来的单位是什么？", "zh"),
            ("公里", "ask_user", "要换算成什么单位？", "zh"),
            ("英里", "answer", "5 公里 = 3.106856 英里", "zh"),
        ],
        None,
    ),
    "thousands in an English conversion": (
        [("convert 2,500 feet to meters", "answer", "2500 ft = 762 m", "en")],
        None,
    ),
    "unit symbols on both sides, without 'convert'": (
        [
            ("2 km in m", "answer", "2 km = 2000 m", "en"),
            ("0.5 km to m", "answer", "0.5 km = 500 m", "en"),
            ("5 km in mi", "answer", "5 km = 3.106856 mi", "en"),
            ("I was 2 m in front", "answer", "Sorry", "en"),
        ],
        None,
    ),
    "units of different kinds in one message, said in everyday words": (
        [
            ("convert 5 miles to celsius", "answer", "miles measures length and celsius", "en"),
            ("换算 5 英里到摄氏度", "answer", "没能完成：英里衡量的是长度", "zh"),
        ],
        None,
    ),
    "a Chinese conversion with 为 before the target": (
        [("5英里转换为公里", "answer", "5 英里 = 8.04672 公里", "zh")],
        None,
    ),
    "a number of things while a conversion waits": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("I have 3 cats", "ask_user", "Which unit", "en"),
            ("km", "answer", "5 mi = 8.04672 km", "en"),
        ],
        None,
    ),
    "a number of things while a conversion waits, in Chinese": (
        [
            ("换算 5 英里", "ask_user", "单位", "zh"),
            ("我有3只猫", "ask_user", "单位", "zh"),
            ("公里", "answer", "5 英里 = 8.04672 公里", "zh"),
        ],
        None,
    ),
    "another conversion that asks for its unit in turn": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("convert 10 kg", "ask_user", "Which unit", "en"),
            ("lb", "answer", "10 kg = 22.04623 lb", "en"),
        ],
        None,
    ),
    "the waiting conversion corrected": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("actually make it 10 miles", "ask_user", "Which unit", "en"),
            ("km", "answer", "10 mi = 16.09344 km", "en"),
        ],
        None,
    ),
    "an unrelated English answer after a Chinese question": (
        [
            ("现在几点了？", "ask_user", "哪个城市或时区？", "zh"),
            ("15% of 80", "answer", "15% of 80 = 12", "en"),
            ("东京", "answer", "东京（Asia/Tokyo）现在是", "zh"),
        ],
        None,
    ),
    "a place in Chinese": (
        [
            ("现在几点了？", "ask_user", "哪个", "zh"),
            ("东京", "answer", "现在是", "zh"),
        ],
        None,
    ),
    "a place in Latin letters in a Chinese conversation": (
        [
            ("现在几点了？", "ask_user", "哪个", "zh"),
            ("Tokyo", "answer", "Tokyo（Asia/Tokyo）现在是", "zh"),
        ],
        None,
    ),
    "two words of a place": (
        [
            ("现在几点了？", "ask_user", "哪个", "zh"),
            ("New York", "answer", "现在是", "zh"),
        ],
        None,
    ),
    "a number alone to a question for a place": (
        [
            ("现在几点了？", "ask_user", "哪个", "zh"),
            ("42", "ask_user", "哪个城市或时区？", "zh"),
        ],
        "world_clock",
    ),
    "a unit alone in a Chinese conversation": (
        [
            ("把5英里换算一下", "ask_user", "要换算成什么单位？", "zh"),
            ("km", "answer", "8.04672 公里", "zh"),
        ],
        None,
    ),
    "a unit with a preposition": (
        [
            ("把5英里换算一下", "ask_user", "单位", "zh"),
            ("in km", "answer", "8.04672 公里", "zh"),
        ],
        None,
    ),
    "a Chinese unit in an English conversation": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("公里", "answer", "8.04672 km", "en"),
        ],
        None,
    ),
    "a Chinese place in an English conversation": (
        [
            ("what time is it?", "ask_user", "Which city", "en"),
            ("东京", "answer", "it is", "en"),
        ],
        None,
    ),
    "a whole Chinese sentence answering an English question": (
        [
            ("what time is it?", "ask_user", "Which city", "en"),
            ("东京现在几点", "answer", "现在是", "zh"),
        ],
        None,
    ),
    "a whole English sentence answering a Chinese question": (
        [
            ("现在几点了？", "ask_user", "哪个", "zh"),
            ("what time is it in London", "answer", "In London (Europe/London) it is", "en"),
        ],
        None,
    ),
    "an unrelated question, then the unit": (
        [
            ("convert 5 miles", "ask_user", "Which unit should I convert it to?", "en"),
            UNRELATED_QUESTION,
            ("km", "answer", "8.04672 km", "en"),
        ],
        None,
    ),
    "an unrelated question, then the unit, in Chinese": (
        [
            ("把5英里换算一下", "ask_user", "要换算成什么单位？", "zh"),
            ("2+2等于几", "answer", "2+2 = 4", "zh"),
            ("公里", "answer", "5 英里 = 8.04672 公里", "zh"),
        ],
        None,
    ),
    "an English aside in a Chinese task": (
        [
            ("把5英里换算一下", "ask_user", "单位", "zh"),
            UNRELATED_QUESTION,
            ("km", "answer", "8.04672 公里", "zh"),
        ],
        None,
    ),
    "two unrelated questions in a row": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            UNRELATED_QUESTION,
            ("what is the capital of France?", "answer", "Sorry", "en"),
            ("km", "answer", "8.04672 km", "en"),
        ],
        None,
    ),
    "two unrelated questions in a row, in Chinese": (
        [
            ("现在几点了？", "ask_user", "哪个", "zh"),
            ("谁会赢得下一届世界杯？", "answer", "抱歉", "zh"),
            ("2+2等于几", "answer", "2+2 = 4", "zh"),
            ("东京", "answer", "现在是", "zh"),
        ],
        None,
    ),
    "an unrelated question answered in one call by another tool": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("what time is it in 东京", "answer", "Asia/Tokyo", "en"),
            ("km", "answer", "8.04672 km", "en"),
        ],
        None,
    ),
    "a mixed Chinese request while a Chinese task waits": (
        [
            ("现在几点了？", "ask_user", "哪个", "zh"),
            ("把 5 miles 换算成 km", "answer", "8.04672 公里", "zh"),
            ("东京", "answer", "现在是", "zh"),
        ],
        None,
    ),
    "still waiting after an unrelated question": (
        [("convert 5 miles", "ask_user", "Which unit", "en"), UNRELATED_QUESTION],
        "convert_units",
    ),
    "a new task while one waits takes its place": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("what time is it?", "ask_user", "Which city or time zone?", "en"),
            ("Tokyo", "answer", "In Tokyo (Asia/Tokyo) it is", "en"),
            ("km", "answer", "Sorry", "en"),
        ],
        None,
    ),
    "never mind": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("never mind", "answer", "set that aside", "en"),
            ("km", "answer", "Sorry", "en"),
        ],
        None,
    ),
    "算了": (
        [
            ("把5英里换算一下", "ask_user", "单位", "zh"),
            ("算了", "answer", "先放下", "zh"),
        ],
        None,
    ),
    "never mind to a Chinese question": (
        [
            ("现在几点了？", "ask_user", "哪个城市或时区？", "zh"),
            ("never mind", "answer", "set that aside", "en"),
        ],
        None,
    ),
    "算了 to an English question": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("算了", "answer", "先放下", "zh"),
        ],
        None,
    ),
    "不用了 while a question waits drops it": (
        [
            ("换算 5 英里", "ask_user", "单位", "zh"),
            ("不用了", "answer", "先放下", "zh"),
            ("公里", "answer", "抱歉", "zh"),
        ],
        None,
    ),
    "never mind with nothing open": (
        [
            ("never mind", "answer", "OK. What else can I do for you?", "en"),
            ("算了", "answer", "好的。还有什么可以帮您？", "zh"),
            ("不用了", "answer", "再见", "zh"),
        ],
        None,
    ),
    "never mind, and something else": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("never mind, what is 2+2", "answer", "2+2 = 4", "en"),
            ("km", "answer", "Sorry", "en"),
        ],
        None,
    ),
    "aside for too long": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("what is 1+1", "answer", "= 2", "en"),
            ("what is 2+2", "answer", "= 4", "en"),
            ("what is 3+3", "answer", "= 6", "en"),
            ("what is 4+4", "answer", "= 8", "en"),
            ("km", "answer", "Sorry", "en"),
        ],
        None,
    ),
    "aside as long as it may be": (
        [
            ("convert 5 miles", "ask_user", "Which unit", "en"),
            ("what is 1+1", "answer", "= 2", "en"),
            ("what is 2+2", "answer", "= 4", "en"),
            ("what is 3+3", "answer", "= 6", "en"),
            ("km", "answer", "8.04672 km", "en"),
        ],
        None,
    ),
}
