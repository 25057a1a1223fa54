"""Settings from the environment, validated once, and the one place a model is chosen and made."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .prices import PriceTable, read_prices

if TYPE_CHECKING:
    from tools.base import ToolSettings

    from .models.offline import OfflineModel
    from .models.openai_compat import OpenAIChatModel

HF_ROUTER_URL = "https://router.huggingface.co/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_HF_MODEL = "Qwen/Qwen2.5-VL-7B-Instruct"

# The values a setting takes, named once: `Settings`, the page's `Prefs`, `Agent`'s keyword
# arguments and the scenario format all use these.
Language = Literal["en", "zh"]
Style = Literal["react", "plugin-task"]
ImageDetail = Literal["auto", "low", "high"]
# Whether a model is sent images (`agent.models.vision`).
VisionMode = Literal["auto", "on", "off"]
# How models call tools (`agent.native`); auto: native where the model can, else react.
ToolProtocolName = Literal["react", "native", "auto"]
# Before a tool that acts on the outside world runs (`agent.approval`).
ApprovalPolicy = Literal["ask", "always", "never"]
ModelSource = Literal["offline", "openai"]


class ModelChoice(BaseModel):
    """Which model a turn runs on: the offline one, or an OpenAI-compatible endpoint.

    `api_key` is a key someone typed for this choice; with none, the server's own key is used,
    but only for the endpoint it was configured for (see `server_key`).
    """

    source: ModelSource = "offline"
    base_url: str = ""
    model: str = ""
    api_key: SecretStr = SecretStr("")
    # Whether the model is sent images (`agent.models.vision`): auto, on or off.
    vision: VisionMode = "auto"


class ModelNotConfigured(ValueError):
    """The settings ask for a hosted model but give no way to reach one."""


class Settings(BaseSettings):
    """Every setting, with the environment variable that sets it.

    OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL and HF_TOKEN keep their usual names, and so do
    LOG_LEVEL, OpenTelemetry's OTEL_* and Gradio's GRADIO_SERVER_NAME/GRADIO_SERVER_PORT; the
    rest are AGENT_* (e.g. AGENT_LANGUAGE=zh), or named by the plugin they belong to
    (WEATHER_BASE_URL). Nothing else in the app reads the environment, except a plugin
    manifest's own variables (`tools.plugins.manifest_variable`), SPACE_ID, whose presence
    makes AGENT_PUBLIC's and AGENT_TRUST_PROXY's defaults true, and the OpenTelemetry SDK,
    which reads its other OTEL_* settings (headers, service name) itself once tracing is on.
    """

    # Unknown keyword settings are refused, so a typo fails loudly instead of being ignored.
    model_config = SettingsConfigDict(extra="forbid", populate_by_name=True)

    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    model: str | None = Field(default=None, validation_alias="AGENT_MODEL")
    hf_token: SecretStr | None = Field(default=None, validation_alias="HF_TOKEN")

    language: Language = Field(default="en", validation_alias="AGENT_LANGUAGE")
    prompt_style: Style = Field(default="react", validation_alias="AGENT_PROMPT_STYLE")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, validation_alias="AGENT_TEMPERATURE")
    max_steps: int = Field(default=8, ge=1, le=50, validation_alias="AGENT_MAX_STEPS")
    image_detail: ImageDetail = Field(default="auto", validation_alias="AGENT_IMAGE_DETAIL")
    # Images to an OpenAI-compatible model: sent until it shows it takes text only (auto),
    # always (on) or never (off); without them the tools look at each image by its id.
    vision: VisionMode = Field(default="auto", validation_alias="AGENT_VISION")
    max_image_side: int = Field(
        default=1568, ge=64, le=8192, validation_alias="AGENT_MAX_IMAGE_SIDE"
    )
    max_upload_mb: float = Field(default=20.0, gt=0, le=200, validation_alias="AGENT_MAX_UPLOAD_MB")
    # A PDF is read page by page, each page an image of the conversation: at most this many.
    pdf_pages: int = Field(default=10, ge=1, le=100, validation_alias="AGENT_PDF_PAGES")
    tool_timeout: float = Field(default=30.0, gt=0, le=600, validation_alias="AGENT_TOOL_TIMEOUT")
    model_timeout: float = Field(default=60.0, gt=0, le=600, validation_alias="AGENT_MODEL_TIMEOUT")
    # How models call tools: react (the ReAct text), native (the endpoint's `tools` parameter)
    # or auto (unset): native where the model can (hosted endpoints), falling back to react.
    tool_protocol: ToolProtocolName | None = Field(
        default=None, validation_alias="AGENT_TOOL_PROTOCOL"
    )
    # Before a tool that acts on the outside world runs: ask the person (ask), run it (always)
    # or refuse every such call (never). Read-only tools never ask. The ceiling for every
    # caller (`agent.approval.effective_policy`): a scenario, `/ask` or MCP may ask for less.
    approval: ApprovalPolicy = Field(default="ask", validation_alias="AGENT_APPROVAL")
    # One turn, model calls and tools included, ends with a sentence after this long.
    turn_timeout: float = Field(default=240.0, gt=0, le=3600, validation_alias="AGENT_TURN_TIMEOUT")
    # Bounds on one message: a pasted book or a folder of photos is refused at once, with a
    # sentence, before any of it is read.
    max_message_chars: int = Field(
        default=16_000, ge=100, le=1_000_000, validation_alias="AGENT_MAX_MESSAGE_CHARS"
    )
    max_images_per_message: int = Field(
        default=10, ge=1, le=100, validation_alias="AGENT_MAX_IMAGES_PER_MESSAGE"
    )
    # Turns a conversation keeps; older ones drop out (the request already sends fewer).
    max_history_turns: int = Field(
        default=100, ge=1, le=10_000, validation_alias="AGENT_MAX_HISTORY_TURNS"
    )

    # The page as a public service. A public deployment (a Hugging Face Space sets SPACE_ID)
    # connects only to the model services the operator configured, unless custom base URLs
    # are allowed; even then, never into the server's own network.
    public: bool = Field(
        default_factory=lambda: "SPACE_ID" in os.environ, validation_alias="AGENT_PUBLIC"
    )
    allow_custom_base_url: bool = Field(
        default=False, validation_alias="AGENT_ALLOW_CUSTOM_BASE_URL"
    )
    # The models the server's own key (or configured endpoint) serves, comma-separated; empty
    # means only the configured model. A key typed in Settings may use any model.
    allowed_models: str = Field(default="", validation_alias="AGENT_ALLOWED_MODELS")
    # Turns one conversation may start, in any minute and in all; 0 turns a limit off.
    turns_per_minute: int = Field(
        default=20, ge=0, le=100_000, validation_alias="AGENT_TURNS_PER_MINUTE"
    )
    turns_per_session: int = Field(
        default=500, ge=0, le=10_000_000, validation_alias="AGENT_TURNS_PER_SESSION"
    )
    # Turns one client address may start in any minute, all its conversations, `/chat`, `/ask`
    # and MCP together; and turns everyone together may start on the operator's key (or
    # configured endpoint) in any minute. 0 turns a limit off.
    client_turns_per_minute: int = Field(
        default=60, ge=0, le=100_000, validation_alias="AGENT_CLIENT_TURNS_PER_MINUTE"
    )
    server_turns_per_minute: int = Field(
        default=120, ge=0, le=1_000_000, validation_alias="AGENT_SERVER_TURNS_PER_MINUTE"
    )
    # Whether a proxy in front of the server writes the client's address in X-Forwarded-For
    # (true on a Hugging Face Space, which sets SPACE_ID). Without one, the header is anyone's
    # to write, and the connection's own address is the client's.
    trust_proxy: bool = Field(
        default_factory=lambda: "SPACE_ID" in os.environ, validation_alias="AGENT_TRUST_PROXY"
    )
    # A conversation nobody has used for this long is closed and its files removed.
    session_idle_minutes: float = Field(
        default=60.0, gt=0, le=7 * 24 * 60, validation_alias="AGENT_SESSION_IDLE_MINUTES"
    )

    # Tools: where plugin manifests are read from, and the shipped weather plugin's switch and
    # host (a manifest names these variables; the values reach it through `tool_settings`).
    plugin_dir: Path | None = Field(default=None, validation_alias="AGENT_PLUGIN_DIR")
    enable_weather: bool = Field(default=False, validation_alias="AGENT_ENABLE_WEATHER")
    weather_base_url: str | None = Field(default=None, validation_alias="WEATHER_BASE_URL")
    # MCP: the servers whose tools the agent may use (an `mcp.json` in the `mcpServers` shape),
    # and whether the page is itself an MCP server at /gradio_api/mcp/.
    mcp_config: Path | None = Field(default=None, validation_alias="AGENT_MCP_CONFIG")
    mcp_server: bool = Field(default=False, validation_alias="AGENT_MCP_SERVER")

    # Tracing (`agent/tracing/telemetry.py`): OpenTelemetry's own variable names. With an
    # endpoint each turn is sent to that OTLP/HTTP collector; content (messages, tool arguments
    # and results) only with the capture switch on.
    otel_endpoint: str | None = Field(default=None, validation_alias="OTEL_EXPORTER_OTLP_ENDPOINT")
    otel_traces_endpoint: str | None = Field(
        default=None, validation_alias="OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    )
    otel_capture_content: bool = Field(
        default=False, validation_alias="OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
    )

    # What each model's tokens cost, per million (`agent.prices`): JSON such as
    # {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}. A table that cannot be read is said once
    # in the log and costs go unshown; nothing else stops.
    prices: str = Field(default="", validation_alias="AGENT_PRICES")

    # The server (`python app.py`).
    log_level: Literal["DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "CRITICAL"] = Field(
        default="INFO", validation_alias="LOG_LEVEL"
    )
    server_name: str = Field(default="127.0.0.1", validation_alias="GRADIO_SERVER_NAME")
    server_port: int = Field(default=7860, ge=1, le=65535, validation_alias="GRADIO_SERVER_PORT")

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        # logging's own spelling is upper case; LOG_LEVEL=debug means the same.
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("prices")
    @classmethod
    def _read_prices(cls, value: str) -> str:
        read_prices(value)  # says at start, once, why a table cannot be read
        return value

    def price_table(self) -> PriceTable:
        return read_prices(self.prices)

    def tool_settings(self) -> ToolSettings:
        """What the tools may read: the plugin folder and every plain setting under its variable
        name, so a manifest's `enabled_by`/`base_url_env` finds the value. Secrets stay here."""
        from tools.base import ToolSettings

        variables: dict[str, str] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if value is None or isinstance(value, SecretStr):
                continue
            text = str(value).lower() if isinstance(value, bool) else str(value)
            variables[str(field.validation_alias)] = text
        return ToolSettings(
            plugin_dir=self.plugin_dir, mcp_config=self.mcp_config, variables=variables
        )

    def model_source(self) -> Literal["openai", "hf", "offline"]:
        if self.openai_api_key or self.openai_base_url:
            return "openai"
        if self.hf_token:
            return "hf"
        return "offline"

    def default_choice(self) -> ModelChoice:
        """The model the environment calls for. It carries no key: the key is looked up when
        the model is made, so a changed endpoint never receives the server's key."""
        source = self.model_source()
        defaults = {"openai": DEFAULT_OPENAI_MODEL, "hf": DEFAULT_HF_MODEL}
        return ModelChoice(
            source="offline" if source == "offline" else "openai",
            base_url=self.openai_base_url or (HF_ROUTER_URL if source == "hf" else ""),
            model=self.model or defaults.get(source, ""),
            vision=self.vision,
        )

    def model_allow_list(self) -> list[str]:
        """The models the server's own key may be used for (AGENT_ALLOWED_MODELS)."""
        named = [m.strip() for m in self.allowed_models.split(",") if m.strip()]
        return named or [self.default_choice().model or DEFAULT_OPENAI_MODEL]


