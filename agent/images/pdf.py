"""A PDF upload as pictures of its pages, each with the text the PDF itself holds for it.

pdfium (through pypdfium2) opens the file and renders each page at a scale that fits the
store's longest side, so a page's pixels are bounded whatever size the PDF says it is. The
page count is checked before anything is rendered. A page's own text layer is kept: reading
it is exact and instant, where OCR of the picture is neither; a scanned page has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
from PIL import Image

from .prepare import TooManyPixels

DEFAULT_MAX_PAGES = 10
# Where the PDF asks for less, pages are rendered at this many pixels per point at most
# (about 216 dpi): enough for OCR of small print, no more.
MAX_SCALE = 3.0
# A page's text beyond this is not what anyone asked a question about.
MAX_TEXT_CHARS = 20_000


class PdfRefused(ValueError):
    """Why a PDF cannot be used: `kind` names the refusal (`agent.refusals`), `facts` its
    values."""

    def __init__(self, kind: str, **facts: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.facts = facts


@dataclass
class PdfPage:
    image: Image.Image
    number: int  # from 1
    pages: int
    text: str


def is_pdf(data: bytes) -> bool:
    """PDF readers look for the header in the first kilobyte, not only at the start."""
    return b"%PDF-" in data[:1024]


def render_pages(data: bytes, *, max_pages: int, max_side: int, max_pixels: int) -> list[PdfPage]:
    """Each page as a picture whose longest side is at most `max_side`, with its text layer;
    raises PdfRefused for a damaged or locked file, or one with more than `max_pages` pages."""
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        locked = "password" in str(exc).lower()
        raise PdfRefused("pdf_locked" if locked else "pdf_damaged") from exc
    try:
        count = len(document)
        if count == 0:
            raise PdfRefused("pdf_damaged")
        if count > max_pages:
            raise PdfRefused("pdf_pages", pages=count, limit=max_pages)
        return [_page(document, i, count, max_side, max_pixels) for i in range(count)]
    except pdfium.PdfiumError as exc:
        raise PdfRefused("pdf_damaged") from exc
    finally:
        document.close()


def _page(
    document: pdfium.PdfDocument, index: int, count: int, max_side: int, max_pixels: int
) -> PdfPage:
    page = document[index]
    try:
        width, height = page.get_size()
        longest = max(width, height)
        if longest <= 0:
            raise PdfRefused("pdf_damaged")
        scale = min(MAX_SCALE, max_side / longest)
        pixels = round(width * scale) * round(height * scale)
        if pixels > max_pixels:
            raise TooManyPixels(round(width * scale), round(height * scale))
        # pypdfium2 annotates `scale` as an int; pdfium renders at any positive scale.
        render: Any = page.render
        image = render(scale=scale).to_pil().convert("RGB")
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_bounded()[:MAX_TEXT_CHARS]
        finally:
            textpage.close()
    finally:
        page.close()
    lines = (line.strip() for line in text.replace("\r\n", "\n").split("\n"))
    return PdfPage(image, index + 1, count, "\n".join(line for line in lines if line))
