"""The page's handlers called directly, without building or launching the page."""

from __future__ import annotations

import asyncio
import json
import zipfile
from pathlib import Path

import gradio as gr
import pytest

from agent.config import Settings
from agent.models import OfflineModel, ScriptedModel
from tests.conftest import Echo
from tools.convert_units import ConvertUnits
from ui.handlers import PageHandlers
from ui.page.state import PageState, Prefs
from ui.page.values import page_values

ECHO = ['Thought: echo it.\nAction: echo\nAction Input: {"text": "hi"}', "Answer: It said hi."]


pytestmark = pytest.mark.usefixtures("no_model_env")


def handlers(*replies: str, delay: float = 0.0, tools=None) -> PageHandlers:
    return PageHandlers(
        model_factory=lambda prefs: ScriptedModel(list(replies), delay=delay, name="fake"),
        env=Settings(),
        tools=[Echo()] if tools is None else tools,
    )


async def run(stream) -> list[tuple]:
    return [update async for update in stream]


def titles(trace: list[dict]) -> list[str]:
    return [m["metadata"]["title"] for m in trace]


async def test_a_turn_streams_the_question_first_and_the_answer_last():
    page = handlers(*ECHO)
    updates = await run(page.chat({"text": "echo hi", "files": []}, None))
    chat, trace, state, status = updates[0]
    assert isinstance(state, PageState)
    assert chat == [
        {"role": "user", "content": ["echo hi"]},
        {
            "role": "assistant",
            "content": "",
            "metadata": {"title": "Thinking…", "status": "pending"},
        },
    ]
    assert titles(trace) == ["Turn 1: echo hi"] and status == "Working…"
    chat, trace, state, status = updates[-1]
    assert chat[-1] == {"role": "assistant", "content": "It said hi."}
    assert "Tool: echo" in titles(trace)
    assert status.startswith("fake · ReAct text · 1 tool call · 2 model calls")
    with zipfile.ZipFile(state.trace_file) as archive:
        saved = json.loads(archive.read("conversation.json"))
    assert saved["turns"][-1]["events"][-1]["type"] == "answer"
    download = page.download_update(state)
    assert download.interactive


async def test_the_same_state_continues_the_conversation_on_the_offline_model():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits()])
    *_, (chat, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    assert "unit" in chat[-1]["content"].lower()
    *_, (chat, trace, _, _) = await run(page.chat({"text": "km"}, state))
    assert len(chat) == 4 and "8.0" in chat[-1]["content"]
    # Finished turns fold, the latest stays open.
    first, second = (m["metadata"] for m in trace if m["metadata"]["id"] in ("turn-1", "turn-2"))
    assert first["status"] == "done" and "status" not in second
    state.close()


async def test_stop_marks_the_running_turn_stopped_and_offers_its_trace():
    page = handlers("Thought: I will take my time with this one.\nAnswer: late", delay=0.05)
    stream = page.chat({"text": "anything"}, None)
    _, _, state, _ = await anext(stream)
    while not state.turns[-1].view.messages[1:]:
        await anext(stream)
    chat, trace, state, status, download = await page.stop(state)  # the turn waits, unfinished
    await stream.aclose()
    assert chat[-1]["content"] == "Stopped before it finished."
    assert status == "Stopped · fake"  # never "Working…" again
    assert "Stopped" in titles(trace)
    assert download.interactive and Path(state.trace_file).exists()


async def test_a_turn_cancelled_without_stop_shows_as_stopped_not_thinking():
    page = handlers("Thought: I will take my time with this one.\nAnswer: late", delay=0.05)
    stream = page.chat({"text": "anything"}, None)
    _, _, state, _ = await anext(stream)
    await stream.aclose()  # a client's cancel, or a client gone: no Stop handler runs
    chat, *_ = page_values(state)
    assert chat[-1] == {"role": "assistant", "content": "Stopped before it finished."}
    assert Path(state.trace_file).exists()
    # Stop afterwards changes nothing more.
    chat, trace, _, status, download = await page.stop(state)
    assert all(value == gr.skip() for value in (chat, trace, status, download))


async def test_clear_forgets_the_conversation_and_the_trace_file():
    page = handlers(*ECHO)
    *_, (_, _, state, _) = await run(page.chat({"text": "echo hi"}, None))
    chat, trace, state, status, box, download = page.clear(state)
    assert (chat, trace, status) == ([], [], "")
    # What the input holds is not the conversation: the update leaves its value alone.
    assert box.constructor_args == {"stop_btn": False}
    assert box.stop_btn is False  # a turn cleared while running leaves no stop square
    assert state.turns == [] and not download.interactive


async def test_retry_runs_the_last_message_again_in_its_place():
    page = handlers(*ECHO)
    assert [u[0] for u in await run(page.retry(None))] == [[]]
    *_, (_, _, state, _) = await run(page.chat({"text": "echo hi"}, None))
    page.make_model = lambda prefs: ScriptedModel(["Answer: again"], name="fake")
    updates = await run(page.retry(state))
    chat, trace, _, _ = updates[-1]
    assert [m["role"] for m in chat] == ["user", "assistant"]
    assert chat[-1]["content"] == "again"
    assert titles(trace)[0] == "Turn 1: echo hi"


async def test_an_example_starts_a_new_request_instead_of_answering_a_question():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits()])
    *_, (_, _, state, _) = await run(page.chat({"text": "convert 5 miles"}, None))
    assert state.session.task is not None
    *_, (chat, _, _, _) = await run(page.run_example({"text": "km"}, state))
    assert "8.0" not in chat[-1]["content"]
    state.close()


