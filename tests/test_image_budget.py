"""Images cost bounded memory and never hold the event loop, whatever the file claims."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from agent.images import prepare as image_prepare
from agent.images import store as images
from agent.images.store import ImageRejected, ImageStore
from tests.support.hostile import png_bomb


def png(width: int, height: int, mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, (width, height), "white").save(buffer, "PNG")
    return buffer.getvalue()


def jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "navy").save(buffer, "JPEG")
    return buffer.getvalue()


def test_a_small_png_that_decodes_to_half_a_gigabyte_is_refused_from_its_header(
    tmp_path: Path,
) -> None:
    bomb = png_bomb()  # 10900x10900 RGBA: 118.8 megapixels, under the pixel limit
    assert len(bomb) < 600_000
    store = ImageStore(root=tmp_path)
    started = time.perf_counter()
    with pytest.raises(ImageRejected, match="10900x10900 pixels, too many") as caught:
        store.load(bomb)
    assert time.perf_counter() - started < 1.0
    assert "\n" not in str(caught.value)
    assert store.ids() == []


def test_the_memory_budget_counts_bytes_per_pixel(tmp_path: Path) -> None:
    store = ImageStore(root=tmp_path, max_decoded_bytes=1_000_000)
    store.load(png(900, 900, "L"))  # 0.81 MB grey
    with pytest.raises(ImageRejected, match="too many"):
        store.load(png(600, 600, "RGB"))  # 1.08 MB in colour
    store.load(png(500, 500, "RGB"))


def test_a_jpeg_counts_at_the_scale_it_is_decoded(tmp_path: Path) -> None:
    # 2000x2000 RGB is 12 MB at full size; drafted to fit 256 px it decodes at 1/4 scale.
    store = ImageStore(root=tmp_path, max_side=256, max_decoded_bytes=1_000_000)
    ref = store.load(jpeg(2000, 2000))
    assert (ref.original_width, ref.original_height) == (2000, 2000)
    assert max(ref.width, ref.height) == 256


def test_large_images_shrink_before_the_full_size_copies(tmp_path: Path, monkeypatch) -> None:
    sizes = []
    real = image_prepare._display_mode
    monkeypatch.setattr(
        image_prepare, "_display_mode", lambda image: sizes.append(image.size) or real(image)
    )
    store = ImageStore(root=tmp_path, max_side=200)
    ref = store.load(png(2000, 1000, "RGBA"))
    assert sizes and max(sizes[0]) <= 1000  # reduced by 5 before converting
    assert (ref.width, ref.height) == (200, 100)


async def test_loading_runs_in_a_worker_thread(tmp_path: Path, monkeypatch) -> None:
    threads = []
    real = image_prepare.prepare

    def spy(image, max_side):
        threads.append(threading.current_thread())
        return real(image, max_side)

    monkeypatch.setattr(images, "prepare", spy)
    ref = await ImageStore(root=tmp_path).load_async(png(40, 30))
    assert ref.width == 40
    assert threads and threads[0] is not threading.main_thread()


async def test_at_most_two_images_decode_at_once(tmp_path: Path, monkeypatch) -> None:
    busy, peak = 0, 0
    lock = threading.Lock()
    real = image_prepare.prepare

    def slow(image, max_side):
        nonlocal busy, peak
        with lock:
            busy += 1
            peak = max(peak, busy)
        time.sleep(0.1)
        with lock:
            busy -= 1
        return real(image, max_side)

    monkeypatch.setattr(images, "prepare", slow)
    store = ImageStore(root=tmp_path)
    loads = [store.load_async(png(20 + i, 20)) for i in range(5)]
    refs = await asyncio.gather(*loads)
    assert len({r.id for r in refs}) == 5
    assert peak == images.DECODES_AT_ONCE == 2
