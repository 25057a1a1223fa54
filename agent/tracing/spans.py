"""A turn's events as OpenTelemetry spans, after the GenAI semantic conventions.

A `TurnTracer` (made by `telemetry.turn_tracer` when tracing is on) watches a turn's events on
their way to the page and makes spans of them, timed by the events' own timestamps, every one a
child of the turn's span:

- `invoke_agent {agent}` from the turn's start to its terminal event, with its outcome;
- `chat {model}` for each model call, from its `model_call` event (duration, finish reason,
  the tokens where the service counts them);
- `execute_tool {tool}` from `tool_call` to `tool_result`, with `error.type` on a failure.

Content (each call's messages and reply, a tool's arguments and result) is recorded only with
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. Even then an image is its id and any
data: URL is cut out; keys never reach an event, so they never reach a span.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

# Any data: URL, wherever it turns up in recorded content (a pasted one, a tool's echo).
_DATA_URL = re.compile(r"data:[\w/+.;=-]*,[\w+/=%.-]*")
_OMITTED = "[image data omitted]"


def provider_name(model: Any) -> str:
    """The service family a model belongs to, as `gen_ai.provider.name` spells it."""
    return getattr(model, "provider", None) or ("offline" if model.offline else "_OTHER")


class TurnTracer:
    """One turn's spans, made from its events as they pass (`watch`)."""

    def __init__(self, tracer: Any, agent: Any, session: Any) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self.tracer = tracer
        self.error = Status(StatusCode.ERROR)
        self.capture = agent.settings.otel_capture_content
        self.images = session.images
        self.tools = agent.tool_by_name
        model = agent.model
        provider = provider_name(model)
        self.chat_kind = SpanKind.INTERNAL if model.offline else SpanKind.CLIENT
        self.model_attributes = {
            "gen_ai.provider.name": provider,
            "gen_ai.system": provider,
            **_server(getattr(model, "base_url", None)),
        }
        self.span = tracer.start_span(
            f"invoke_agent {agent.name}",
            kind=SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": agent.name,
                "gen_ai.conversation.id": session.id,
                "gen_ai.request.model": model.name,
                "gen_ai.request.temperature": agent.temperature,
                **self.model_attributes,
            },
        )
        self.context = trace.set_span_in_context(self.span)
        self.calls: dict[str, Any] = {}  # open tool spans by call id
        self.inputs: dict[int, str] = {}  # captured messages by model call
        self.outputs: dict[int, list[str]] = {}  # captured reply pieces by model call
        self.tokens = {"gen_ai.usage.input_tokens": 0, "gen_ai.usage.output_tokens": 0}
        self.counted = False
        self.ended = False
        self.handlers: dict[str | None, Callable[[Any], None]] = {
            "model_call": self._model_call,
            "tool_call": self._tool_call,
            "tool_result": self._tool_result,
            "run_finished": self._run_finished,
            "answer": lambda e: self._end("ended" if e.ended else "answered", e.at),
            "ask_user": lambda e: self._end("asked", e.at),
            "approval": lambda e: self._end("asked", e.at),
            "error": lambda e: self._end("error", e.at, e.kind),
            None: lambda e: self._end("cancelled", None, "cancelled"),  # no terminal event came
        }
        if self.capture:
            self.handlers["model_delta"] = self._model_delta

    def watch(self, put: Callable[[Any], None]) -> Callable[[Any], None]:
        """`put` with every event seen first. A tracing fault is logged, never the turn's."""
        handlers = self.handlers

        def emit(event: Any) -> None:
            handler = handlers.get(getattr(event, "type", None))
            if handler is not None:
                try:
                    handler(event)
                except Exception:
                    log.exception("tracing the %s event failed", getattr(event, "type", "last"))
            put(event)

        return emit

    def request(self, step: int, request: Any) -> None:
        """Keep a model call's messages until its span is made (content capture only)."""
        if self.capture:
            self.inputs[step] = json.dumps(
                _messages(request.messages, self._image_ids), ensure_ascii=False
            )

    # -- the events ---------------------------------------------------------------------------

    def _model_delta(self, event: Any) -> None:
        self.outputs.setdefault(event.step, []).append(event.text)

    def _model_call(self, event: Any) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": event.model,
            **self.model_attributes,
        }
        optional = {
            "gen_ai.request.temperature": event.temperature,
            "gen_ai.request.max_tokens": event.max_tokens,
            "gen_ai.response.finish_reasons": (event.finish_reason,)
            if event.finish_reason
            else None,
            # The service's counts only: an estimate is the page's, not a usage figure.
            "gen_ai.usage.input_tokens": None if event.estimated else event.input_tokens,
            "gen_ai.usage.output_tokens": None if event.estimated else event.output_tokens,
            "error.type": event.error,
        }
        attributes.update((k, v) for k, v in optional.items() if v is not None)
        for key in self.tokens:
            if attributes.get(key) is not None:
                self.tokens[key] += attributes[key]
                self.counted = True
        if self.capture:
            attributes["gen_ai.input.messages"] = self.inputs.pop(event.step, "[]")
            reply = _scrub("".join(self.outputs.pop(event.step, ())))
            finish = event.finish_reason or ("error" if event.error else "stop")
            output = [{"role": "assistant", "parts": [_text(reply)], "finish_reason": finish}]
            attributes["gen_ai.output.messages"] = json.dumps(output, ensure_ascii=False)
        end = _ns(event.at)
        span = self.tracer.start_span(
            f"chat {event.model}",
            context=self.context,
            kind=self.chat_kind,
            attributes=attributes,
            start_time=end - int(event.duration * 1e9),
        )
        if event.error:
            span.set_status(self.error)
        span.end(end_time=end)

    def _tool_call(self, event: Any) -> None:
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.tool,
            "gen_ai.tool.call.id": event.call_id,
            "gen_ai.tool.type": "function",
        }
        tool = self.tools.get(event.tool)
        if tool is not None and tool.description:
            attributes["gen_ai.tool.description"] = tool.description
        if self.capture:
            arguments = json.dumps(event.arguments, ensure_ascii=False, default=str)
            attributes["gen_ai.tool.call.arguments"] = _scrub(arguments)
        self.calls[event.call_id] = self.tracer.start_span(
            f"execute_tool {event.tool}",
            context=self.context,
            attributes=attributes,
            start_time=_ns(event.at),
        )

    def _tool_result(self, event: Any) -> None:
        span = self.calls.pop(event.call_id, None)
        if span is None:
            return
        if not event.ok:
            span.set_attribute("error.type", event.error_type or "_OTHER")
            span.set_status(self.error)
        if self.capture:
            span.set_attribute("gen_ai.tool.call.result", _scrub(event.text))
        span.end(end_time=_ns(event.at))

    def _run_finished(self, event: Any) -> None:
        self.span.set_attributes(
            {"agent.turn.model_calls": event.model_calls, "agent.turn.tool_calls": event.steps}
        )

    def _end(self, outcome: str, at: float | None, error: str | None = None) -> None:
        if self.ended:
            return
        self.ended = True
        end = None if at is None else _ns(at)
        for span in self.calls.values():  # tools still running when the turn stopped
            span.set_attribute("error.type", "cancelled")
            span.set_status(self.error)
            span.end(end_time=end)
        self.calls.clear()
        attributes: dict[str, Any] = {"agent.turn.outcome": outcome}
        if self.counted:
            attributes.update(self.tokens)
        if error is not None:
            attributes["error.type"] = error
            self.span.set_status(self.error)
        self.span.set_attributes(attributes)
        self.span.end(end_time=end)

    def _image_ids(self) -> dict[str, str]:
        # The request's images were encoded for it just now, so this costs no reading.
        return {ref.data_url(): ref.id for ref in self.images.refs()}


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