def server_key(settings: Settings, base_url: str | None) -> str:
    """The environment's key, only for the endpoint it was configured for, never another."""
    configured = (settings.openai_base_url or "").rstrip("/") or None
    if settings.openai_api_key and (base_url or None) == configured:
        return settings.openai_api_key.get_secret_value()
    if base_url and base_url.rstrip("/") == HF_ROUTER_URL and settings.hf_token:
        return settings.hf_token.get_secret_value()
    return ""


def make_model(
    settings: Settings | None = None, choice: ModelChoice | None = None
) -> OfflineModel | OpenAIChatModel:
    """The model `choice` names (by default the one the settings call for): OpenAI-compatible,
    Hugging Face's router, or offline. Raises `ModelNotConfigured` for a hosted model with
    neither a key nor a base URL."""
    from .models import OfflineModel

    settings = settings or Settings()
    choice = choice or settings.default_choice()
    if choice.source == "offline":
        return OfflineModel()
    # The OpenAI client's types take half a second to import: only a hosted model pays it.
    from .models import OpenAIChatModel

    base_url = choice.base_url.strip().rstrip("/") or None
    key = choice.api_key.get_secret_value().strip() or server_key(settings, base_url)
    if not key and not base_url:
        raise ModelNotConfigured(
            "The OpenAI-compatible model needs an API key or a base URL: add one in Settings, "
            "or choose the offline model."
        )
    configured = settings.default_choice().base_url.strip().rstrip("/") or None
    return OpenAIChatModel(
        model=choice.model.strip() or DEFAULT_OPENAI_MODEL,
        base_url=base_url,
        # No key is fine for local servers: the model sends the client a placeholder.
        api_key=key or None,
        timeout=settings.model_timeout,
        # On a public page only the operator's own endpoint may be in a private network; any
        # other is reached on public addresses only, checked as each connection opens.
        public_only=settings.public and base_url != configured,
        vision=choice.vision,
    )
