"""A PDF dropped on the page like an image: its pages become the conversation's images and
the agent answers from its text; a damaged PDF beside a photo gets one sentence, and the
photo is still used."""

from __future__ import annotations

import pytest
from PIL import Image

from tests.support.pdfs import damaged_pdf, text_pdf

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

INVOICE = [["ACME SUPPLIES", "INVOICE 1042", "Paper 12.00", "TOTAL 42.40"], ["Terms: 30 days"]]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pdfs")
    (folder / "invoice.pdf").write_bytes(text_pdf(INVOICE))
    (folder / "broken.pdf").write_bytes(damaged_pdf())
    Image.new("RGB", (300, 200), "teal").save(folder / "photo.png")
    return folder


def send(page, text: str, *paths) -> None:
    page.set_input_files("#input input[type=file]", [str(p) for p in paths])
    expect(page.locator("#input .thumbnail-item, #input img")).not_to_have_count(0)
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def test_a_pdf_invoice_is_answered_from_its_pages(open_at, files):
    page = open_at(locale="en-US")
    send(page, "what's the total on this invoice?", files / "invoice.pdf")
    reply = page.locator("#chat .bot-row").last
    expect(reply).to_contain_text("42.40", timeout=60_000)
    expect(page.locator("#trace")).to_contain_text("img_2")


def test_a_damaged_pdf_gets_one_sentence_and_the_photo_is_used(open_at, files):
    page = open_at(locale="zh-CN")
    send(page, "这张图片多大？", files / "broken.pdf", files / "photo.png")
    reply = page.locator("#chat .bot-row").last
    expect(reply).to_contain_text("300", timeout=60_000)
    expect(page.locator("#chat")).to_contain_text("“broken.pdf”是无法读取的 PDF")
