"""What the page needs from the Gradio server it runs in, apart from its layout (app.py).

`Page` is the page's `gr.Blocks`. While it is launched, idle conversations are swept, and so
are the page's files in Gradio's upload cache (`ui.sweeper`), both on the idle time in the
settings, and every request's body is capped (`ui.body_limit`). An input Gradio refuses
before any handler runs (a file path that was never uploaded, a payload of the wrong shape)
costs one log line and one sentence, not a traceback per request.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import gradio as gr
from gradio.exceptions import InvalidPathError
from pydantic import ValidationError
from starlette.middleware import Middleware

from agent.config import Settings

from .body_limit import BodyLimit, caps_for
from .sweeper import drop_cache, sweep_while

log = logging.getLogger(__name__)

# Refused before any session is known, so before its language is: said in both.
REFUSED_INPUT = (
    "That file was not uploaded through this page; attach it again and resend. "
    "这个文件不是通过本页面上传的；请重新附上后再发送。"
)
# The mark `preprocess_data` puts on an `/ask` message whose files it refused.
REFUSED_KEY = "refused_input"
# Gradio's queue looks for work every millisecond while it has none (progress every 10 ms):
# 8% of a core for a server nobody uses, all day on a Space. At these paces (Gradio's own on
# Windows are 50 and 100 ms) an event starts sooner than a person could tell.
QUEUE_IDLE_SECONDS = 0.02
PROGRESS_IDLE_SECONDS = 0.05
MALFORMED_INPUT = (
    "The request was not in the form this page takes; reload the page and resend. "
    "请求的格式不是本页面接受的；请刷新页面后重新发送。"
)


class Page(gr.Blocks):
    def __init__(self, page_settings: Settings, **kwargs: Any) -> None:
        # No `delete_cache`: Gradio's task walks its live sets while requests add to them and
        # dies at the first clash (reporting it only at shutdown); the sweeper does its job.
        super().__init__(**kwargs)
        self.page_settings = page_settings
        # The gr.State that holds each session's PageState; the layout sets it.
        self.conversation_state: gr.State | None = None

    def launch(self, *args: Any, **kwargs: Any) -> Any:
        app_kwargs = dict(kwargs.pop("app_kwargs", None) or {})
        app_kwargs.setdefault("lifespan", self._sweeping)
        # Inside Gradio's own middleware, before any route reads a body (`ui.body_limit`).
        limit = Middleware(BodyLimit, caps=caps_for(self.page_settings))
        app_kwargs["middleware"] = [*(app_kwargs.get("middleware") or ()), limit]
        blocking = not kwargs.get("prevent_thread_lock", False)
        # The queue `queue()` made; a later `queue()` makes a new one, so it is paced here.
        self._queue.sleep_when_free = QUEUE_IDLE_SECONDS
        self._queue.progress_update_sleep_when_free = PROGRESS_IDLE_SECONDS
        try:
            return super().launch(*args, app_kwargs=app_kwargs, **kwargs)
        finally:
            if blocking:  # the server has stopped (Ctrl+C, SIGTERM): its cached files go
                dropped = drop_cache(self)
                log.info("Removed %d file(s) of this page from Gradio's cache.", dropped)

    def block_thread(self) -> None:
        """Gradio's wait for Ctrl+C (and SIGTERM, `ui.process_folders`), except that the
        page is closed as a whole: its event streams end first, so uvicorn does not wait up to
        5 s for a browser left open, and the app's own shutdown (the sweeper) still runs. A
        request still running after a second is cancelled."""
        try:
            while self.is_running:
                time.sleep(0.1)
        except (KeyboardInterrupt, OSError):
            log.info("Stopping the server.")
            if self.server is not None:
                self.server.config.timeout_graceful_shutdown = 1
            self.close(verbose=False)

    def _sweeping(self, app: Any) -> Any:
        idle = self.page_settings.session_idle_minutes * 60
        return sweep_while(app, idle, self.conversation_state)

    async def preprocess_data(self, block_fn: Any, inputs: list[Any], *args: Any, **kw: Any):
        try:
            return await super().preprocess_data(block_fn, inputs, *args, **kw)
        except InvalidPathError as exc:
            log.warning("Refused an input to %s: %s", block_fn.name, exc)
            if block_fn.api_name == "ask" and inputs and isinstance(inputs[0], dict):
                # `/ask` answers every refusal in its own JSON: the message goes on without
                # its files, marked, and the endpoint says the sentence (`ui.script_api`).
                bare = [{"text": str(inputs[0].get("text") or ""), "files": []}, *inputs[1:]]
                processed = await super().preprocess_data(block_fn, bare, *args, **kw)
                processed[0] = {**processed[0], REFUSED_KEY: REFUSED_INPUT}
                return processed
            raise gr.Error(REFUSED_INPUT, print_exception=False) from exc
        except ValidationError as exc:
            log.warning(
                "Refused an input to %s: %d validation error(s)", block_fn.name, exc.error_count()
            )
            raise gr.Error(MALFORMED_INPUT, print_exception=False) from exc
