"""The event -> trace-panel mapping, event by event, without Gradio."""

from __future__ import annotations

import pytest

from agent.events import (
    Answer,
    AnswerDelta,
    AskUser,
    ErrorEvent,
    ImageInfo,
    ModelCallEvent,
    ModelDelta,
    Notice,
    RunFinished,
    RunStarted,
    StepRetry,
    TaskState,
    Thought,
    ToolCall,
    ToolProgress,
    ToolResultEvent,
)
from ui.labels import calls_text, duration_text, joined
from ui.page.values import user_message
from ui.trace.thought import streaming_thought
from ui.trace.view import TurnView, render


def titled(view: TurnView, prefix: str) -> list[dict]:
    return [m for m in view.messages if m["metadata"]["title"].startswith(prefix)]


def test_turn_message_opens_pending_and_names_the_model_and_images():
    view = TurnView(2, "en", "what does it say?")
    view.apply(
        RunStarted(
            run_id="r1",
            model="gpt-4o-mini",
            images=[ImageInfo(id="img_1", width=640, height=480)],
        )
    )
    turn = view.messages[0]
    assert turn["metadata"]["id"] == "turn-2"
    assert turn["metadata"]["status"] == "pending"
    assert "what does it say?" in turn["metadata"]["title"]
    assert "gpt-4o-mini" in turn["content"] and "img_1 640×480" in turn["content"]


def test_offline_model_is_labelled_once():
    view = render([RunStarted(run_id="r", model="offline demo model", offline=True)])
    assert view.messages[0]["content"].count("offline") == 1
    view = render([RunStarted(run_id="r", model="tiny", offline=True)])
    assert "(offline demo model)" in view.messages[0]["content"]


def test_thought_streams_without_label_or_action_then_settles():
    view = TurnView()
    view.apply(ModelDelta(step=1, text="Thought: I should zo"))
    (thought,) = titled(view, "Thought 1")
    assert thought["content"] == "I should zo"
    assert thought["metadata"]["status"] == "pending"
    assert thought["metadata"]["parent_id"] == "turn-1"
    view.apply(ModelDelta(step=1, text='om in.\nAction: zoom\nAction Input: {"image_id"'))
    assert thought["content"] == "I should zoom in."
    view.apply(Thought(step=1, text="I should zoom in."))
    assert thought["metadata"]["status"] == "done"
    assert len(titled(view, "Thought")) == 1


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("思考：先读图片上的字。\n行动：read_text", "先读图片上的字。"),
        ("想法：很简单。\n最终答案：42", "很简单。"),
        ("**Thought:** zoom first. Action: zoom", "zoom first."),
        ("Thought: the answer is near\n**Final Answer:** 42", "the answer is near"),
        ("Thought: an actionable plan", "an actionable plan"),  # a word, not a label
    ],
)
def test_streaming_thought_knows_the_labels_in_both_languages(raw, shown):
    assert streaming_thought(raw) == shown


def test_streaming_thought_hides_the_answer_part():
    assert streaming_thought("Thought: done.\nAnswer: 42") == "done."
    assert streaming_thought("Thought：想一想") == "想一想"


def test_tool_call_shows_arguments_at_once_with_running_indicator_then_result():
    view = TurnView()
    view.apply(ToolCall(step=1, call_id="c1", tool="zoom", arguments={"image_id": "img_1"}))
    (call,) = titled(view, "Tool: zoom")
    assert '"image_id": "img_1"' in call["content"]
    assert call["metadata"]["status"] == "pending"
    assert call["metadata"]["log"] == "running…"
    view.apply(ToolProgress(call_id="c1", message="cropping…"))
    assert call["metadata"]["log"] == "cropping…"
    made = ImageInfo(id="img_2", width=800, height=600, path="/tmp/img_2.png")
    view.apply(
        ToolResultEvent(
            step=1,
            call_id="c1",
            tool="zoom",
            ok=True,
            text="new image img_2",
            duration=0.4321,
            images=[made],
        )
    )
    assert call["metadata"]["status"] == "done"
    assert call["metadata"]["log"] == "0.4 s"
    text, image = call["content"]
    assert '"image_id"' in text and "new image img_2" in text
    assert image == {"path": "/tmp/img_2.png"}


def test_failed_tool_is_marked_in_place():
    view = TurnView()
    view.apply(ToolCall(step=1, call_id="c1", tool="calculator", arguments={"expression": "1/0"}))
    view.apply(
        ToolResultEvent(
            step=1,
            call_id="c1",
            tool="calculator",
            ok=False,
            text="Error: division by zero",
            duration=0.01,
            error="Error: division by zero",
        )
    )
    (call,) = titled(view, "Tool: calculator")
    assert "failed" in call["metadata"]["title"]
    assert "division by zero" in call["content"]


