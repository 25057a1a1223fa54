"""Gradio's own toast words in the page's language.

Three come from Gradio's browser code, past the reach of the page's handlers: the toast titles
(Error, Warning, Info), the sentence for an upload over the size limit, which Gradio writes
with its own unit ("20.0 Mb"), and the one for a file that is not an image. Browser code
rewrites them as the page says them: in the page's language (the `lang` of the page, which
Gradio sets from the browser and Language in Settings changes, `ui.page_words.switch_script`),
with sizes written "20 MB".
"""

from __future__ import annotations

import json

from .labels import UI_TEXT

# Gradio 6.31's sentence; a Gradio that words it otherwise leaves it as it is.
GRADIO_TOO_BIG = r"^File\(s\) exceed the maximum allowed size of [^:]+: (.+)$"
GRADIO_WRONG_TYPE = r"^Invalid file types?: (.+)\. Only .+ allowed\.$"
TITLES = {"Error": "toast_error", "Warning": "toast_warning", "Info": "toast_info"}


def toast_script(max_upload_mb: float) -> str:
    """Browser code that rewrites the toasts as they appear."""
    text = {
        key: {
            "too_big": UI_TEXT[key]["upload_too_big"].replace("{limit}", f"{max_upload_mb:g} MB"),
            "wrong_type": UI_TEXT[key]["upload_not_image"],
            "titles": {en: UI_TEXT[key][name] for en, name in TITLES.items()},
        }
        for key in ("en", "zh")
    }
    return f"""() => {{
  const text = {json.dumps(text, ensure_ascii=False)};
  const tooBig = new RegExp({json.dumps(GRADIO_TOO_BIG)});
  const wrongType = new RegExp({json.dumps(GRADIO_WRONG_TYPE)});
  const titles = Object.values(text).flatMap((t) => Object.entries(t.titles));
  const rewrite = () => {{
    waiting = false;
    const zh = (document.documentElement.lang || navigator.language || "")
      .toLowerCase().startsWith("zh");
    const said = zh ? text.zh : text.en;
    document.querySelectorAll("[data-testid=toast-text]").forEach((el) => {{
      const found = el.textContent.trim().match(tooBig);
      if (found) el.textContent = said.too_big.replace("{{names}}", found[1]);
      const wrong = el.textContent.trim().match(wrongType);
      if (wrong) el.textContent = said.wrong_type.replace("{{names}}", wrong[1]);
    }});
    document.querySelectorAll(".toast-title").forEach((el) => {{
      const now = el.textContent.trim();
      const match = titles.find(([, word]) => word === now);
      if (match && said.titles[match[0]] !== now) el.textContent = said.titles[match[0]];
    }});
  }};
  let waiting = false;
  // While a toast shows, at once, before the browser paints it in Gradio's words; else at
  // most once a frame.
  new MutationObserver(() => {{
    if (document.querySelector(".toast-body")) rewrite();
    else if (!waiting) {{ waiting = true; requestAnimationFrame(rewrite); }}
  }}).observe(document.body, {{ subtree: true, childList: true, characterData: true }});
}}"""
