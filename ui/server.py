"""What the page needs from the Gradio server it runs in, apart from its layout (app.py).

`Page` is the page's `gr.Blocks`: an input Gradio refuses before any handler runs (a file path
that was never uploaded, a payload of the wrong shape) costs one log line and one sentence,
not a traceback per request.
"""

from __future__ import annotations

import logging
from typing import Any

import gradio as gr
from gradio.exceptions import InvalidPathError
from pydantic import ValidationError

log = logging.getLogger(__name__)

REFUSED_INPUT = "That file was not uploaded through this page; attach it again and resend."
MALFORMED_INPUT = "The request was not in the form this page takes; reload the page and resend."


class Page(gr.Blocks):
    async def preprocess_data(self, block_fn: Any, inputs: list[Any], *args: Any, **kw: Any):
        try:
            return await super().preprocess_data(block_fn, inputs, *args, **kw)
        except InvalidPathError as exc:
            log.warning("Refused an input to %s: %s", block_fn.name, exc)
            raise gr.Error(REFUSED_INPUT, print_exception=False) from exc
        except ValidationError as exc:
            log.warning(
                "Refused an input to %s: %d validation error(s)", block_fn.name, exc.error_count()
            )
            raise gr.Error(MALFORMED_INPUT, print_exception=False) from exc