def test_a_whole_number_is_shown_as_a_reload_shows_it():
    # The browser's copy of the trace comes back through JavaScript, which writes 5.0 as 5.
    view = TurnView()
    view.apply(TaskState(tool="convert_units", known={"value": 5.0, "x": 2.5}, missing=["y"]))
    (task,) = titled(view, "Task: convert_units")
    assert "value = 5," in task["content"] and "x = 2.5" in task["content"]


def test_task_state_updates_one_message():
    view = TurnView()
    view.apply(TaskState(tool="convert_units", known={"value": 5}, missing=["to_unit"]))
    view.apply(TaskState(tool="convert_units", known={"value": 5, "to_unit": "km"}, status="done"))
    (task,) = titled(view, "Task: convert_units")
    assert "to_unit = km" in task["content"]
    assert "Missing:** nothing" in task["content"]
    assert task["metadata"]["log"] == "done"


def test_notice_and_retry_are_shown():
    view = render(
        [Notice(message="notes.txt is not an image."), StepRetry(step=1, reason="no Action")]
    )
    assert view.notices == ["notes.txt is not an image."]
    assert titled(view, "Notice")[0]["content"] == "notes.txt is not an image."
    assert titled(view, "Retry")[0]["content"] == "no Action"


def test_answer_streams_then_the_final_text_wins():
    view = TurnView()
    view.apply(AnswerDelta(text="8.0"))
    view.apply(AnswerDelta(text="5 km"))
    assert view.answer == "8.05 km" and not view.done
    view.apply(Answer(text="5 mi = 8.05 km"))
    assert view.answer == "5 mi = 8.05 km" and view.done


@pytest.mark.parametrize(
    ("event", "answer"),
    [
        (AskUser(question="Which unit?"), "Which unit?"),
        (ErrorEvent(message="The model is unreachable."), "The model is unreachable."),
    ],
)
def test_question_and_error_become_the_reply(event, answer):
    view = render([event])
    assert view.answer == answer and view.done
    assert view.messages[-1]["content"] == answer


def test_run_finished_folds_the_turn_with_its_statistics():
    view = TurnView()
    view.apply(ModelDelta(step=1, text="Thought: hmm"))
    view.apply(RunFinished(status="answered", model="m1", model_calls=3, steps=2, duration=1.234))
    turn = view.messages[0]
    assert turn["metadata"]["status"] == "done"
    assert turn["metadata"]["log"] == "3 model calls · 1.2 s"
    assert all(m["metadata"]["status"] == "done" for m in view.messages)
    assert view.stats_line == "m1 · ReAct text · 3 model calls · 1.2 s"


@pytest.mark.parametrize(
    ("language", "step_log", "status"),
    [
        (
            "en",
            "0.4 s · ≈1,500 in, 20 out",
            "m1 · ReAct text · 2 model calls · ≈2,540 tokens · 1.2 s",
        ),
        (
            "zh",
            "0.4 秒 · 约输入 1,500，输出 20",
            "m1 · ReAct 文本 · 2 次模型调用 · 约 2,540 个词元 · 1.2 秒",
        ),
    ],
)
def test_tokens_show_beside_each_model_step_and_in_the_status_line(language, step_log, status):
    view = TurnView(1, language)
    for step, (i, o) in enumerate([(1500, 20), (1000, 20)], start=1):
        view.apply(ModelDelta(step=step, text="Thought: hmm"))
        view.apply(
            ModelCallEvent(
                step=step,
                model="m1",
                duration=0.4,
                input_tokens=i,
                output_tokens=o,
                estimated=step == 1,
            )
        )
    first = titled(view, "Thought 1" if language == "en" else "思考 1")[0]
    assert first["metadata"]["log"] == step_log
    view.apply(RunFinished(status="answered", model="m1", model_calls=2, steps=1, duration=1.2))
    # One estimated call makes the whole figure an estimate; no price table, no cost.
    assert view.stats_line == status


def test_a_call_that_failed_before_it_was_read_shows_no_tokens():
    view = TurnView()
    view.apply(ModelDelta(step=1, text="Thought: hmm"))
    view.apply(ModelCallEvent(step=1, model="m1", duration=0.05, error="connection"))
    view.apply(RunFinished(status="error", model="m1", model_calls=1, steps=0, duration=0.05))
    assert view.stats_line == "m1 · ReAct text · 1 model call · 50 ms"


