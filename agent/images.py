"""Image intake: check, orient, downscale and encode an upload; store it under a session id.

`load_image` is the one way in. Whatever bytes arrive, either an `ImageRef` comes out or
`ImageRejected` with a one-line reason a person understands; nothing else escapes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import tempfile
import threading
import warnings
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError
from pydantic import BaseModel

from tools.base import ImageOut

DEFAULT_MAX_SIDE = 2048
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
# Enough for a 100-megapixel photo; anything larger is refused before it is decoded.
MAX_PIXELS = 100_000_000
JPEG_QUALITY = 85


class ImageRejected(ValueError):
    """An upload that is not a usable image; the message is one sentence for a person."""

    def __init__(self, message: str, *, source: str = "") -> None:
        super().__init__(message)
        self.source = source


class ImageRef(BaseModel):
    """A prepared image: the copy the model and the tools see, and how to find it again."""

    id: str
    width: int
    height: int
    media_type: str
    path: str
    digest: str
    original_width: int = 0
    original_height: int = 0
    source_name: str = ""
    label: str = ""

    def data_url(self) -> str:
        data = Path(self.path).read_bytes()
        return f"data:{self.media_type};base64,{base64.b64encode(data).decode('ascii')}"


def _read_source(source: str | Path | bytes, max_bytes: int) -> tuple[bytes, str]:
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        name = ""
    else:
        path = Path(source)
        name = path.name
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise ImageRejected(f"The file {name or path} could not be read.", source=name) from exc
        if not path.is_file():
            raise ImageRejected(f"{name or path} is not a file.", source=name)
        if size > max_bytes:
            raise ImageRejected(
                f"{name} is {size / 1e6:.1f} MB; images up to {max_bytes / 1e6:.0f} MB are accepted.",
                source=name,
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ImageRejected(f"The file {name} could not be read.", source=name) from exc
    if len(data) > max_bytes:
        raise ImageRejected(
            f"The image is {len(data) / 1e6:.1f} MB; images up to {max_bytes / 1e6:.0f} MB "
            "are accepted.",
            source=name,
        )
    if not data:
        raise ImageRejected(f"{name or 'The upload'} is empty.", source=name)
    return data, name


def _open_checked(data: bytes, name: str) -> Image.Image:
    label = name or "The upload"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            probe = Image.open(io.BytesIO(data))
            probe.verify()
            image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageRejected(f"{label} has too many pixels to process safely.", source=name) from exc
    except (UnidentifiedImageError, SyntaxError) as exc:
        raise ImageRejected(
            f"{label} is not an image this app can read (use PNG, JPEG, WebP, GIF or BMP).",
            source=name,
        ) from exc
    except Exception as exc:  # Pillow raises many kinds on corrupt input
        raise ImageRejected(f"{label} is damaged and could not be read.", source=name) from exc
    if image.width * image.height > MAX_PIXELS:
        raise ImageRejected(f"{label} has too many pixels to process safely.", source=name)
    if image.width < 1 or image.height < 1:
        raise ImageRejected(f"{label} has no pixels.", source=name)
    return image


def _normalise(image: Image.Image, max_side: int) -> Image.Image:
    """Decode (first frame only), apply EXIF orientation, bring to RGB/RGBA, downscale."""
    if image.format == "JPEG" and max(image.size) > max_side:
        # Draft mode lets libjpeg decode at 1/2, 1/4 or 1/8 scale: far less time and memory.
        image.draft("RGB", (max_side, max_side))
    if getattr(image, "n_frames", 1) > 1:
        image.seek(0)
    image.load()
    image = ImageOps.exif_transpose(image) or image
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        image = image.point(lambda v: v * (1 / 256)).convert("L")
    if image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    elif image.mode == "CMYK":
        image = ImageOps.invert(image.convert("RGB")) if _adobe_inverted(image) else image.convert(
            "RGB"
        )
    elif image.mode in ("LA", "PA", "RGBa", "La"):
        image = image.convert("RGBA")
    elif image.mode not in ("RGB", "RGBA", "L"):
        image = image.convert("RGB")
    if image.mode == "RGBA" and image.getextrema()[3][0] == 255:
        image = image.convert("RGB")
    if max(image.size) > max_side:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    return image


def _adobe_inverted(image: Image.Image) -> bool:
    # Pillow already handles Adobe's inverted CMYK JPEGs; other CMYK converts directly.
    return False


def _encode(image: Image.Image) -> tuple[bytes, str, str]:
    buffer = io.BytesIO()
    if image.mode == "RGBA":
        image.save(buffer, "PNG", optimize=True)
        return buffer.getvalue(), "image/png", ".png"
    image.save(buffer, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return buffer.getvalue(), "image/jpeg", ".jpg"


class ImageStore:
    """The images of one conversation: uploads and tool outputs, each under an id `img_N`.

    Ids are unique within the store; the same upload twice gets the same id back.
    """

    def __init__(self, root: str | Path | None = None, max_side: int = DEFAULT_MAX_SIDE,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="agent-images-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_side = max_side
        self.max_bytes = max_bytes
        self._refs: dict[str, ImageRef] = {}
        self._by_digest: dict[str, str] = {}
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def _next_id(self) -> str:
        while True:
            candidate = f"img_{next(self._counter)}"
            if candidate not in self._refs:
                return candidate

    def load(self, source: str | Path | bytes, *, max_side: int | None = None) -> ImageRef:
        data, name = _read_source(source, self.max_bytes)
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            if digest in self._by_digest:
                return self._refs[self._by_digest[digest]]
        image = _open_checked(data, name)
        original = image.size
        try:
            prepared = _normalise(image, max_side or self.max_side)
        except ImageRejected:
            raise
        except Exception as exc:
            raise ImageRejected(
                f"{name or 'The upload'} is damaged and could not be decoded.", source=name
            ) from exc
        return self._save(prepared, digest, original=original, source_name=name)

    def _save(self, image: Image.Image, digest: str, *, original: tuple[int, int],
              source_name: str = "", label: str = "") -> ImageRef:
        encoded, media_type, suffix = _encode(image)
        with self._lock:
            image_id = self._next_id()
            path = self.root / f"{image_id}{suffix}"
            path.write_bytes(encoded)
            ref = ImageRef(
                id=image_id, width=image.width, height=image.height, media_type=media_type,
                path=str(path), digest=digest, original_width=original[0],
                original_height=original[1], source_name=source_name, label=label,
            )
            self._refs[image_id] = ref
            self._by_digest[digest] = image_id
        return ref

    # -- the part tools see (tools.base.ImageStore) -------------------------------------------

    def open(self, image_id: str) -> Image.Image:
        ref = self._refs[image_id]
        with Image.open(ref.path) as image:
            image.load()
            return image.copy()

    def add(self, image: Image.Image, label: str = "") -> ImageOut:
        """Store an image a tool made; it is downscaled like an upload."""
        original = image.size
        prepared = _normalise(image.copy(), self.max_side)
        digest = hashlib.sha256(prepared.tobytes()).hexdigest()
        ref = self._save(prepared, digest, original=original, label=label)
        return ImageOut(id=ref.id, width=ref.width, height=ref.height, label=label)

    def ids(self) -> list[str]:
        return list(self._refs)

    def meta(self, image_id: str) -> dict:
        """What is known about an image, for tools; the file's location stays private."""
        return self._refs[image_id].model_dump(exclude={"path"})

    def get(self, image_id: str) -> ImageRef:
        return self._refs[image_id]

    def refs(self) -> list[ImageRef]:
        return list(self._refs.values())


_default_store: ImageStore | None = None


def load_image(source: str | Path | bytes, *, store: ImageStore | None = None,
               max_side: int | None = None) -> ImageRef:
    """Prepare one image. Without a store, a process-wide store keeps the copy and the id."""
    global _default_store
    if store is None:
        if _default_store is None:
            _default_store = ImageStore()
        store = _default_store
    try:
        return store.load(source, max_side=max_side)
    except ImageRejected:
        raise
    except MemoryError as exc:
        raise ImageRejected("The image is too large to process.") from exc
    except Exception as exc:
        raise ImageRejected("The upload could not be read as an image.") from exc
