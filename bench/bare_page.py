"""The bare Gradio pages the page benchmarks measure the app against, and a way to serve a page.

Each bare page does the least Gradio needs to do the same job as the app, so whatever time the
app takes beyond it is the app's own: `relay_page` relays one model call and streams its text,
`trace_page` puts one message into a chatbot with elem_id `trace`.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from typing import Any

# No usage reports from a benchmark: they would be the only traffic leaving the machine.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr

from agent.models.base import ModelRequest
from tests.support.local import free_port, serve

__all__ = ["free_port", "relay_page", "serve", "trace_page"]


def relay_page(make_model: Callable[[], Any], concurrency_limit: int | str | None) -> gr.Blocks:
    """One async generator that streams a model call's text; endpoint `/chat` takes a string.

    The queue is Gradio's default; only the event's concurrency limit is set, to the app's.
    """

    async def relay(text: str) -> AsyncIterator[str]:
        model = make_model()
        request = ModelRequest(messages=[{"role": "user", "content": text}])
        answer = ""
        async for delta in model.stream(request):
            answer += delta
            yield answer

    with gr.Blocks(title="bare relay") as demo:
        box = gr.Textbox(label="message")
        out = gr.Textbox(label="reply")
        box.submit(relay, box, out, api_name="chat", concurrency_limit=concurrency_limit)
    return demo


def trace_page() -> gr.Blocks:
    """A chatbot `#trace` that one streamed update fills on submit, like the app's first step."""

    async def step(message: dict | None) -> AsyncIterator[list[dict[str, Any]]]:
        text = str((message or {}).get("text") or "")
        yield [{"role": "assistant", "content": "", "metadata": {"title": f"Turn 1: {text}"}}]

    with gr.Blocks(title="bare trace") as demo:
        trace = gr.Chatbot(elem_id="trace", label="Trace", height=640)
        box = gr.MultimodalTextbox(elem_id="input", file_types=["image"], show_label=False)
        # Progress hidden, as on the app's page, so the comparison is of the update alone.
        box.submit(step, box, trace, api_name="chat", show_progress="hidden")
    return demo
