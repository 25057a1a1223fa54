"""Gradio's own toast words in the page's language.

Three come from Gradio's browser code, past the reach of the page's handlers: the toast titles
(Error, Warning, Info), the sentence for an upload over the size limit, which Gradio writes
with its own unit ("20.0 Mb"), and the one for a file that is not an image. Browser code
rewrites them as the page says them: in the page's language (the `lang` of the page, which
Gradio sets from the browser and Language in Settings changes, `assets/page/language.js`),
with sizes written "20 MB".
"""

from __future__ import annotations

from tools.words import LANGUAGES, words

# Gradio 6.31's sentence; a Gradio that words it otherwise leaves it as it is.
GRADIO_TOO_BIG = r"^File\(s\) exceed the maximum allowed size of [^:]+: (.+)$"
GRADIO_WRONG_TYPE = r"^Invalid file types?: (.+)\. Only (.+) allowed\.$"
TITLES = {"Error": "toast_error", "Warning": "toast_warning", "Info": "toast_info"}


def toast_settings(max_upload_mb: float) -> dict:
    """The settings of `assets/page/toasts.js`, which rewrites the toasts as they appear."""
    limit = f"{max_upload_mb:g} MB"
    text = {
        language: {
            "too_big": words(language, "page.upload_too_big").replace("{limit}", limit),
            "wrong_type": words(language, "page.upload_not_image"),
            # Only "Open a downloaded conversation" takes a .zip: its refusal, not an image's.
            "not_conversation": "{names}: " + words(language, "page.reopen_not_conversation"),
            "titles": {en: words(language, f"page.{key}") for en, key in TITLES.items()},
        }
        for language in LANGUAGES
    }
    return {"text": text, "tooBig": GRADIO_TOO_BIG, "wrongType": GRADIO_WRONG_TYPE}
