"""An image the app refuses for its size, sent with a question about it: the reply in the
chat says it was refused and why, in the page's language, and never asks to attach it."""

from __future__ import annotations

import re

import pytest
from PIL import Image

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    path = tmp_path_factory.mktemp("images") / "huge.png"
    Image.new("RGB", (12_000, 10_000), "white").save(path)  # small on disk, too many pixels
    return path


@pytest.mark.parametrize(
    ("locale", "question", "said", "attach"),
    [
        ("en-US", "what is in this image?", "was refused", "attach the image first"),
        ("zh-CN", "这张图片里有什么？", "被拒绝", "请先上传图片"),
    ],
)
def test_the_reply_says_the_image_was_refused(open_at, huge, locale, question, said, attach):
    page = open_at(locale=locale)
    page.set_input_files("#input input[type=file]", [str(huge)])
    page.wait_for_function("() => document.querySelectorAll('#input img').length >= 1")
    page.fill("#input textarea", question)
    page.press("#input textarea", "Enter")
    reply = page.locator("#chat .bot-row").last
    sync_api.expect(reply).to_contain_text(said, timeout=30_000)
    assert "huge.png" in reply.inner_text() and attach not in reply.inner_text()
    assert re.search(r"12000[x×]10000", reply.inner_text())
    # The trace has the notice too (folded: its title shows).
    notice = "提示" if locale.startswith("zh") else "Notice"
    sync_api.expect(page.locator("#trace")).to_contain_text(notice)
