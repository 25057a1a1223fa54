"""Every event type has a place on the page, and a new one cannot be left out silently."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Literal, get_args

import pytest

from agent.config import Settings
from agent.events import (
    TRACE_ADAPTER,
    AnswerDeltaEvent,
    AnswerEvent,
    ApprovalDecisionEvent,
    ApprovalEvent,
    AskUserEvent,
    ErrorEvent,
    Event,
    ImageInfo,
    ModelCallEvent,
    ModelDeltaEvent,
    ModelWaitEvent,
    NoticeEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepRetryEvent,
    TaskStateEvent,
    ThoughtEvent,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
    _Event,
    export_trace,
    load_trace,
)
from agent.images.store import ImageRef
from ui.page.state import PageState, Prefs, TurnRecord
from ui.page.values import page_values
from ui.trace.view import TurnView, render

EVENT_CLASSES = get_args(get_args(Event)[0])
IMAGE = ImageInfo(id="img_2", width=80, height=60, path="/tmp/sessions/img_2.png")

# One of each event, in the order a turn would emit them.
ONE_OF_EACH: dict[type, object] = {
    RunStartedEvent: RunStartedEvent(run_id="r1", model="m1", images=[IMAGE]),
    NoticeEvent: NoticeEvent(message="notes.txt is not an image."),
    ModelDeltaEvent: ModelDeltaEvent(step=1, text="Thought: look closer"),
    ModelWaitEvent: ModelWaitEvent(step=1, seconds=3),
    ModelCallEvent: ModelCallEvent(
        step=1,
        model="m1",
        duration=0.734,
        input_tokens=1200,
        output_tokens=34,
        cached_tokens=1000,
        cost=0.00123,
    ),
    ThoughtEvent: ThoughtEvent(step=1, text="look closer"),
    ToolCallEvent: ToolCallEvent(step=1, call_id="c1", tool="zoom", arguments={"x": 1}),
    ToolProgressEvent: ToolProgressEvent(call_id="c1", message="cropping…"),
    ToolResultEvent: ToolResultEvent(
        step=1, call_id="c1", tool="zoom", ok=True, text="zoomed", duration=0.2, images=[IMAGE]
    ),
    StepRetryEvent: StepRetryEvent(step=2, reason="no Action"),
    TaskStateEvent: TaskStateEvent(tool="convert_units", known={"value": 5}, missing=["to"]),
    AskUserEvent: AskUserEvent(question="Which unit?"),
    ApprovalEvent: ApprovalEvent(
        call_id="c2", tool="weather", arguments={"city": "Oslo"}, question="May I?"
    ),
    ApprovalDecisionEvent: ApprovalDecisionEvent(
        call_id="c2", tool="weather", decision="approve", arguments={"city": "Oslo"}
    ),
    AnswerDeltaEvent: AnswerDeltaEvent(text="8.0"),
    AnswerEvent: AnswerEvent(text="8.05 km"),
    ErrorEvent: ErrorEvent(message="The model is unreachable.", kind="connection"),
    RunFinishedEvent: RunFinishedEvent(
        status="answered", model="m1", model_calls=2, steps=1, duration=1.5
    ),
}


def titles(view: TurnView) -> list[str]:
    return [m["metadata"]["title"] for m in view.messages]


def test_there_is_a_sample_of_every_event_type():
    assert len(EVENT_CLASSES) == 18
    assert set(ONE_OF_EACH) == set(EVENT_CLASSES)


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda cls: cls.__name__)
def test_the_mapping_handles_each_event_type_on_its_own(cls):
    view = TurnView()
    view.apply(ONE_OF_EACH[cls])
    assert view.messages[0]["metadata"]["id"] == "turn-1"


def test_an_event_type_the_mapping_does_not_know_fails_loudly():
    class SurpriseEvent(_Event):
        type: Literal["surprise"] = "surprise"

    with pytest.raises(AssertionError):
        TurnView().apply(SurpriseEvent())


def test_each_event_type_shows_where_a_person_looks():
    view = TurnView(1, "en", "how far?")
    seen: dict[type, bool] = {}

    def step(cls, check):
        view.apply(ONE_OF_EACH[cls])
        seen[cls] = bool(check())

    step(RunStartedEvent, lambda: "m1" in view.messages[0]["content"] and view.model == "m1")
    step(NoticeEvent, lambda: "Notice" in titles(view) and view.notices)
    step(ModelDeltaEvent, lambda: view.messages[-1]["content"] == "look closer")
    step(ModelWaitEvent, lambda: view.silent_for == 3)
    step(
        ModelCallEvent,
        lambda: (
            view.messages[-1]["metadata"]["log"]
            == "0.7 s · 1,200 in, 34 out · 1,000 cached · cost 0.0012"
        ),
    )
    step(ThoughtEvent, lambda: view.messages[-1]["metadata"]["status"] == "done")
    step(ToolCallEvent, lambda: view.messages[-1]["metadata"]["status"] == "pending")
    step(ToolProgressEvent, lambda: view.messages[-1]["metadata"]["log"] == "cropping…")
    step(ToolResultEvent, lambda: view.messages[-1]["content"][1] == {"path": IMAGE.path})
    step(StepRetryEvent, lambda: "Retry (Thought 2)" in titles(view))
    step(TaskStateEvent, lambda: "Task: convert_units" in titles(view))
    step(AskUserEvent, lambda: view.answer == "Which unit?" and view.done)
    step(
        ApprovalEvent,
        lambda: view.answer == "May I?" and "Approval needed: weather" in titles(view),
    )
    step(ApprovalDecisionEvent, lambda: "Approved: weather" in titles(view))
    step(AnswerDeltaEvent, lambda: view.answer == "May I?8.0")
    step(AnswerEvent, lambda: view.answer == "8.05 km")
    step(ErrorEvent, lambda: "Error" in titles(view) and view.answer.startswith("The model"))
    step(
        RunFinishedEvent,
        # The error came last: the status line says so before the figures.
        lambda: (
            view.stats_line
            == "Error · m1 · ReAct text · 1 tool call · 2 model calls · 1,234 tokens · cost 0.0012"
            " · 1.5 s"
        ),
    )
    assert seen == dict.fromkeys(EVENT_CLASSES, True)


def test_a_downloaded_trace_renders_as_the_turn_did_without_the_servers_image_files():
    events = list(ONE_OF_EACH.values())
    again = load_trace(export_trace(events))
    shown = render(events, question="q").messages
    # The export names images by id and size; their files stay on the server.
    for message in shown:
        if isinstance(message["content"], list):
            message["content"] = message["content"][0]
    assert render(again, question="q").messages == shown


def test_an_export_carries_no_server_paths_and_an_old_one_still_loads():
    events = list(ONE_OF_EACH.values())
    exported = export_trace(events)
    assert b"/tmp/sessions" not in exported and b'"path"' not in exported
    again = load_trace(exported)
    assert [i.id for i in again[0].images] == ["img_2"] and again[0].images[0].path == ""
    # Exports made before carried each image's path; they load as they are.
    old = TRACE_ADAPTER.dump_json(events)
    assert b"/tmp/sessions/img_2.png" in old
    assert load_trace(old)[0].images[0].path == IMAGE.path


def test_page_values_show_the_conversation_the_trace_and_the_status():
    state = PageState(Prefs(), Settings())
    ref = ImageRef(
        id="img_1", path="/tmp/up/img_1.png", width=8, height=8, media_type="image/png", digest="d"
    )
    # A turn that answers: one of each event but the other two endings.
    turn = [
        e for cls, e in ONE_OF_EACH.items() if cls not in (AskUserEvent, ApprovalEvent, ErrorEvent)
    ]
    view = render(turn, question="how far?")
    state.turns.append(TurnRecord(text="how far?", refs=[ref], view=view))
    chat, trace, same, status = page_values(state)
    assert same is state and status == view.stats_line
    # Each thumbnail is captioned with its id; the zoom's image follows the answer's words.
    made = {"path": "/tmp/sessions/img_2.png"}
    assert chat == [
        {
            "role": "user",
            "content": ["how far?", {"path": "/tmp/up/img_1.png"}, "`img_1`"],
        },
        {"role": "assistant", "content": ["8.05 km", made, "`img_2`"]},
    ]
    # The latest finished turn stays open; a tool's image becomes a link to the served copy.
    assert "status" not in trace[0]["metadata"]
    zoom = next(m for m in trace if m["metadata"]["title"] == "Tool: zoom")
    assert "](/gradio_api/file=/tmp/sessions/img_2.png)" in zoom["content"]


def test_the_mapping_needs_no_gradio():
    code = "import sys, ui.trace.view, ui.page.state; assert 'gradio' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_export_drops_image_paths_inside_a_tools_result_data():
    ref = {"id": "img_2", "path": "/tmp/sessions/img_2.png", "width": 8, "height": 8}
    event = ToolResultEvent(
        step=1,
        call_id="c",
        tool="zoom",
        ok=True,
        text="zoomed",
        duration=0.1,
        data={"source": "img_1", "image": ref, "more": [dict(ref)], "path": "kept/as/is"},
    )
    (exported,) = json.loads(export_trace([event]))
    assert "/tmp/sessions" not in json.dumps(exported)
    assert exported["data"]["image"] == {"id": "img_2", "width": 8, "height": 8}
    assert exported["data"]["path"] == "kept/as/is"


def test_the_status_line_of_an_answered_turn_names_no_error():
    view = TurnView(1, "zh", "q")
    for event in (ONE_OF_EACH[AnswerEvent], ONE_OF_EACH[RunFinishedEvent]):
        view.apply(event)
    assert view.stats_line.startswith("m1") and "错误" not in view.stats_line
    failed = TurnView(1, "zh", "q")
    for event in (ONE_OF_EACH[ErrorEvent], ONE_OF_EACH[RunFinishedEvent]):
        failed.apply(event)
    assert failed.stats_line.startswith("错误 · m1")