@pytest.mark.parametrize(
    ("language", "request_text", "reply", "waiting"),
    [
        ("en", "convert 5 miles", "km", "Waiting for your answer · "),
        ("zh", "换算 5 英里", "公里", "等待您的回答 · "),
    ],
)
async def test_the_status_line_says_a_question_waits_for_the_answer(
    language, request_text, reply, waiting
):
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits()])
    state = page.new_state()
    state.prefs.language = language
    *_, (_, _, state, status) = await run(page.chat({"text": request_text}, state))
    assert status.startswith(waiting) and ("model call" in status or "模型调用" in status)
    *_, (_, _, state, status) = await run(page.chat({"text": reply}, state))
    assert not status.startswith(waiting)
    state.close()


@pytest.mark.parametrize(
    ("language", "turns", "aside"),
    [
        ("en", ["convert 5 miles", "what time is it"], "set my earlier question aside"),
        ("zh", ["换算 5 英里", "现在几点了？"], "先放下了之前的问题"),
    ],
)
async def test_a_question_set_aside_is_said_in_the_chat_and_again_after_a_reload(
    language, turns, aside
):
    from tools.world_clock import WorldClock
    from ui.page.values import answer_message
    from ui.trace.view import render

    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits(), WorldClock()])
    state = page.new_state()
    state.prefs.language = language
    for text in turns:
        *_, (chat, _, state, _) = await run(page.chat({"text": text}, state))
    question, _, said = chat[-1]["content"].partition("\n\n")
    assert aside in said and aside not in question
    record = state.turns[-1]
    restored = render(record.events, 2, language, record.text)  # as a reload draws it
    assert answer_message(restored)["content"] == chat[-1]["content"]
    state.close()


def test_set_pref_changes_one_setting_and_the_offline_banner():
    page = handlers()
    state, banner = page.set_pref("source")("openai", None)
    assert state.prefs.source == "openai" and banner.visible is False
    state, banner = page.set_pref("source")("offline", state)
    assert banner.visible is True
    state, _ = page.set_pref("model")("my-model", state)
    assert state.prefs.model == "my-model"
    # A cleared field goes back to the default.
    state, _ = page.set_pref("max_steps")(None, state)
    assert state.prefs.max_steps == page.prefs0.max_steps


def test_take_message_empties_the_input_only_when_the_turn_can_start():
    page = PageHandlers(env=Settings(), tools=[])
    message = {"text": "hello", "files": []}
    box, taken = page.take_message(message, None)
    checked = taken.pop("checked")  # marked checked: its turn does not check it again
    assert type(checked).__name__ == "Checked"
    assert taken == {**message, "stops": 0}  # no Stop pressed yet
    assert box.value == {"text": "", "files": []} and box.stop_btn is True  # emptied, square on
    too_long = {"text": "x" * (Settings().max_message_chars + 1), "files": []}
    assert page.take_message(too_long, None) == (gr.skip(), too_long)
    state = page.new_state()
    state.prefs.source = "openai"  # no key, no base URL
    assert page.take_message(message, state) == (gr.skip(), message)


