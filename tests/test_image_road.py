"""One road for an image: checked once, handed on as a reference, encoded once."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from agent import Agent, Session
from agent.config import Settings
from agent.images import store as images
from agent.images.intake import prepare_images
from agent.images.store import ImageStore
from agent.models import ScriptedModel
from tests.conftest import collect


def photo(tmp_path: Path) -> Path:
    path = tmp_path / "photo.png"
    Image.new("RGB", (300, 200), "teal").save(path)
    return path


async def test_a_checked_upload_is_not_read_again_by_the_agent(tmp_path, monkeypatch):
    session = Session(images=ImageStore(root=tmp_path / "s"))
    refs, refused = await prepare_images(session.images, [photo(tmp_path)])
    assert refused == [] and [r.id for r in refs] == ["img_1"]
    reads = []
    monkeypatch.setattr(images, "read_source", lambda *a: reads.append(a) or (b"", ""))
    model = ScriptedModel(["Answer: a teal picture"])
    events = await collect(Agent(model, []), "what is this?", refs, session)
    assert events[-1].type == "answer" and reads == []
    assert [i.id for i in events[0].images] == ["img_1"]


async def test_the_encoded_copy_is_made_once_for_every_model_call(tmp_path, monkeypatch):
    session = Session(images=ImageStore(root=tmp_path / "s"))
    (ref,), _ = await prepare_images(session.images, [photo(tmp_path)])
    first = ref.data_url()
    Path(ref.path).unlink()  # a second read would fail now
    model = ScriptedModel(["Answer: one", "Answer: two"])
    agent = Agent(model, [])
    await collect(agent, "look", [ref], session)
    await collect(agent, "and again?", session=session)
    sent = [
        part["image_url"]["url"]
        for request in model.requests
        for message in request.messages
        if isinstance(message["content"], list)
        for part in message["content"]
        if part["type"] == "image_url"
    ]
    assert sent == [first, first]


async def test_the_stores_setting_decides_the_size(tmp_path):
    agent = Agent(ScriptedModel(["Answer: ok"]), [], settings=Settings(AGENT_MAX_IMAGE_SIDE=100))
    session = agent.new_session()
    events = await collect(agent, "look", [photo(tmp_path)], session)
    assert (events[0].images[0].width, events[0].images[0].height) == (100, 67)
