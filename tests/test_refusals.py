"""A refused upload is explained in the page's language: every kind in English and Chinese."""

from __future__ import annotations

import re

import pytest

from agent.images.intake import prepare_images
from agent.images.store import ImageRejected, ImageStore
from agent.refusals import SENTENCES, refusal

CJK = re.compile(r"[\u3400-\u9fff]")


def test_every_refusal_is_written_in_both_languages():
    assert SENTENCES["en"].keys() == SENTENCES["zh"].keys()
    facts = {"size": "30 MB", "limit": "20 MB", "width": 9000, "height": 9000, "image": "img_1"}
    facts["pages"] = 500
    for kind in SENTENCES["en"]:
        english = refusal(kind, "en", name="a.png", **facts)
        chinese = refusal(kind, "zh", name="a.png", **facts)
        assert "{" not in english + chinese and CJK.search(chinese) and not CJK.search(english)


def test_a_rejection_keeps_its_english_message_and_says_it_in_chinese(tmp_path):
    fake = tmp_path / "notes.png"
    fake.write_text("plain text renamed as a picture")
    with pytest.raises(ImageRejected) as caught:
        ImageStore(tmp_path / "store").load(fake)
    assert str(caught.value) == (
        "notes.png is not an image this app can read (use PNG, JPEG, WebP, GIF, BMP or TIFF)."
    )
    assert caught.value.said("zh") == (
        "“notes.png”不是本应用能读取的图片（请使用 PNG、JPEG、WebP、GIF、BMP 或 TIFF）。"
    )


async def test_prepared_images_are_refused_in_the_turns_language(tmp_path):
    fake = tmp_path / "scan.pdf"
    fake.write_bytes(b"%PDF-1.4 not really")
    good, refused = await prepare_images(ImageStore(tmp_path / "store"), [fake], "zh-CN")
    assert good == [] and refused == ["“scan.pdf”是无法读取的 PDF，可能已损坏。"]
