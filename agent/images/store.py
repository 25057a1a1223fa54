"""Image intake: check, orient, downscale and encode an upload; keep it under a conversation id.

`ImageStore.load` (and `load_async`, off the event loop) is the way in for a conversation; the
module-level `load_image` does the same with a process-wide store. Whatever bytes arrive, either
an `ImageRef` comes out or `ImageRejected` with a one-line reason a person understands; nothing
else escapes. The store's own `max_side` decides the size of the prepared copy.

The order of work keeps a hostile file cheap: the byte size is checked before the file is read;
the pixel count and the memory decoding would take (after a JPEG's reduced-scale draft) from the
header, before anything is decoded; the file's structure is verified by Pillow; only then is the
first frame decoded, at most two at a time in the process. The prepared copy keeps no metadata;
the useful EXIF of the original is kept on the `ImageRef` instead.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import secrets
import shutil
import tempfile
import threading
import warnings
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from tools.base import ImageRef

from .exif import read_exif
from .pdf import DEFAULT_MAX_PAGES, PdfRefused, is_pdf, render_pages
from .prepare import TooManyPixels, encode, open_checked, prepare
from .source import ImageRejected, not_an_image, read_source

DEFAULT_MAX_SIDE = 1568
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
# A 108-megapixel phone photo passes; a JPEG that large is decoded at 1/4 scale anyway.
DEFAULT_MAX_PIXELS = 120_000_000
# Memory one decode may take. Formats without a reduced-scale decode (PNG, WebP, TIFF) meet it
# first: 100 MB is a 33-megapixel RGB or a 25-megapixel RGBA picture.
DEFAULT_MAX_DECODED_BYTES = 100 * 1024 * 1024
# Decodes at once in this process: each may take the budget above, so memory stays bounded
# however many people upload at the same moment.
DECODES_AT_ONCE = 2
_decode_gate = threading.BoundedSemaphore(DECODES_AT_ONCE)
# An upload's key: its digest, the side it was prepared for, its page (0 for a picture).
_Key = tuple[str, int, int]


class ImageStore:
    """The images of one conversation: uploads and tool outputs, each under an id `img_N`.

    Ids are unique within the store; the same upload twice gets the same ref back. The prepared
    copies live under `root` (a fresh temporary folder unless given), each named by its id and a
    random token, so knowing one file's name tells nothing of the others'.
    """

    def __init__(
        self,
        root: str | Path | None = None,
        max_side: int = DEFAULT_MAX_SIDE,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_pixels: int = DEFAULT_MAX_PIXELS,
        allow_webp: bool = True,
        max_decoded_bytes: int = DEFAULT_MAX_DECODED_BYTES,
        max_pdf_pages: int = DEFAULT_MAX_PAGES,
    ) -> None:
        if min(max_side, max_bytes, max_pixels, max_decoded_bytes, max_pdf_pages) < 1:
            raise ValueError("every size limit must be positive")
        self._root = Path(root) if root else None
        self.max_side = max_side
        self.max_bytes = max_bytes
        self.max_pixels = max_pixels
        self.max_decoded_bytes = max_decoded_bytes
        self.allow_webp = allow_webp
        self.max_pdf_pages = max_pdf_pages
        self._refs: dict[str, ImageRef] = {}
        # Ids a restored conversation had whose files are gone: tools say so when asked.
        self.lost: set[str] = set()
        self._by_upload: dict[_Key, str] = {}
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings: Any, root: str | Path | None = None) -> ImageStore:
        """A store with the operator's bounds (`agent.config.Settings`)."""
        return cls(
            root=root,
            max_side=settings.max_image_side,
            max_bytes=int(settings.max_upload_mb * 1024 * 1024),
            max_pdf_pages=settings.pdf_pages,
        )

    @property
    def root(self) -> Path:
        """The folder of the prepared copies, made on first use; a temporary one is removed
        when the store is garbage-collected, so idle sessions leave nothing behind."""
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="agent-images-"))
            weakref.finalize(self, shutil.rmtree, self._root, ignore_errors=True)
        self._root.mkdir(parents=True, exist_ok=True)
        return self._root

    async def load_async(
        self, source: str | Path | bytes, *, max_side: int | None = None
    ) -> ImageRef:
        """`load` in a worker thread: decoding a large image takes seconds of CPU, and the
        event loop serves every other session meanwhile."""
        return await asyncio.to_thread(self.load, source, max_side=max_side)

    def load(self, source: str | Path | bytes, *, max_side: int | None = None) -> ImageRef:
        """Prepare an upload, or raise `ImageRejected`; nothing else escapes."""
        try:
            return self._load_source(source, max_side)
        except ImageRejected:
            raise
        except MemoryError as exc:
            raise ImageRejected("too_large") from exc
        except Exception as exc:  # a last guard: the contract is ImageRejected or a ref
            raise ImageRejected("unreadable") from exc

    async def load_upload_async(self, source: str | Path | bytes) -> list[ImageRef]:
        """`load_upload` in a worker thread."""
        return await asyncio.to_thread(self.load_upload, source)

    def load_upload(self, source: str | Path | bytes) -> list[ImageRef]:
        """An upload as the images it holds: a picture is one, a PDF one per page (`img_3`
        page 1, `img_4` page 2...), each page with its text layer. Raises `ImageRejected`."""
        try:
            data, name = read_source(source, self.max_bytes)
            if not is_pdf(data):
                return [self._load_data(data, name, self.max_side)]
            return self._load_pdf(data, name)
        except ImageRejected:
            raise
        except MemoryError as exc:
            raise ImageRejected("too_large") from exc
        except Exception as exc:  # a last guard, as in `load`
            raise ImageRejected("unreadable") from exc

    def _load_pdf(self, data: bytes, name: str) -> list[ImageRef]:
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            first = self._by_upload.get((digest, self.max_side, 1))
            if first is not None:
                pages = self._refs[first].pages
                keys = [(digest, self.max_side, n) for n in range(1, pages + 1)]
                return [self._refs[self._by_upload[key]] for key in keys]
        try:
            with _decode_gate:
                pages = render_pages(
                    data,
                    max_pages=self.max_pdf_pages,
                    max_side=self.max_side,
                    max_pixels=self.max_pixels,
                )
        except PdfRefused as exc:
            raise ImageRejected(exc.kind, source=name, **exc.facts) from exc
        except TooManyPixels as exc:
            raise ImageRejected(
                "too_many_pixels", source=name, width=exc.width, height=exc.height
            ) from exc
        return [
            self._save(
                prepare(page.image, self.max_side),
                digest,
                key=(digest, self.max_side, page.number),
                source_name=name,
                original_width=page.image.width,
                original_height=page.image.height,
                original_format="PDF",
                original_mode=page.image.mode,
                page=page.number,
                pages=page.pages,
                text_layer=page.text,
            )
            for page in pages
        ]

    def _load_source(self, source: str | Path | bytes, max_side: int | None) -> ImageRef:
        side = max_side or self.max_side
        data, name = read_source(source, self.max_bytes)
        return self._load_data(data, name, side)

    def _load_data(self, data: bytes, name: str, side: int) -> ImageRef:
        key = (hashlib.sha256(data).hexdigest(), side, 0)
        with self._lock:
            if key in self._by_upload:
                return self._refs[self._by_upload[key]]
        try:
            with warnings.catch_warnings():
                # Pillow warns about odd but readable files; where warnings are errors that
                # would refuse an image a viewer shows.
                warnings.simplefilter("ignore")
                with _decode_gate:
                    return self._load(data, name, key)
        except ImageRejected:
            raise
        except TooManyPixels as exc:
            raise ImageRejected(
                "too_many_pixels", source=name, width=exc.width, height=exc.height
            ) from exc
        except Image.DecompressionBombError as exc:
            raise ImageRejected("bomb", source=name) from exc
        except UnidentifiedImageError as exc:
            raise ImageRejected(not_an_image(data), source=name) from exc
        except MemoryError as exc:
            raise ImageRejected("too_large", source=name) from exc
        except Exception as exc:  # Pillow raises many kinds on damaged input
            kind = "truncated" if "truncated" in str(exc).lower() else "damaged"
            raise ImageRejected(kind, source=name) from exc

    def _load(self, data: bytes, name: str, key: _Key) -> ImageRef:
        image, (width, height) = open_checked(data, self.max_pixels, key[1], self.max_decoded_bytes)
        facts = {
            "original_width": width,
            "original_height": height,
            # MPO is a camera's JPEG with an extra (depth or preview) frame.
            "original_format": "JPEG" if image.format == "MPO" else (image.format or ""),
            "original_mode": image.mode,
            "exif": read_exif(image),
        }
        prepared = prepare(image, key[1])
        return self._save(prepared, key[0], key=key, source_name=name, **facts)

    def _save(
        self, image: Image.Image, digest: str, *, key: _Key | None = None, **facts: Any
    ) -> ImageRef:
        encoded, media_type, suffix = encode(image, allow_webp=self.allow_webp)
        with self._lock:
            if key is not None and key in self._by_upload:  # the same upload raced us here
                return self._refs[self._by_upload[key]]
            image_id = f"img_{next(self._counter)}"
            # A random part in the name: a served folder's files cannot be found by counting.
            path = self.root / f"{image_id}-{secrets.token_hex(12)}{suffix}"
            path.write_bytes(encoded)
            ref = ImageRef(
                id=image_id,
                width=image.width,
                height=image.height,
                media_type=media_type,
                path=str(path),
                digest=digest,
                **facts,
            )
            self._refs[image_id] = ref
            if key is not None:
                self._by_upload[key] = image_id
        return ref

    # -- the part tools see (tools.base.ImageAccess) ------------------------------------------

    def open(self, image_id: str) -> Image.Image:
        ref = self._refs[image_id]
        with Image.open(ref.path) as image:
            image.load()
            return image.copy()

    def add(self, image: Image.Image, label: str = "") -> ImageRef:
        """Store an image a tool made (any mode); it is prepared like an upload."""
        original = image.size, image.mode
        prepared = prepare(image.copy(), self.max_side)
        digest = hashlib.sha256(
            f"{prepared.mode}{prepared.size}".encode() + prepared.tobytes()
        ).hexdigest()
        return self._save(
            prepared,
            digest,
            original_width=original[0][0],
            original_height=original[0][1],
            original_mode=original[1],
            label=label,
        )

    def ids(self) -> list[str]:
        return list(self._refs)

    def get(self, image_id: str) -> ImageRef:
        return self._refs[image_id]

    def info(self, image_id: str) -> ImageRef:
        """The ref of an image, with what is known of its original (size, format, EXIF)."""
        return self.get(image_id)

    def meta(self, image_id: str) -> dict[str, Any]:
        """What is known about an image, for tools; the file's location stays private."""
        return self.info(image_id).model_dump(exclude={"path"})

    def refs(self) -> list[ImageRef]:
        return list(self._refs.values())

    def restore(self, refs: list[ImageRef], reserved: Iterable[str] = ()) -> None:
        """Take back the images of a saved conversation under their own ids, so the history's
        references to them still hold; images added later are numbered after them, and after
        the `reserved` ids (images the conversation had but lost), so no id means two images."""
        with self._lock:
            for ref in refs:
                self._refs[ref.id] = ref
            self.lost.update(reserved)
            taken = [*self._refs, *self.lost]
            numbers = [int(i[4:]) for i in taken if i.startswith("img_") and i[4:].isdigit()]
            self._counter = itertools.count(max(numbers, default=0) + 1)


_default_store: ImageStore | None = None
_default_lock = threading.Lock()


def load_image(
    source: str | Path | bytes,
    *,
    store: ImageStore | None = None,
    max_side: int | None = None,
) -> ImageRef:
    """Prepare one image. Without a store, a process-wide store keeps the copy and the id."""
    global _default_store
    if store is None:
        with _default_lock:
            if _default_store is None:
                _default_store = ImageStore()
            store = _default_store
    return store.load(source, max_side=max_side)