def test_stop_marks_running_steps_and_says_so():
    view = TurnView()
    view.apply(ToolCall(step=1, call_id="c1", tool="read_text", arguments={}))
    view.stop()
    assert all(m["metadata"]["status"] == "done" for m in view.messages)
    assert titled(view, "Tool: read_text")[0]["metadata"]["log"] == "Stopped"
    assert view.answer == "Stopped before it finished."


def test_a_half_streamed_answer_says_where_it_was_cut():
    view = TurnView()
    view.apply(AnswerDelta(text="The sign says OP"))
    view.stop()
    assert view.answer == "The sign says OP…\n\nStopped before it finished."


def test_chinese_labels():
    view = TurnView(1, "zh")
    view.apply(TaskState(tool="world_clock", missing=["place"]))
    assert view.messages[0]["metadata"]["title"] == "第 1 轮"
    assert "缺少" in titled(view, "任务")[0]["content"]


def test_user_message_has_text_then_thumbnails():
    message = user_message("look", [("/a.png", "img_1"), ("/b.png", "img_2")])
    assert message == {
        "role": "user",
        "content": [
            "look",
            {"path": "/a.png"},
            "`img_1`",
            {"path": "/b.png"},
            "`img_2`",
        ],
    }
    assert user_message("", [("/a.png", "img_1")])["content"][0] == {
        "path": "/a.png",
    }


def test_ids_are_unique_within_a_turn():
    view = render(
        [
            Notice(message="a"),
            Notice(message="b"),
            ToolCall(step=1, call_id="x", tool="t", arguments={}),
            ToolCall(step=2, call_id="y", tool="t", arguments={}),
        ]
    )
    ids = [m["metadata"]["id"] for m in view.messages]
    assert len(ids) == len(set(ids))


def test_a_one_shot_tool_call_shows_no_task_panel_but_a_dialogue_does():
    view = TurnView(1, "en", "what is 2+2")
    view.apply(RunStarted(run_id="r", model="m"))
    view.apply(TaskState(tool="calculator", known={"expression": "2+2"}, status="calling"))
    view.apply(TaskState(tool="calculator", known={"expression": "2+2"}, status="done"))
    assert not titled(view, "Task")
    view = TurnView(2, "en", "km")
    view.apply(RunStarted(run_id="r", model="m"))
    view.apply(TaskState(tool="convert_units", known={"value": 5, "to_unit": "km"}))
    view.apply(TaskState(tool="convert_units", known={"value": 5, "to_unit": "km"}, status="done"))
    (task,) = titled(view, "Task")
    assert "to_unit = km" in task["content"]
    # A call that fails: a one-shot one shows in its own step only; a dialogue's says so.
    view = TurnView(3, "en", "what is 1/0")
    view.apply(TaskState(tool="calculator", known={"expression": "1/0"}, status="calling"))
    view.apply(TaskState(tool="calculator", known={"expression": "1/0"}, status="failed"))
    assert not titled(view, "Task")
    view = TurnView(4, "zh", "摄氏度")
    view.apply(TaskState(tool="convert_units", known={"value": 5}, missing=["to_unit"]))
    for status in ("calling", "failed"):
        view.apply(TaskState(tool="convert_units", known={"value": 5}, status=status))
    (task,) = titled(view, "任务")
    assert task["metadata"]["log"] == "失败"


@pytest.mark.parametrize(
    ("seconds", "en", "zh"),
    [
        (0.06, "60 ms", "60 毫秒"),
        (0.004, "4 ms", "4 毫秒"),
        (0.1, "0.1 s", "0.1 秒"),
        (2.44, "2.4 s", "2.4 秒"),
        (59.9, "59.9 s", "59.9 秒"),
        (65.2, "1 min 5 s", "1 分 5 秒"),
        (600, "10 min 0 s", "10 分 0 秒"),
    ],
)
def test_one_duration_format_everywhere(seconds, en, zh):
    assert duration_text(seconds, "en") == en
    assert duration_text(seconds, "zh") == zh


def test_counts_are_written_with_the_right_plural():
    assert calls_text(1, "en") == "1 model call"
    assert calls_text(2, "en") == "2 model calls"
    assert calls_text(1, "en", "tool_calls") == "1 tool call"
    assert calls_text(3, "en", "tool_calls") == "3 tool calls"
    assert calls_text(1, "zh") == "1 次模型调用"


def test_the_status_line_has_no_stray_separator():
    assert joined("", "a", " ", "b", "") == "a · b"
    view = render(
        [RunFinished(status="answered", model="m1", model_calls=1, steps=1, duration=0.05)]
    )
    assert view.stats_line == "m1 · ReAct text · 1 model call · 50 ms"
    assert "duration" not in view.messages[0]["metadata"]  # Gradio would write it its own way
