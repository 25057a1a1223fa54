"""The page's own browser code: the files of `assets/page/`, run once as the page loads.

Each file is one function of its settings (JSON the server fills in): `a11y.js` (Gradio's
markup made usable by keyboard and screen reader, `ui.a11y`), `aria.js` (Gradio's English
accessible names in Chinese, `ui.language`), `toasts.js` (Gradio's toast words in the page's
language, `ui.toasts`), `repick.js` (the same file can be picked again), `opening.js` (a phone
opens at the chat, `ui.phone`) and `language.js` (what Language in Settings changes in the
browser, `ui.page.words`). One failing part leaves the others running.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parents[2] / "assets" / "page"
PARTS = ("a11y", "aria", "toasts", "repick", "opening", "language")
# The browser code of a Language change: the function `language.js` made.
LANGUAGE_JS = (
    "(language) => (window.agentPageLanguage ? window.agentPageLanguage(language) : language)"
)


@functools.cache
def _source(name: str) -> str:
    return (FOLDER / f"{name}.js").read_text(encoding="utf-8").strip()


def page_script(settings: dict[str, dict[str, Any]]) -> str:
    """One function that runs every part with its settings (`settings[part]`, or none)."""
    calls = []
    for name in PARTS:
        given = json.dumps(settings.get(name, {}), ensure_ascii=False)
        calls.append(
            f"  try {{ ({_source(name)})({given}); }}\n"
            f"  catch (error) {{ console.error('page script {name}', error); }}"
        )
    return "() => {\n" + "\n".join(calls) + "\n}"