async def test_a_hosted_model_without_key_or_url_warns_and_leaves_no_turn():
    page = PageHandlers(env=Settings(), tools=[])
    state = PageState(Prefs(source="openai"), Settings())
    with pytest.warns(UserWarning, match="API key or a base URL"):
        updates = await run(page.chat({"text": "hello"}, state))
    assert updates[-1][0] == [] and state.turns == []


async def test_an_empty_message_is_refused_in_a_sentence():
    page = handlers()
    with pytest.raises(gr.Error, match="Type a question or attach an image first"):
        await run(page.chat({"text": "  "}, None))


@pytest.mark.parametrize("text", ["  ", "x" * 20_000])
async def test_a_refused_message_on_the_page_warns_and_keeps_the_conversation(text):
    # A raised error would cover the chat and the trace with error badges on the page.
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits()])
    state = page.new_state()
    await run(page.send({"text": "convert 5 miles", "files": []}, state))
    shown = page_values(state)[0]
    with pytest.warns(UserWarning):
        updates = await run(page.send({"text": text, "files": []}, state))
    assert updates[-1][0] == shown and len(state.turns) == 1


async def test_only_unreadable_files_give_one_message(tmp_path):
    fake = tmp_path / "notes.png"
    fake.write_text("plain text, not an image")
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits()])
    state = page.new_state()
    with pytest.warns(UserWarning) as told:
        updates = await run(page.send({"text": "", "files": [str(fake)]}, state))
    assert len(told) == 1 and "notes.png" in str(told[0].message)
    assert updates[-1][0] == [] and state.turns == []
    # A Chinese page says it in Chinese.
    state.prefs.language = "zh"
    with pytest.warns(UserWarning) as told:
        await run(page.send({"text": "", "files": [str(fake)]}, state))
    assert [str(w.message) for w in told] == [
        "“notes.png”不是本应用能读取的图片（请使用 PNG、JPEG、WebP、GIF、BMP 或 TIFF）。"
    ]


async def test_a_chinese_page_is_told_in_chinese_that_a_hosted_model_needs_a_key(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    page = PageHandlers(env=Settings(), tools=[])
    state = PageState(Prefs(source="openai", language="zh"), Settings())
    with pytest.warns(UserWarning, match="需要 API 密钥或接口地址"):
        await run(page.chat({"text": "你好"}, state))


async def test_the_handlers_keep_sessions_apart():
    page = PageHandlers(lambda prefs: OfflineModel(), Settings(), [ConvertUnits()])
    first, second = page.new_state(), page.new_state()
    await asyncio.gather(
        run(page.chat({"text": "convert 5 miles"}, first)),
        run(page.chat({"text": "km"}, second)),
    )
    assert first.session.task is not None and second.session.task is None
    for state in (first, second):
        state.close()


def test_messages_held_during_one_turn_say_wait_once_while_the_toast_shows(monkeypatch):
    from ui import handlers as module
    from ui.handlers import HELD

    said = []
    monkeypatch.setattr(module.gr, "Info", lambda text, **kw: said.append((text, kw)))
    page = handlers("Answer: fine")
    state = page.new_state()
    state.running = 1
    page.tell_held(HELD, state)  # Enter during the run
    page.tell_held(HELD, state)  # then the send arrow
    page.tell_held({"text": "sent"}, state)  # a message that was sent says nothing
    assert len(said) == 1 and said[0][1]["duration"] == module.WAIT_TOAST_SECONDS
    page.tell_held_example(HELD, state)  # an example's toast says something else: shown
    assert len(said) == 2
    state.wait_told_at["wait_turn"] -= module.WAIT_TOAST_SECONDS  # the first toast has gone
    page.tell_held(HELD, state)
    assert len(said) == 3
    state.close()


async def test_a_message_sent_while_a_turn_runs_stays_in_the_input_and_sends_nothing():
    from ui.handlers import HELD, UNCHANGED

    page = handlers("Answer: fine")
    state = page.new_state()
    state.running = 1
    message = {"text": "second", "files": []}
    assert page.take_message(message, state) == (gr.skip(), HELD)
    # The page keeps what it shows: every output is left as it is.
    assert await run(page.send(HELD, state)) == [UNCHANGED]
    assert await run(page.run_example(HELD, state)) == [UNCHANGED]
    assert all(value == gr.skip() for value in UNCHANGED)
    assert state.turns == []
    box = page.turn_ended(state)[1]
    assert box.stop_btn is True  # the running turn keeps its stop square
