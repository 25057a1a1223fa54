"""Inputs a hostile visitor sends, made without allocating what they would cost to decode."""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def png_bomb(width: int = 10_900, height: int = 10_900) -> bytes:
    """A real, valid RGBA PNG of `width`x`height` transparent pixels: about 480 kB on disk for
    the default size, 475 MB once decoded. Rows are compressed one at a time."""
    row = b"\x00" + b"\x00" * (width * 4)
    packer = zlib.compressobj(9)
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", body)
        + _chunk(b"IEND", b"")
    )


# Messages that once stalled the whole server or held gigabytes.
UNIT_TOWER = "convert 5 m^3^3^3^3 to km"
FORMAT_WIDTH = 'calculate f"{1:>1999999999}"'
