"""Why an upload is not a usable image, in one sentence, in English and in Chinese.

`agent.images.store` raises `ImageRejected` with a kind and the facts the sentence needs; the page
shows the sentence in its language. `{label}` is the file's name, or "The image" without one.
"""

from __future__ import annotations

from typing import Any

from .prompts import language_key

READABLE = {
    "en": "use PNG, JPEG, WebP, GIF, BMP or TIFF",
    "zh": "请使用 PNG、JPEG、WebP、GIF、BMP 或 TIFF",
}

SENTENCES: dict[str, dict[str, str]] = {
    "en": {
        "too_big": "{label} is {size}; images up to {limit} are accepted.",
        "missing": "{label} was not found or is not a file.",
        "unreadable_file": "{label} could not be read.",
        "not_a_source": "The upload is neither a file path nor image bytes.",
        "empty": "{label} is empty.",
        "too_large": "{label} is too large to process.",
        "unreadable": "The upload could not be read as an image.",
        "too_many_pixels": "{label} is {width}x{height} pixels, too many to process safely; "
        "save a smaller copy or a JPEG and try again.",
        "bomb": "{label} has too many pixels to process safely.",
        "pdf": "{label} is a PDF document, not an image; export the page as PNG or JPEG.",
        "pdf_damaged": "{label} is a PDF that could not be read; it may be damaged.",
        "pdf_locked": "{label} is a PDF locked with a password; send a copy without one.",
        "pdf_pages": "{label} has {pages} pages, and at most {limit} pages of a PDF are read; "
        "send the pages you need as a shorter PDF.",
        "svg": "{label} is an SVG drawing, which this app cannot read; export it as PNG.",
        "xml": "{label} is an XML or SVG file, which this app cannot read; export it as PNG.",
        "heic": "{label} is a HEIC photo, which this app cannot read; export it as JPEG.",
        "not_an_image": "{label} is not an image this app can read ({readable}).",
        "truncated": "{label} is incomplete (cut off) and could not be read; try saving it again.",
        "damaged": "{label} is damaged and could not be read; try saving it again.",
        "duplicate": "{label} is the same picture as {image}, attached again in this message; "
        "it is used once.",
    },
    "zh": {
        "too_big": "{label}大小为 {size}，可接受的图片最大为 {limit}。",
        "missing": "找不到{label}，或它不是文件。",
        "unreadable_file": "无法读取{label}。",
        "not_a_source": "上传的内容既不是文件路径，也不是图片数据。",
        "empty": "{label}是空的。",
        "too_large": "{label}太大，无法处理。",
        "unreadable": "上传的文件无法作为图片读取。",
        "too_many_pixels": "{label}有 {width}×{height} 像素，太多而无法安全处理；"
        "请另存一个较小的副本或 JPEG 后重试。",
        "bomb": "{label}像素太多，无法安全处理。",
        "pdf": "{label}是 PDF 文档，不是图片；请把页面导出为 PNG 或 JPEG。",
        "pdf_damaged": "{label}是无法读取的 PDF，可能已损坏。",
        "pdf_locked": "{label}是有密码保护的 PDF；请发送一份没有密码的副本。",
        "pdf_pages": "{label}共 {pages} 页，PDF 最多读取 {limit} 页；"
        "请把需要的页面另存为较短的 PDF 发送。",
        "svg": "{label}是 SVG 矢量图，本应用无法读取；请导出为 PNG。",
        "xml": "{label}是 XML 或 SVG 文件，本应用无法读取；请导出为 PNG。",
        "heic": "{label}是 HEIC 照片，本应用无法读取；请导出为 JPEG。",
        "not_an_image": "{label}不是本应用能读取的图片（{readable}）。",
        "truncated": "{label}不完整（被截断），无法读取；请重新保存后再试。",
        "damaged": "{label}已损坏，无法读取；请重新保存后再试。",
        "duplicate": "{label}与 {image} 是同一张图片，在这条消息中又附了一次；只使用一次。",
    },
}
_NAMELESS = {"en": "The image", "zh": "这张图片"}
_NAMED = {"en": "{}", "zh": "“{}”"}


def refusal(kind: str, language: str = "en", *, name: str = "", **facts: Any) -> str:
    """The sentence for a refused upload named `name` (may be empty) in `language`."""
    key = language_key(language)
    label = _NAMED[key].format(name) if name else _NAMELESS[key]
    return SENTENCES[key][kind].format(label=label, readable=READABLE[key], **facts)
