"""Pixels in, compact bytes out: open safely, orient, normalise the mode, downscale, encode.

Everything here works on Pillow images and raises whatever Pillow raises; `agent.images.store` turns
failures into `ImageRejected` with a sentence for a person.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings

from PIL import Image, ImageCms

# The formats a browser or a phone hands over. Naming them keeps Pillow from guessing exotic
# formats (TGA, for one, has no signature and matches random bytes) and from running plugins
# that shell out (EPS). The JPEG opener also yields MPO, the JPEG a camera writes with a second
# (depth or preview) frame. AVIF only where this Pillow was built with it.
FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF", "AVIF")
JPEG_QUALITY = 80
WEBP_QUALITY = 85
# Up to this many distinct colours an image counts as a drawing (chart, diagram, scan, icon):
# PNG keeps its edges and text exact and is usually smaller than JPEG for it. Grey images always
# have at most 256 levels, so for them only a handful counts as flat (a scan, a line drawing).
FLAT_COLOURS = 256
FLAT_GREYS = 16

_SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


class TooManyPixels(Exception):
    def __init__(self, width: int, height: int) -> None:
        super().__init__(f"{width}x{height}")
        self.width = width
        self.height = height


# Bytes per pixel once decoded, by mode; a mode not listed counts as four.
_BYTES_PER_PIXEL = {"1": 1, "L": 1, "P": 1, "LA": 2, "La": 2, "PA": 2, "I;16": 2, "RGB": 3}
# Modes `Image.reduce` handles, for shrinking before the full-size copies that follow.
_REDUCIBLE = ("L", "LA", "La", "RGB", "RGBA", "RGBa", "RGBX", "CMYK", "YCbCr", "I", "F")


def decoded_bytes(image: Image.Image) -> int:
    """What decoding this (possibly drafted) image will allocate, from its header alone."""
    width, height = image.size
    return width * height * _BYTES_PER_PIXEL.get(image.mode, 4)


def open_checked(
    data: bytes, max_pixels: int, max_side: int, max_decoded_bytes: int
) -> tuple[Image.Image, tuple[int, int]]:
    """Open lazily, check the header's size, verify the file's structure, reopen to decode.

    Only the header has been read when the size is checked, so a decompression bomb costs
    nothing but that header. Two budgets apply: pixels in the file, and the memory its decoding
    will take after the JPEG draft (which decodes a large photo at 1/2 to 1/8 scale). A PNG has
    no draft, so a 10,000 px square PNG is refused before a byte of it is decoded.
    Returns the opened image (drafted, not yet decoded) and the size the file declares.
    """
    Image.init()  # registers the plugins, so that the names below mean something
    formats = [name for name in FORMATS if name in Image.OPEN]
    with warnings.catch_warnings():
        # Our own limit decides on size, and Pillow's warnings about odd files (corrupt EXIF,
        # a bomb) are noise in the log, or a refusal where warnings are errors.
        warnings.simplefilter("ignore")
        probe = Image.open(io.BytesIO(data), formats=formats)
        width, height = probe.size
        if width < 1 or height < 1 or width * height > max_pixels:
            raise TooManyPixels(width, height)
        probe.verify()
        image = Image.open(io.BytesIO(data), formats=formats)
        _draft(image, max_side)
        if decoded_bytes(image) > max_decoded_bytes:
            raise TooManyPixels(width, height)
        return image, (width, height)


def prepare(image: Image.Image, max_side: int) -> Image.Image:
    """The copy to keep: first frame, upright, L/RGB/RGBA in sRGB, longest side <= max_side.

    RGBA is returned only when some pixel is actually see-through. The result has no metadata.
    """
    _draft(image, max_side)
    image.load()  # a freshly opened animation is at its first frame
    orientation = _orientation(image)
    image = _shrink_early(image, max_side)
    if orientation in _TRANSPOSE:
        image = image.transpose(_TRANSPOSE[orientation])
    image = _display_mode(image)
    if max(image.size) > max_side:
        # thumbnail() halves with a box filter (reducing_gap) before the Lanczos pass: fast.
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    image = _to_srgb(image)
    image.info = {}  # EXIF, XMP, ICC and text chunks stay behind
    return image


def _draft(image: Image.Image, max_side: int) -> None:
    """Let libjpeg decode at 1/2, 1/4 or 1/8 scale when that still leaves max_side pixels.

    Pillow picks the largest scale that keeps both sides at least the requested size, so the
    request keeps the image's aspect ratio.
    """
    if image.format not in ("JPEG", "MPO") or max(image.size) < 2 * max_side:
        return
    width, height = image.size
    factor = max_side / max(width, height)
    image.draft(image.mode, (math.ceil(width * factor), math.ceil(height * factor)))


_T = Image.Transpose
# EXIF orientation -> the turn that makes the picture upright (as ImageOps.exif_transpose).
_TRANSPOSE = {
    2: _T.FLIP_LEFT_RIGHT,
    3: _T.ROTATE_180,
    4: _T.FLIP_TOP_BOTTOM,
    5: _T.TRANSPOSE,
    6: _T.ROTATE_270,
    7: _T.TRANSVERSE,
    8: _T.ROTATE_90,
}


def _orientation(image: Image.Image) -> int:
    # An unreadable orientation tag leaves the picture as stored, without noise in the log.
    with warnings.catch_warnings(), contextlib.suppress(Exception):
        warnings.simplefilter("ignore")
        return int(image.getexif().get(0x0112) or 1)
    return 1


def _shrink_early(image: Image.Image, max_side: int) -> Image.Image:
    """Reduce a large decoded image by a whole factor before turning, converting and colour
    management each make a full-size copy; the Lanczos pass later still has twice the pixels."""
    factor = max(image.size) // (2 * max_side)
    if factor < 2 or image.mode not in _REDUCIBLE:
        return image
    return image.reduce(factor)  # keeps `info`, so the colour profile still applies


def _display_mode(image: Image.Image) -> Image.Image:
    """L, RGB or RGBA (CMYK stays CMYK until colour management)."""
    mode = image.mode
    if mode in ("1", "L") and "transparency" not in image.info:
        return image.convert("L")
    if mode == "La":  # premultiplied grey converts only to its plain twin
        image, mode = image.convert("LA"), "LA"
    if mode.startswith("I;16"):
        image, mode = image.convert("I"), "I"
    if mode in ("I", "F"):
        return _to_eight_bit(image)
    if mode == "CMYK" or (mode in ("RGB", "L") and "transparency" not in image.info):
        return image
    palette = image.palette.mode if image.palette is not None else None
    if mode == "P" and "transparency" not in image.info and palette != "RGBA":
        return image.convert("RGB")
    if mode in ("P", "PA", "LA", "RGBA", "RGBa", "L", "RGB"):  # the rest carry alpha
        image = image.convert("RGBA")
        lowest, _ = _band_range(image.getchannel("A"))
        return image if lowest < 255 else image.convert("RGB")
    return image.convert("RGB")  # YCbCr, LAB, HSV, RGBX


def _to_eight_bit(image: Image.Image) -> Image.Image:
    """Scale deep grey to 0..255 by its range instead of clipping everything bright to white.

    16-bit data (0..65535) is divided by 256, so its tones look as they would in a viewer;
    floats in 0..1 are multiplied by 255; anything else is stretched from its min to its max.
    """
    low, high = _band_range(image)
    if not (math.isfinite(low) and math.isfinite(high)):
        return Image.new("L", image.size)  # NaN or inf somewhere: no range to scale by
    if image.mode == "F" and low >= 0 and high <= 1:
        scale, offset = 255.0, 0.0
    elif low >= 0 and high <= 255:
        scale, offset = 1.0, 0.0
    elif image.mode == "I" and low >= 0 and high <= 65535:
        scale, offset = 1 / 256, 0.0
    else:
        scale = 255.0 / (high - low)
        offset = -low * scale
    return image.point(lambda v: v * scale + offset).convert("L")


def _band_range(band: Image.Image) -> tuple[float, float]:
    """The lowest and highest value of a one-band image (`getextrema` gives a pair per band
    for several)."""
    low, high = band.getextrema()
    assert not isinstance(low, tuple) and not isinstance(high, tuple), "one band only"
    return low, high


def _to_srgb(image: Image.Image) -> Image.Image:
    """Apply an embedded colour profile (Display P3, Adobe RGB, print CMYK) so colours hold."""
    icc = image.info.get("icc_profile")
    if icc and image.mode in ("RGB", "RGBA", "CMYK"):
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            if "srgb" not in ImageCms.getProfileDescription(source).lower():
                out_mode = "RGBA" if image.mode == "RGBA" else "RGB"
                converted = ImageCms.profileToProfile(image, source, _SRGB, outputMode=out_mode)
                if converted is not None:
                    return converted
        except Exception:  # a broken or unsupported profile: plain conversion below
            pass
    return image.convert("RGB") if image.mode == "CMYK" else image


def encode(image: Image.Image, *, allow_webp: bool = True) -> tuple[bytes, str, str]:
    """Compact bytes for the model: (data, media type, file suffix).

    Photos go as JPEG q85: every vision API and every local server (llama.cpp decodes with
    stb_image, which has no WebP) reads it, and at 1568 px it is a few hundred kB. Drawings
    (few colours) go as PNG, lossless and small for flat areas. See-through photos are the hard
    case: PNG of a 1568 px RGBA photo runs to several MB, so they go as lossy WebP with exact
    alpha, which OpenAI, vLLM and Ollama accept and which is about a tenth of the PNG. With
    `allow_webp=False` (a server without WebP) they go as PNG.
    """
    buffer = io.BytesIO()
    flat = image.getcolors(FLAT_GREYS if image.mode == "L" else FLAT_COLOURS) is not None
    if flat or (image.mode == "RGBA" and not allow_webp):
        image.save(buffer, "PNG", compress_level=6)
        return buffer.getvalue(), "image/png", ".png"
    if image.mode == "RGBA":
        image.save(buffer, "WEBP", quality=WEBP_QUALITY, alpha_quality=100, method=4)
        return buffer.getvalue(), "image/webp", ".webp"
    # Progressive with optimised tables: about 5% smaller, and every decoder reads it.
    image.save(buffer, "JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    return buffer.getvalue(), "image/jpeg", ".jpg"
