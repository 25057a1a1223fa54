"""Small PDFs for tests, written by hand: pages with a real text layer (Helvetica), a scanned
page (an image and no text, from Pillow), a damaged file and one locked with a password."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(pages: list[list[str]], *, encrypt: bool = False, drawing: bytes = b"") -> bytes:
    """A PDF whose page `i` shows the lines `pages[i]` as text (selectable, so it has a text
    layer). With `encrypt`, the trailer names a password handler whose check fails, as a file
    locked with an unknown password does."""
    objects: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree, filled in below
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")  # 3
    kids = []
    for lines in pages:
        ops = ["BT", "/F1 14 Tf", "16 TL", "56 760 Td"]
        ops += [f"({_escape(line)}) '" for line in lines]
        ops.append("ET")
        stream = drawing + "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    refs = b" ".join(b"%d 0 R" % k for k in kids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    trailer_extra = b""
    if encrypt:
        objects.append(
            b"<< /Filter /Standard /V 1 /R 2 /O <" + b"41" * 32 + b"> /U <" + b"42" * 32
            + b"> /P -4 >>"
        )  # fmt: skip
        trailer_extra = b" /Encrypt %d 0 R /ID [<0102> <0102>]" % len(objects)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R%s >>\n" % (len(objects) + 1, trailer_extra))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def scanned_pdf(lines: list[str], size: tuple[int, int] = (900, 600)) -> bytes:
    """A one-page PDF that is only a picture of `lines` (no text layer), as a scanner makes."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        draw.text((40, 40 + 48 * number), line, fill="black", font_size=36)
    out = io.BytesIO()
    image.save(out, "PDF", resolution=150)
    return out.getvalue()


def damaged_pdf() -> bytes:
    return text_pdf([["Total 12.00"]])[:300]


def busy_pdf(pages: int = 10, squares: int = 100_000) -> bytes:
    """Pages each covered with `squares` tiny filled squares: costly to render, small to send."""
    ops = b"".join(b"%d %d 1 1 re\n" % (i % 600, (i // 600) % 780) for i in range(squares))
    return text_pdf([["busy"]] * pages, drawing=ops + b"f\n")
