"""A PDF is read as the images of its pages, each with its own text: `read_text` returns a
page's text layer, OCR only a scanned page; a damaged, locked or over-long PDF gets one
sentence in the person's language, and the rest of the message goes on."""

from __future__ import annotations

import pytest

from agent import Agent, Session
from agent.images import ImageRejected, ImageStore, load_image
from agent.images.intake import sort_images
from agent.models import OfflineModel
from tests.conftest import collect
from tests.support.pdfs import damaged_pdf, scanned_pdf, text_pdf
from tools import default_tools

INVOICE = [
    ["ACME SUPPLIES", "INVOICE 1042", "Paper 12.00", "Toner 30.40", "TOTAL 42.40"],
    ["Terms: 30 days"],
    ["Thank you"],
]


@pytest.fixture(scope="module")
def tools():
    return default_tools()


def write(folder, name: str, data: bytes):
    path = folder / name
    path.write_bytes(data)
    return path


def test_each_page_is_an_image_with_its_text(tmp_path):
    store = ImageStore(root=tmp_path / "store")
    refs = store.load_upload(write(tmp_path, "invoice.pdf", text_pdf(INVOICE)))
    assert [(r.id, r.page, r.pages) for r in refs] == [
        ("img_1", 1, 3),
        ("img_2", 2, 3),
        ("img_3", 3, 3),
    ]
    assert refs[0].text_layer.splitlines()[-1] == "TOTAL 42.40"
    assert refs[0].source_name == "invoice.pdf" and max(refs[0].width, refs[0].height) <= 1568
    # The same PDF again is the same pages, not new ones.
    assert store.load_upload(write(tmp_path, "again.pdf", text_pdf(INVOICE))) == refs


def test_a_scanned_page_has_no_text_layer(tmp_path):
    (ref,) = ImageStore(root=tmp_path).load_upload(scanned_pdf(["TOTAL 9.99"]))
    assert ref.page == 1 and ref.text_layer == "" and ref.original_format == "PDF"


@pytest.mark.parametrize(
    ("data", "kind", "words"),
    [
        (damaged_pdf(), "pdf_damaged", "could not be read"),
        (text_pdf([["secret"]], encrypt=True), "pdf_locked", "password"),
        (text_pdf([[f"page {n}"] for n in range(500)]), "pdf_pages", "500 pages"),
        (text_pdf([[f"page {n}"] for n in range(11)]), "pdf_pages", "at most 10 pages"),
    ],
)
def test_a_pdf_that_cannot_be_used_gets_one_sentence(tmp_path, data, kind, words):
    with pytest.raises(ImageRejected) as caught:
        ImageStore(root=tmp_path).load_upload(write(tmp_path, "doc.pdf", data))
    assert caught.value.kind == kind and words in str(caught.value)
    assert str(caught.value).startswith("doc.pdf ") and ". " not in str(caught.value)
    assert "PDF" in caught.value.said("zh")


def test_the_page_limit_is_the_operators(tmp_path):
    data = text_pdf([[f"page {n}"] for n in range(12)])
    assert len(ImageStore(root=tmp_path, max_pdf_pages=12).load_upload(data)) == 12


def test_load_image_still_takes_one_image_only():
    with pytest.raises(ImageRejected) as caught:
        load_image(text_pdf(INVOICE))
    assert caught.value.kind == "pdf"


async def test_a_refused_pdf_leaves_the_other_uploads(tmp_path):
    store = ImageStore(root=tmp_path / "store")
    sources = [write(tmp_path, "a.pdf", damaged_pdf()), text_pdf([["one"], ["two"]])]
    refs, refused = await sort_images(store, sources)
    assert [r.page for r in refs] == [1, 2] and [r.kind for r in refused] == ["pdf_damaged"]
    refs, refused = await sort_images(store, [text_pdf([["one"], ["two"]])] * 2)
    assert len(refs) == 2 and [r.kind for r in refused] == ["duplicate"]


async def test_the_offline_agent_answers_about_a_pdf_invoice(tools, tmp_path):
    invoice = write(tmp_path, "invoice.pdf", text_pdf(INVOICE))
    agent = Agent(OfflineModel(), tools)
    events = await collect(agent, "what's the total on this invoice?", [invoice], Session())
    assert events[-1].type == "answer" and "42.40" in events[-1].text
    read = [e for e in events if e.type == "tool_result" and e.tool == "read_text"]
    assert read and read[0].data["text_layer"] is True


async def test_the_offline_agent_reads_a_scanned_pdf(tools, tmp_path):
    scan = write(tmp_path, "scan.pdf", scanned_pdf(["FRESH MARKET", "TOTAL 16.65"]))
    agent = Agent(OfflineModel(), tools)
    events = await collect(agent, "what's the total?", [scan], Session())
    assert events[-1].type == "answer" and "16.65" in events[-1].text
