"""A saved conversation comes back whole: history, pending task, images under their ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from agent.dialogue import PendingTask
from agent.images.store import ImageStore
from agent.session import Session, Turn, load_session, save_session

SIGN = Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png"


def test_a_saved_session_comes_back_with_its_images_under_the_same_ids(tmp_path):
    session = Session()
    upload = session.images.load(SIGN)
    made = session.images.add(Image.new("RGB", (40, 30), "red"), label="red square")
    session.history.append(Turn(user_text="rotate it", image_ids=[upload.id], outcome="asked"))
    session.task = PendingTask(tool="image_edit", request="rotate it", missing=["operation"])
    save_session(session, tmp_path / "s.json")

    back = load_session(tmp_path / "s.json")
    assert back.id == session.id and back.history == session.history and back.task == session.task
    assert back.images.ids() == ["img_1", "img_2"] == [upload.id, made.id]
    assert back.images.get("img_1").exif == upload.exif
    assert back.images.open("img_2").size == (40, 30)
    assert Path(back.images.get("img_1").path).parent == back.images.root
    # Images added after the restore are numbered after the saved ones.
    assert back.images.add(Image.new("RGB", (8, 8))).id == "img_3"


def test_saving_again_keeps_the_file_readable_and_the_images_beside_it(tmp_path):
    path = tmp_path / "s.json"
    session = Session()
    session.images.load(SIGN)
    save_session(session, path)
    back = load_session(path)
    save_session(back, path)
    assert json.loads(path.read_text())["images"][0]["path"] == "img_1.jpg"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.images", "s.json"]


def test_a_saved_path_never_points_outside_the_images_folder(tmp_path):
    session = Session()
    session.images.load(SIGN)
    path = tmp_path / "s.json"
    save_session(session, path)
    document = json.loads(path.read_text())
    document["images"][0]["path"] = "../../etc/passwd"
    path.write_text(json.dumps(document))
    with pytest.raises(FileNotFoundError):
        load_session(path, ImageStore(tmp_path / "store"))


def test_a_file_that_is_not_a_session_is_a_value_error(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"history": "none"}')
    with pytest.raises(ValueError):
        load_session(path)
