"""The offline model reads what every model is given: a request written by hand, as a hosted
model would receive it, holds nothing but messages, tools and a language, and is answered."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from agent import Agent, Session, prompts
from agent.models.base import ModelRequest
from agent.models.offline import OfflineModel, reading
from agent.refusals import refusal
from tests.conftest import collect
from tools import default_tools

TOOLS = default_tools()
MODEL = OfflineModel()


@pytest.fixture
def sign(tmp_path):
    path = tmp_path / "sign.png"
    Image.new("RGB", (300, 200), "white").save(path)
    return path


def react(*messages: dict, language: str = "en") -> ModelRequest:
    header = prompts.react_header(TOOLS, language)
    return ModelRequest(
        messages=[{"role": "system", "content": header}, *messages],
        tools=TOOLS,
        language=language,
    )


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def test_the_request_carries_nothing_but_what_every_model_reads():
    assert "facts" not in ModelRequest.model_fields


def test_a_question_then_its_observation():
    asked = user("What is 15 + 6?")
    step = MODEL.reply(react(asked))
    assert step.splitlines()[1:] == ["Action: calculator", 'Action Input: {"expression": "15 + 6"}']
    observed = user("Observation: 15 + 6 = 21")
    answer = MODEL.reply(react(asked, {"role": "assistant", "content": step}, observed))
    assert answer.endswith("Answer: 15 + 6 = 21")


def test_an_image_part_and_its_note():
    message = {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "What does the sign say?\n[Images: img_1 (900x700, sign.png)]",
            },
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    }
    step = MODEL.reply(react(message))
    assert "Action: read_text" in step and '"image_id": "img_1"' in step


def test_a_failed_step_is_said_as_failed():
    asked = user("What is 15 + 6?")
    step = MODEL.reply(react(asked))
    failed = user("Observation: Error: the expression could not be read")
    answer = MODEL.reply(react(asked, {"role": "assistant", "content": step}, failed))
    assert answer.startswith("Thought: The tool could not do it.\nAnswer: I could not finish that")
    assert "the expression could not be read" in answer


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_pending_task_the_slot_filling_prompt_states(language):
    tool = next(t for t in TOOLS if t.name == "convert_units")
    known = {"value": 5, "from_unit": "mile"}
    state = prompts.task_state_text(tool.name, known, ["to_unit"], language)
    thought = {"content": "", "tool_to_use_for_user": tool.name, "known_params": known}
    transcript = (
        f"Thought: {json.dumps(thought)}\nAction: ASK_USER_FOR_REQUIRED_PARAMS\n"
        'Action Input: {"question": "Which unit?"}\nObservation: km'
    )
    prompt = prompts.filling_slot_prompt(tool, "convert 5 miles", transcript, language, state)
    request = ModelRequest(messages=[user(prompt)], tools=TOOLS, language=language)
    facts = reading.read(request).facts
    assert (facts.question, facts.pending_tool, facts.known) == ("km", tool.name, known)
    step = MODEL.reply(request)
    assert step.splitlines()[1] == "Action: convert_units"
    assert json.loads(step.splitlines()[2].removeprefix("Action Input: ")) == {
        **known,
        "to_unit": "km",
    }


def test_the_note_on_uploads_that_never_arrived():
    big = refusal("too_big", "zh", name="a.png", size="30 MB", limit="20 MB")
    twice = refusal("duplicate", "zh", name="b.png", image="img_1")
    note = prompts.phrase("zh", "refused_note", reasons=f"{big} {twice}")
    request = react(user(f"图里是什么\n{note}"), language="zh")
    assert reading.read(request).facts.refused_images == [big, twice]
    reply = MODEL.reply(request)
    assert "a.png" in reply and "被拒绝" in reply


class Recording(OfflineModel):
    """The offline model, keeping each request it answers."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[ModelRequest] = []

    def reply(self, request: ModelRequest) -> str:
        self.requests.append(request)
        return super().reply(request)


async def test_what_the_plugin_task_prompts_tell_every_model():
    model = Recording()
    agent = Agent(model, TOOLS, style="plugin-task")
    session = Session()
    await collect(agent, "convert 5 miles", session=session)
    events = await collect(agent, "km", session=session)
    assert "8.04672 km" in events[-1].text
    filling, final = model.requests[-2:]
    # What was merged in code from the earlier turn is stated, not only the transcript.
    prompt = str(filling.messages[-1]["content"])
    assert "Tool: convert_units; known parameters: {" in prompt and '"value": 5' in prompt
    # The final call has the conversation too, as every call of the turn has.
    assert final.purpose == "final" and final.messages[0]["content"] == "convert 5 miles"


async def test_an_image_a_tool_made_earlier_is_named_to_every_model(sign):
    model = Recording()
    agent = Agent(model, TOOLS)
    session = Session()
    await collect(agent, "Rotate this 90 degrees", [sign], session=session)
    events = await collect(agent, "How big is img_2?", session=session)
    said = str(model.requests[-2].messages[-1]["content"])
    note = "[Other images in this conversation, not shown: img_2 ("
    assert said.startswith(f"How big is img_2?\n{note}")
    assert next(e for e in events if e.type == "tool_call").arguments == {"image_id": "img_2"}
