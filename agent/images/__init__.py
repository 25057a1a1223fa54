"""A conversation's images: a file or bytes checked before it is decoded, oriented (`exif`),
downscaled and encoded (`prepare`), kept and named `img_N` (`store`); and a turn's intake,
which bounds the message before any of that (`intake`)."""

from .store import DEFAULT_MAX_SIDE, ImageRef, ImageRejected, ImageStore, load_image

__all__ = ["DEFAULT_MAX_SIDE", "ImageRef", "ImageRejected", "ImageStore", "load_image"]
