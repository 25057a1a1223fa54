"""What one photo costs to send: the raw upload as base64 vs the prepared copy.

    /work/venv/bin/python -m bench.images            # from the repository root
    /work/venv/bin/python -m bench.images --runs 9

A 12-megapixel photo-like JPEG (4000x3000, gradients, shapes and sensor-like noise, quality 92)
is made in the run. (a) is what a naive client sends: the file, base64-encoded, in a data URL.
(b) is what the agent sends: `load_image` (check, orient, downscale to 1568 px, re-encode) and
`ImageRef.data_url()`. Both are timed in the same run; each figure is the median of `--runs`.
The target is at most 1/8 of the bytes.
"""

from __future__ import annotations

import argparse
import base64
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

from agent.images.store import DEFAULT_MAX_SIDE, ImageStore, load_image

TARGET_RATIO = 1 / 8


def make_photo(width: int = 4000, height: int = 3000) -> bytes:
    """A JPEG that compresses like a photo: smooth light, hard edges, fine grain."""
    light = Image.radial_gradient("L").resize((width, height), Image.Resampling.BILINEAR)
    ramp = Image.linear_gradient("L").resize((width, height), Image.Resampling.BILINEAR)
    grain = Image.effect_noise((width, height), 24)
    texture = Image.effect_noise((width // 8, height // 8), 90).resize(
        (width, height), Image.Resampling.BICUBIC
    )
    red = Image.blend(ramp, grain, 0.25)
    green = Image.blend(light, texture, 0.45)
    blue = Image.blend(ramp.transpose(Image.Transpose.ROTATE_180), grain, 0.3)
    image = Image.merge("RGB", (red, green, blue))
    draw = ImageDraw.Draw(image)
    for i in range(40):
        x, y = (i * 997) % width, (i * 613) % height
        size = 80 + (i * 37) % 400
        colour = ((i * 53) % 256, (i * 97) % 256, (i * 151) % 256)
        shape = draw.ellipse if i % 2 else draw.rectangle
        shape((x, y, x + size, y + size * 2 // 3), fill=colour, outline=(20, 20, 20), width=6)
    image = image.filter(ImageFilter.GaussianBlur(0.8))
    image = Image.blend(image, Image.merge("RGB", (grain, grain, grain)), 0.08)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=92)
    return buffer.getvalue()


def timed(runs: int, action: Callable[[], str]) -> tuple[float, str]:
    times, result = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "photo.jpg"
        path.write_bytes(make_photo())

        def naive() -> str:
            return "data:image/jpeg;base64," + base64.b64encode(path.read_bytes()).decode()

        def prepared(max_side: int) -> Callable[[], str]:
            def run() -> str:
                # A fresh store each run: the same bytes twice in one store are not redone.
                store = ImageStore(root=Path(tempfile.mkdtemp(dir=folder)), max_side=max_side)
                return load_image(path, store=store).data_url()

            return run

        results = [("(a) raw file, base64", "4000x3000", *timed(args.runs, naive))]
        for label, side in (
            ("(b) load_image + data_url", DEFAULT_MAX_SIDE),
            ("(c) the same", 1536),
        ):
            store = ImageStore(root=Path(folder) / f"probe{side}", max_side=side)
            ref = load_image(path, store=store)
            name = f"{label}, {ref.media_type}, max_side={side}"
            results.append((name, f"{ref.width}x{ref.height}", *timed(args.runs, prepared(side))))

    print(
        f"12-megapixel photo-like JPEG q92, {len(results[0][3]) * 3 // 4 / 1e6:.2f} MB on disk; "
        f"median of {args.runs} runs"
    )
    print(f"{'what is sent':<54} {'pixels':>10} {'bytes sent':>12} {'time':>10}")
    for name, pixels, seconds, url in results:
        print(f"{name:<54} {pixels:>10} {len(url):>12,} {seconds * 1000:>8.1f}ms")
    raw_seconds, raw_size = results[0][2], len(results[0][3])
    for name, _, seconds, url in results[1:]:
        ratio = len(url) / raw_size
        verdict = "meets" if ratio <= TARGET_RATIO else "misses"
        print(
            f"{name[:3]}/(a): bytes {ratio:.3f} = 1/{1 / ratio:.1f} ({verdict} the 1/8 target); "
            f"time {seconds / raw_seconds:.0f}x, +{(seconds - raw_seconds) * 1000:.0f} ms "
            "per photo, paid once per upload"
        )


if __name__ == "__main__":
    main()
