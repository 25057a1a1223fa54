"""The one interface every model speaks: stream text for a list of chat messages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..error_words import say


class ModelError(Exception):
    """The model could not answer. `str(error)` is one sentence a person can act on, in
    English; `sentence(language)` says it in the conversation's language when the error was
    made from a key of `agent.error_words` (`ModelError.said`)."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        kind: str = "model",
        key: str | None = None,
        facts: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.kind = kind
        self.key = key
        self.facts = facts or {}

    @classmethod
    def said(cls, key: str, kind: str, status_code: int | None = None, **facts: Any) -> ModelError:
        """The error whose sentence is `agent.error_words`' `key` with these facts."""
        return cls(
            say(key, "en", **facts), status_code=status_code, kind=kind, key=key, facts=facts
        )

    def sentence(self, language: str) -> str:
        if self.key is None:
            return str(self)
        return say(self.key, language, **self.facts)


class ToolCallPart(BaseModel):
    """A whole tool call from a model that calls tools natively. A model's stream yields text
    (`str`) and, once each call's pieces are assembled, one of these."""

    id: str
    name: str
    arguments: str = "{}"  # JSON text, as the endpoint sent it (possibly broken)


class CallReport(BaseModel):
    """What the service said about one call besides its text, filled in by the model as the
    reply streams; a field stays None where the service does not say."""

    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None


class ModelRequest(BaseModel):
    """Everything a model is given for one call.

    `messages` are OpenAI chat messages and `tools` the typed tools the turn may call (a
    hosted model gets them described in the prompt, or as `tool_specs` with native tool
    calling). `max_tokens` caps the reply; None leaves it to the model's own default.
    `on_retry`, when given, is called with one sentence each time a hosted model tries the call
    again (after a dropped connection, a 429 or a 5xx), so the trace can show it; it is never
    serialised. `language` is the turn's, for the sentences a model says itself. Every model reads
    the same request: one that reads no prose (the offline demo model) reads the turn from the
    messages too, as pydantic-ai's TestModel does.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    messages: list[dict[str, Any]]
    stop: list[str] = Field(default_factory=lambda: ["Observation:"])
    temperature: float = 0.0
    max_tokens: int | None = None
    purpose: Literal["step", "final"] = "step"
    # Ask the service to count the call's tokens (a server that refuses it is asked without).
    want_usage: bool = False
    # Per request, not per model: one model serves many turns at once.
    report: CallReport = Field(default_factory=CallReport)
    on_retry: Callable[[str], None] | None = Field(default=None, exclude=True, repr=False)
    tools: Sequence[Any] = ()
    language: str = "en"
    # Native tool calling: the endpoint's `tools` parameter (OpenAI function specs). None means
    # the ReAct text protocol, where the tools are described in the prompt.
    tool_specs: list[dict[str, Any]] | None = None


@runtime_checkable
class ChatModel(Protocol):
    """A model the agent can drive. `name` is shown to the person; `offline` labels the demo.
    A model may also have a `provider` ("openai"), the service family traces name."""

    name: str
    offline: bool
    # Whether the model can take the endpoint's `tools` parameter (native tool calling); a model
    # without the attribute speaks only the ReAct text.
    native_tools: bool

    def stream(self, request: ModelRequest) -> AsyncIterator[str | ToolCallPart]:
        """Yield the reply in pieces (text, and whole tool calls when `request.tool_specs` is
        set); raise `ModelError` on failure. Closing it stops it."""
        ...