def _server(base_url: str | None) -> dict[str, Any]:
    """Where a hosted model lives: host and port only, never credentials or a query."""
    if not base_url:
        return {}
    parts = urlsplit(base_url)
    if not parts.hostname:
        return {}
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return {"server.address": parts.hostname, "server.port": port}


def _scrub(text: str) -> str:
    return _DATA_URL.sub(_OMITTED, text) if "data:" in text else text


def _text(content: str) -> dict[str, Any]:
    return {"type": "text", "content": content}


def _messages(messages: list[dict[str, Any]], image_ids: Callable[[], dict[str, str]]) -> list:
    """Chat messages as `gen_ai.input.messages` records them: text parts as they are, an image
    part as a file part holding the image's id (never its bytes)."""
    ids: dict[str, str] | None = None
    out = []
    for message in messages:
        content = message.get("content")
        parts: list[dict[str, Any]] = []
        for part in [content] if isinstance(content, str) else content or ():
            if isinstance(part, str):
                parts.append(_text(_scrub(part)))
            elif part.get("type") == "text":
                parts.append(_text(_scrub(str(part.get("text", "")))))
            elif part.get("type") == "image_url":
                ids = image_ids() if ids is None else ids
                url = str((part.get("image_url") or {}).get("url", ""))
                # A URL may carry a signed token; an image we do not know is just "image".
                file_id = ids.get(url, "image")
                parts.append({"type": "file", "modality": "image", "file_id": file_id})
            else:  # an unknown part may hold anything: only its type is kept
                parts.append({"type": str(part.get("type", "unknown"))})
        out.append({"role": message.get("role", "user"), "parts": parts})
    return out
