"""Whether and where turns are traced with OpenTelemetry (the spans: `spans.py`).

Off unless configured, and then free: OpenTelemetry is never imported and a turn's events go
straight to its queue. Tracing is on for an `Agent(..., tracer=...)`, after
`configure_tracing(provider)`, or when the settings name an OTLP endpoint
(OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): turns then go to that
collector over OTLP/HTTP, batched in the background.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from .spans import TurnTracer

log = logging.getLogger(__name__)

SCOPE = "agent"
SERVICE = "multimodal-react-agent"


class _State:
    tracer: Any = None  # the tracer of every agent without its own
    provider: Any = None  # the provider made from the settings, if any
    tried = False  # whether the settings' endpoint has been looked at


_state = _State()
_lock = threading.Lock()


def configure_tracing(provider: Any = None) -> Any:
    """Trace every agent's turns to `provider`, an OpenTelemetry `TracerProvider` (by default
    the global one, set up by the application or `opentelemetry-instrument`). Returns the
    tracer."""
    if provider is None:
        from opentelemetry import trace

        provider = trace.get_tracer_provider()
    _state.tracer = as_tracer(provider)
    return _state.tracer


def stop_tracing() -> None:
    """Trace no more turns (an agent's own tracer aside). The exporter made from the settings
    sends what it holds and closes; a later turn whose settings name an endpoint starts anew."""
    provider, _state.provider = _state.provider, None
    _state.tracer, _state.tried = None, False
    if provider is not None:
        provider.shutdown()


def flush_tracing(timeout_millis: int = 5000) -> bool:
    """Send the spans the settings' exporter still holds; True when it managed in time."""
    provider = _state.provider
    return provider.force_flush(timeout_millis) if provider is not None else True


def as_tracer(source: Any) -> Any:
    """A tracer from a `TracerProvider`; a tracer (or None) as it is."""
    if source is not None and hasattr(source, "get_tracer"):
        return source.get_tracer(SCOPE)
    return source


def turn_tracer(agent: Any, session: Any) -> TurnTracer | None:
    """The tracer of one turn of `agent`, or None: tracing is off, the usual case."""
    tracer = agent.tracer or _state.tracer
    if tracer is None:
        if _state.tried:
            return None
        settings = agent.settings
        if not (settings.otel_endpoint or settings.otel_traces_endpoint):
            return None
        tracer = _from_settings(settings)
        if tracer is None:
            return None
    from .spans import TurnTracer

    return TurnTracer(tracer, agent, session)


def _from_settings(settings: Any) -> Any:
    with _lock:
        if not _state.tried:
            _state.tried = True
            _state.provider = _otlp_provider(settings)
            if _state.provider is not None and _state.tracer is None:
                _state.tracer = as_tracer(_state.provider)
    return _state.tracer


def _otlp_provider(settings: Any) -> Any:
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning(
            "An OTLP endpoint is set, but the OpenTelemetry SDK and its OTLP exporter are not "
            "installed (see requirements.txt); turns are not traced."
        )
        return None
    url = settings.otel_traces_endpoint or settings.otel_endpoint.rstrip("/") + "/v1/traces"
    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win; the SDK reads them itself.
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: SERVICE}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
    parts = urlsplit(url)
    log.info("Tracing turns to %s://%s%s", parts.scheme, parts.hostname, parts.path)
    return provider
