"""Image intake: every upload becomes a compact, upright copy with an id, or a plain refusal."""

from __future__ import annotations

import base64
import io
import json
import struct
import threading
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw, JpegImagePlugin, TiffImagePlugin

from agent.images.store import (
    DEFAULT_MAX_SIDE,
    ImageRef,
    ImageRejected,
    ImageStore,
    load_image,
)

# -- helpers ---------------------------------------------------------------------------------


def encoded(image: Image.Image, fmt: str, **params) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **params)
    return buffer.getvalue()


def photo(width: int, height: int) -> Image.Image:
    """Something that compresses like a photo: gradients, shapes and noise."""
    base = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 40)
    image = Image.merge("RGB", (base, noise, base.transpose(Image.Transpose.ROTATE_180)))
    ImageDraw.Draw(image).ellipse((width // 4, height // 4, width // 2, height // 2), fill="red")
    return image


def prepared(ref: ImageRef) -> Image.Image:
    with Image.open(ref.path) as image:
        image.load()
        return image.copy()


def png_with_header(width: int, height: int) -> bytes:
    """A PNG whose header claims `width`x`height` but whose data is a few bytes."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def close(colour, expected, tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, expected, strict=False))


@pytest.fixture
def store(tmp_path: Path) -> ImageStore:
    return ImageStore(root=tmp_path / "images")


# -- the basic contract ----------------------------------------------------------------------


def test_jpeg_upload_gets_an_id_size_and_data_url(store: ImageStore) -> None:
    ref = store.load(encoded(photo(320, 200), "JPEG", quality=92))
    assert ref.id == "img_1"
    assert (ref.width, ref.height) == (320, 200)
    assert (ref.original_width, ref.original_height) == (320, 200)
    assert ref.media_type == "image/jpeg"
    assert ref.original_format == "JPEG" and ref.original_mode == "RGB"
    head, data = ref.data_url().split(",", 1)
    assert head == "data:image/jpeg;base64"
    assert base64.b64decode(data) == Path(ref.path).read_bytes()
    assert store.ids() == ["img_1"] and store.get("img_1") is ref and store.info("img_1") is ref


def test_ids_are_unique_and_the_same_bytes_give_the_same_ref(
    store: ImageStore, tmp_path: Path
) -> None:
    first = encoded(photo(64, 48), "PNG")
    second = encoded(photo(48, 64), "JPEG")
    a = store.load(first)
    b = store.load(second)
    assert (a.id, b.id) == ("img_1", "img_2")
    assert store.load(first) is a
    path = tmp_path / "same.png"
    path.write_bytes(first)
    assert store.load(path) is a
    assert store.load(str(path)).id == "img_1"
    assert store.ids() == ["img_1", "img_2"]


def test_file_names_cannot_be_guessed_from_the_ids(store: ImageStore) -> None:
    a = store.load(encoded(photo(64, 48), "PNG"))
    b = store.add(Image.new("RGB", (8, 8)), "made by a tool")
    names = [Path(ref.path).name for ref in (a, b)]
    assert [n.split("-")[0] for n in names] == ["img_1", "img_2"]
    assert all(len(n.split("-")[1].split(".")[0]) >= 24 for n in names)
    # A second store numbers from 1 again, under other names.
    other = ImageStore(root=store.root.parent / "other").load(encoded(photo(64, 48), "PNG"))
    assert other.id == "img_1" and Path(other.path).name != names[0]


def test_the_same_upload_at_once_from_two_threads_gets_one_id(store: ImageStore) -> None:
    data = encoded(photo(800, 600), "JPEG")
    refs: list[ImageRef] = []
    threads = [threading.Thread(target=lambda: refs.append(store.load(data))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {ref.id for ref in refs} == {"img_1"}
    assert store.ids() == ["img_1"]


def test_load_image_without_a_store_still_numbers_images() -> None:
    data = encoded(photo(40, 30), "PNG")
    ref = load_image(data)
    assert ref.id.startswith("img_") and ref.id[4:].isdigit()
    assert load_image(data).id == ref.id


def test_image_rejected_is_a_value_error() -> None:
    assert issubclass(ImageRejected, ValueError)


# -- size limits -----------------------------------------------------------------------------


def test_large_photo_is_downscaled_to_the_default_longest_side(store: ImageStore) -> None:
    ref = store.load(encoded(photo(4200, 2100), "JPEG", quality=90))
    assert (ref.width, ref.height) == (DEFAULT_MAX_SIDE, DEFAULT_MAX_SIDE // 2)
    assert prepared(ref).size == (ref.width, ref.height)
    assert (ref.original_width, ref.original_height) == (4200, 2100)


def test_max_side_is_configurable_per_store_and_per_call(tmp_path: Path) -> None:
    data = encoded(photo(1000, 500), "PNG")
    small = ImageStore(root=tmp_path, max_side=300)
    assert (small.load(data).width, small.load(data).height) == (300, 150)
    tiny = small.load(data, max_side=100)
    assert (tiny.width, tiny.height) == (100, 50)
    assert tiny.id != small.load(data).id


def test_large_jpeg_is_decoded_at_reduced_scale(store: ImageStore, monkeypatch) -> None:
    requested = []
    original = JpegImagePlugin.JpegImageFile.draft

    def spy(self, mode, size):
        result = original(self, mode, size)
        requested.append((size, self.size))
        return result

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", spy)
    ref = store.load(encoded(photo(2400, 1600), "JPEG"), max_side=256)
    # libjpeg decoded at 1/8 scale; Lanczos brought 300x200 down to exactly 256 px.
    assert requested and requested[0][1] == (300, 200)
    assert (ref.width, ref.height) == (256, 171)


def test_long_thin_image_keeps_at_least_one_pixel(store: ImageStore) -> None:
    ref = store.load(encoded(Image.new("RGB", (5000, 2), "white"), "PNG"))
    assert (ref.width, ref.height) == (DEFAULT_MAX_SIDE, 1)


def test_file_over_the_byte_limit_is_refused_before_it_is_read(tmp_path: Path, monkeypatch) -> None:
    store = ImageStore(root=tmp_path / "images", max_bytes=1_000_000)
    big = tmp_path / "huge.jpg"
    with big.open("wb") as handle:
        handle.truncate(5_000_000)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("the file was read"))
    with pytest.raises(ImageRejected, match=r"huge\.jpg is 5 MB; images up to 1 MB are"):
        store.load(big)


def test_bytes_over_the_byte_limit_are_refused(tmp_path: Path) -> None:
    store = ImageStore(root=tmp_path, max_bytes=1000)
    with pytest.raises(ImageRejected, match=r"The image is \d+ kB; images up to 1 kB are"):
        store.load(encoded(photo(300, 300), "PNG"))


def test_decompression_bomb_header_is_refused_fast_without_allocating(
    store: ImageStore,
) -> None:
    bomb = png_with_header(100_000, 100_000)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ImageRejected, match="too many") as caught:
            store.load(bomb)
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 0.5
    assert peak < 5_000_000  # decoding would need 30 GB
    assert "\n" not in str(caught.value)
    assert store.ids() == []


def test_pixel_limit_is_configurable(tmp_path: Path) -> None:
    store = ImageStore(root=tmp_path, max_pixels=1_000_000)
    with pytest.raises(ImageRejected, match="2000x1000 pixels, too many"):
        store.load(encoded(Image.new("RGB", (2000, 1000)), "PNG"))
    with pytest.raises(ImageRejected, match="too many"):
        store.load(png_with_header(5000, 5000))


# -- orientation and metadata ----------------------------------------------------------------


def two_colour(width: int = 60, height: int = 40) -> Image.Image:
    image = Image.new("RGB", (width, height), "blue")
    ImageDraw.Draw(image).rectangle((0, 0, width // 2 - 1, height), fill="red")
    return image


def test_exif_orientation_6_is_applied_and_not_kept(store: ImageStore) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # the camera was turned a quarter clockwise
    ref = store.load(encoded(two_colour(), "JPEG", exif=exif))
    assert (ref.width, ref.height) == (40, 60)
    assert (ref.original_width, ref.original_height) == (60, 40)
    upright = prepared(ref)
    assert close(upright.getpixel((20, 5)), (255, 0, 0))  # the left half is now on top
    assert close(upright.getpixel((20, 55)), (0, 0, 255))
    assert dict(upright.getexif()) == {}  # a viewer must not rotate it a second time
    assert ref.exif["Orientation"] == 6


def camera_exif() -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F] = "Acme"
    exif[0x0110] = "Acme X100\x00"
    details = exif.get_ifd(0x8769)
    details[0xA434] = "Acme 35mm f/1.8"
    details[0x9003] = "2024:05:01 12:30:45"
    details[0x9011] = "+02:00"
    details[0x829A] = TiffImagePlugin.IFDRational(1, 250)
    details[0x829D] = TiffImagePlugin.IFDRational(18, 10)
    details[0x8827] = 400
    details[0x920A] = TiffImagePlugin.IFDRational(35, 1)
    gps = exif.get_ifd(0x8825)
    gps[1] = "N"
    gps[2] = (
        TiffImagePlugin.IFDRational(52, 1),
        TiffImagePlugin.IFDRational(31, 1),
        TiffImagePlugin.IFDRational(12, 1),
    )
    gps[3] = "W"
    gps[4] = (
        TiffImagePlugin.IFDRational(13, 1),
        TiffImagePlugin.IFDRational(24, 1),
        TiffImagePlugin.IFDRational(36, 1),
    )
    gps[5] = b"\x00"
    gps[6] = TiffImagePlugin.IFDRational(345, 10)
    return exif


def test_useful_exif_is_kept_on_the_ref_as_plain_values(store: ImageStore) -> None:
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">Acme secret place</x:xmpmeta>'
    ref = store.load(encoded(photo(200, 100), "JPEG", exif=camera_exif(), xmp=xmp))
    assert ref.exif == {
        "Make": "Acme",
        "Model": "Acme X100",
        "LensModel": "Acme 35mm f/1.8",
        "DateTimeOriginal": "2024:05:01 12:30:45",
        "OffsetTimeOriginal": "+02:00",
        "ExposureTime": 0.004,
        "FNumber": 1.8,
        "ISOSpeedRatings": 400,
        "FocalLength": 35,
        "GPSLatitude": 52.52,
        "GPSLongitude": -13.41,
        "GPSAltitude": 34.5,
    }
    json.dumps(ref.model_dump())  # no IFDRational or bytes left in it
    assert json.loads(ref.model_dump_json())["exif"]["FNumber"] == 1.8
    info = store.info(ref.id)
    assert (info.original_format, info.original_mode) == ("JPEG", "RGB")


def test_prepared_copy_carries_no_metadata_of_the_upload(store: ImageStore) -> None:
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">Acme secret place</x:xmpmeta>'
    for image, fmt in ((photo(200, 100), "JPEG"), (Image.new("RGBA", (50, 50)), "PNG")):
        ref = store.load(encoded(image, fmt, exif=camera_exif(), xmp=xmp))
        data = Path(ref.path).read_bytes()
        assert b"Acme" not in data and b"Exif" not in data and b"xmpmeta" not in data
        assert prepared(ref).info.get("icc_profile") is None


def test_broken_exif_does_not_cost_the_image(store: ImageStore) -> None:
    data = encoded(photo(100, 80), "JPEG", exif=b"Exif\x00\x00MM\x00*\xff\xff\xff\xff garbage")
    ref = store.load(data)
    assert (ref.width, ref.height) == (100, 80)
    assert ref.exif == {}


def test_image_without_exif_has_an_empty_dict(store: ImageStore) -> None:
    ref = store.load(encoded(photo(30, 20), "PNG"))
    assert ref.exif == {} and ref.original_format == "PNG"


# -- modes -----------------------------------------------------------------------------------


def test_palette_without_transparency_becomes_opaque(store: ImageStore) -> None:
    image = two_colour().convert("P")
    ref = store.load(encoded(image, "PNG"))
    assert ref.original_mode == "P"
    assert prepared(ref).mode == "RGB"
    assert ref.media_type == "image/png"  # two colours: a drawing, kept lossless


def test_palette_with_transparency_keeps_it(store: ImageStore) -> None:
    image = two_colour().convert("P")
    ref = store.load(encoded(image, "PNG", transparency=image.getpixel((0, 0))))
    out = prepared(ref)
    assert out.mode == "RGBA"
    assert out.getpixel((5, 5))[3] == 0 and out.getpixel((55, 5))[3] == 255


@pytest.mark.parametrize("mode", ["LA", "RGBA", "PA"])
def test_alpha_modes_keep_real_transparency(store: ImageStore, mode: str) -> None:
    image = Image.new("RGBA", (40, 40), (0, 128, 0, 255))
    ImageDraw.Draw(image).rectangle((0, 0, 19, 39), fill=(0, 0, 0, 0))
    if mode == "PA":
        image = Image.merge("PA", (image.convert("RGB").convert("P"), image.getchannel("A")))
        ref = store.add(image)
        out = prepared(store.get(ref.id))
    else:
        ref = store.load(encoded(image.convert(mode), "PNG"))
        out = prepared(ref)
        assert ref.original_mode == mode
    assert out.mode == "RGBA"
    assert out.getpixel((5, 5))[3] == 0 and out.getpixel((30, 5))[3] == 255


def test_fully_opaque_alpha_is_dropped(store: ImageStore) -> None:
    ref = store.load(encoded(photo(300, 200).convert("RGBA"), "PNG"))
    assert ref.media_type == "image/jpeg" and prepared(ref).mode == "RGB"


def test_see_through_photo_is_sent_as_webp_not_a_huge_png(tmp_path: Path) -> None:
    image = photo(1200, 900).convert("RGBA")
    ImageDraw.Draw(image).rectangle((0, 0, 300, 900), fill=(0, 0, 0, 0))
    data = encoded(image, "PNG")
    ref = ImageStore(root=tmp_path / "a").load(data)
    assert ref.media_type == "image/webp"
    out = prepared(ref)
    assert out.mode == "RGBA" and out.getpixel((10, 10))[3] == 0
    assert out.getpixel((800, 10))[3] == 255
    as_png = ImageStore(root=tmp_path / "b", allow_webp=False).load(data)
    assert as_png.media_type == "image/png"
    assert Path(ref.path).stat().st_size * 3 < Path(as_png.path).stat().st_size


def test_cmyk_jpeg_keeps_its_colours(store: ImageStore) -> None:
    image = Image.new("CMYK", (40, 40), (0, 255, 255, 0))  # red ink
    ImageDraw.Draw(image).rectangle((20, 0, 39, 39), fill=(255, 255, 0, 0))  # blue ink
    ref = store.load(encoded(image, "JPEG", quality=95))
    out = prepared(ref)
    assert ref.original_mode == "CMYK" and out.mode == "RGB"
    assert close(out.getpixel((5, 20)), (255, 0, 0))
    assert close(out.getpixel((35, 20)), (0, 0, 255))


@pytest.mark.parametrize("mode", ["I;16", "I;16B", "I"])
def test_sixteen_bit_grey_is_scaled_not_clipped_to_white(store: ImageStore, mode: str) -> None:
    image = Image.new(mode, (30, 10))
    for x, value in ((0, 0), (10, 16384), (20, 65535)):
        for dx in range(10):
            for y in range(10):
                image.putpixel((x + dx, y), value)
    data = encoded(image, "PNG" if mode == "I;16" else "TIFF")
    out = prepared(store.load(data))
    assert out.mode == "L"
    assert [out.getpixel((x, 5)) for x in (5, 15, 25)] == [0, 64, 255]


def test_one_bit_image(store: ImageStore) -> None:
    image = Image.new("1", (64, 32), 0)
    ImageDraw.Draw(image).rectangle((32, 0, 63, 31), fill=1)
    ref = store.load(encoded(image, "PNG"))
    out = prepared(ref)
    assert ref.original_mode == "1" and out.mode == "L" and ref.media_type == "image/png"
    assert (out.getpixel((5, 5)), out.getpixel((50, 5))) == (0, 255)


@pytest.mark.parametrize(
    ("values", "expected"),
    [((0.0, 0.5, 1.0), (0, 128, 255)), ((-10.0, 40.0, 90.0), (0, 128, 255))],
)
def test_float_tiff_is_scaled_to_eight_bit(store: ImageStore, values, expected) -> None:
    image = Image.new("F", (30, 10))
    for i, value in enumerate(values):
        image.paste(value, (i * 10, 0, i * 10 + 10, 10))
    ref = store.load(encoded(image, "TIFF"))
    out = prepared(ref)
    assert ref.original_format == "TIFF" and ref.original_mode == "F"
    got = [out.getpixel((x, 5)) for x in (5, 15, 25)]
    assert all(abs(a - b) <= 1 for a, b in zip(got, expected, strict=True))


@pytest.mark.parametrize("fmt", ["GIF", "WEBP"])
def test_animation_gives_its_first_frame(store: ImageStore, fmt: str) -> None:
    frames = [Image.new("RGB", (40, 30), colour) for colour in ("red", "blue", "green")]
    data = encoded(frames[0], fmt, save_all=True, append_images=frames[1:], duration=100)
    ref = store.load(data)
    assert ref.original_format == fmt
    assert (ref.width, ref.height) == (40, 30)
    assert close(prepared(ref).convert("RGB").getpixel((20, 15)), (255, 0, 0))


@pytest.mark.parametrize("fmt", ["BMP", "TIFF", "WEBP", "GIF"])
def test_other_common_formats(store: ImageStore, fmt: str) -> None:
    ref = store.load(encoded(two_colour(), fmt))
    assert ref.original_format == fmt and (ref.width, ref.height) == (60, 40)


# -- images that tools add -------------------------------------------------------------------

ALL_MODES = ["1", "L", "LA", "La", "P", "PA", "RGB", "RGBA", "RGBa", "RGBX", "CMYK"]
ALL_MODES += ["YCbCr", "LAB", "HSV", "I", "I;16", "I;16B", "I;16L", "F"]


@pytest.mark.parametrize("mode", ALL_MODES)
def test_add_accepts_every_mode(store: ImageStore, mode: str) -> None:
    image = Image.new(mode, (30, 20))
    out = store.add(image, label=f"crop {mode}")
    assert isinstance(out, ImageRef)
    assert (out.width, out.height) == (30, 20) and out.label == f"crop {mode}"
    reopened = store.open(out.id)
    assert reopened.size == (30, 20) and reopened.mode in ("L", "RGB", "RGBA")
    assert store.info(out.id).original_mode == mode
    assert image.mode == mode  # the tool's own image is left alone


def test_add_downscales_and_numbers_after_uploads(store: ImageStore) -> None:
    store.load(encoded(photo(50, 50), "PNG"))
    out = store.add(photo(4096, 1024), label="panorama")
    assert out.id == "img_2" and (out.width, out.height) == (
        DEFAULT_MAX_SIDE,
        DEFAULT_MAX_SIDE // 4,
    )
    assert store.ids() == ["img_1", "img_2"]
    assert store.refs()[1].label == "panorama"


# -- refusals a person can read --------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"%PDF-1.7\n1 0 obj", "is a PDF document"),
        (b'<svg xmlns="http://www.w3.org/2000/svg"></svg>', "SVG"),
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "HEIC"),
        (b"hello, this is text", "not an image this app can read"),
        (b"", "is empty"),
    ],
)
def test_not_an_image_is_refused_with_a_reason(store: ImageStore, data: bytes, reason) -> None:
    with pytest.raises(ImageRejected, match=reason) as caught:
        store.load(data)
    assert "\n" not in str(caught.value)


def test_missing_path_and_folder_and_wrong_type(store: ImageStore, tmp_path: Path) -> None:
    with pytest.raises(ImageRejected, match=r"nope\.png was not found"):
        store.load(tmp_path / "nope.png")
    with pytest.raises(ImageRejected, match="not a file"):
        store.load(tmp_path)
    with pytest.raises(ImageRejected, match="neither a file path nor image bytes"):
        load_image(42, store=store)  # type: ignore[arg-type]


def test_cut_off_file_is_called_incomplete(store: ImageStore) -> None:
    data = encoded(photo(300, 200), "PNG")
    with pytest.raises(ImageRejected, match="is incomplete") as caught:
        store.load(data[: len(data) // 2])
    assert "\n" not in str(caught.value)


def test_rejection_names_the_file(store: ImageStore, tmp_path: Path) -> None:
    path = tmp_path / "notes.png"
    path.write_bytes(b"not really a png")
    with pytest.raises(ImageRejected, match=r"^notes\.png is not an image") as caught:
        store.load(path)
    assert caught.value.source == "notes.png"


# -- whatever the bytes ----------------------------------------------------------------------


def samples() -> list[bytes]:
    image = photo(48, 32)
    return [
        encoded(image, "PNG"),
        encoded(image, "JPEG", quality=80),
        encoded(image.convert("P"), "GIF", save_all=True, append_images=[image.convert("P")]),
        encoded(image, "WEBP", quality=70),
        encoded(image.convert("RGBA"), "WEBP", lossless=True),
        encoded(image, "TIFF"),
        encoded(image, "BMP"),
        encoded(Image.new("I;16", (20, 20), 1000), "PNG"),
    ]


SAMPLES = samples()


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory) -> ImageStore:
    return ImageStore(root=tmp_path_factory.mktemp("fuzz"), max_side=64)


def only_ref_or_rejection(store: ImageStore, data: bytes) -> None:
    try:
        ref = store.load(data)
    except ImageRejected as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert 1 <= ref.width <= 64 and 1 <= ref.height <= 64
        json.dumps(ref.model_dump())


FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(data=st.binary(max_size=2048))
def test_random_bytes_give_a_ref_or_a_rejection(fuzz_store: ImageStore, data: bytes) -> None:
    only_ref_or_rejection(fuzz_store, data)


@FUZZ
@given(
    sample=st.sampled_from(SAMPLES),
    cut=st.floats(0, 1),
    flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=8),
)
def test_mutated_real_images_give_a_ref_or_a_rejection(
    fuzz_store: ImageStore, sample: bytes, cut: float, flips
) -> None:
    data = bytearray(sample[: max(1, int(len(sample) * cut))] if cut < 0.9 else sample)
    for where, value in flips:
        data[int(where * (len(data) - 1))] = value
    only_ref_or_rejection(fuzz_store, bytes(data))


@FUZZ
@given(sample=st.sampled_from(SAMPLES), header=st.binary(min_size=1, max_size=64))
def test_real_images_with_a_garbled_header(
    fuzz_store: ImageStore, sample: bytes, header: bytes
) -> None:
    only_ref_or_rejection(fuzz_store, sample[:8] + header + sample[8 + len(header) :])
