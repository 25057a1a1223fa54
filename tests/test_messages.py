"""Conversation -> OpenAI messages: images once, old images as text, long histories trimmed."""

from __future__ import annotations

from PIL import Image

from agent.messages import (
    HISTORY_IMAGE_LIMIT,
    HISTORY_TURN_LIMIT,
    StepRecord,
    action_text,
    history_messages,
    react_messages,
)
from agent.session import Session, Turn
from tests.conftest import png_bytes


def image_bytes(colour: str) -> bytes:
    return png_bytes(Image.new("RGB", (8, 8), colour))


def test_action_replay_is_json_never_python_repr():
    text = action_text("go", "zoom", {"region": "top-left", "factor": 2, "sharp": True})
    assert text.endswith('Action Input: {"region": "top-left", "factor": 2, "sharp": true}')


def test_old_images_become_text_and_recent_ones_are_sent_once():
    session = Session()
    colours = ["red", "green", "blue", "white", "black", "yellow"]
    for colour in colours:
        ref = session.images.load(image_bytes(colour))
        session.history.append(Turn(user_text=colour, image_ids=[ref.id], reply="ok"))
    messages = history_messages(session, "low")
    parts = [p for m in messages if isinstance(m["content"], list) for p in m["content"]]
    assert sum(p["type"] == "image_url" for p in parts) == HISTORY_IMAGE_LIMIT
    assert "Earlier images, not shown again: img_1" in str(messages[0]["content"])
    assert all(p["image_url"]["detail"] == "low" for p in parts if p["type"] == "image_url")


def test_long_histories_keep_their_latest_turns():
    session = Session()
    for i in range(HISTORY_TURN_LIMIT + 5):
        session.history.append(Turn(user_text=f"question {i}", reply=f"answer {i}"))
    messages = history_messages(session, "auto")
    assert len(messages) == 2 * HISTORY_TURN_LIMIT
    assert messages[0]["content"] == "question 5"


def test_steps_follow_the_user_turn_with_observation_images():
    session = Session()
    upload = session.images.load(image_bytes("red"))
    crop = session.images.load(image_bytes("blue"))
    steps = [
        StepRecord(
            text="Thought: x\nAction: zoom\nAction Input: {}",
            observation="done",
            image_ids=[crop.id],
        )
    ]
    messages = react_messages("HEADER", session, "look", [upload], steps, "auto")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"][0]["text"] == f"look\n[Images: {upload.id} (8x8)]"
    assert messages[3]["content"][0]["text"].startswith("Observation: done")
