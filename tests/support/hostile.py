"""Inputs a hostile visitor sends, made without allocating what they would cost to decode."""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def png_bomb(width: int = 10_900, height: int = 10_900) -> bytes:
    """A real, valid RGBA PNG of `width`x`height` transparent pixels: about 480 kB on disk for
    the default size, 475 MB once decoded. Its pixels are all zero bytes, so the compressed
    stream is one compressed block of zeros, flushed to stand alone, written over and over:
    compressing all 475 MB took seconds of CPU for the same bytes' worth of image."""
    size = height * (1 + width * 4)  # each row: its filter byte, then RGBA
    block = 1 << 22
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: the zlib frame is below
    whole = packer.compress(bytes(block)) + packer.flush(zlib.Z_FULL_FLUSH)
    tail = packer.compress(bytes(size % block)) + packer.flush()
    # Adler-32 of `size` zero bytes: its first sum stays 1, its second adds 1 per byte.
    check = ((size % 65521) << 16) | 1
    body = b"\x78\xda" + whole * (size // block) + tail + struct.pack(">I", check)
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
