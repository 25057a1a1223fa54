"""Settings from the environment, validated once."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

HF_ROUTER_URL = "https://router.huggingface.co/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_HF_MODEL = "Qwen/Qwen2.5-VL-7B-Instruct"


class Settings(BaseSettings):
    """Every setting, with the environment variable that sets it.

    OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL and HF_TOKEN keep their usual names; the rest
    are AGENT_* (e.g. AGENT_LANGUAGE=zh).
    """

    # Unknown keyword settings are refused, so a typo fails loudly instead of being ignored.
    model_config = SettingsConfigDict(extra="forbid", populate_by_name=True)

    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    model: str | None = Field(default=None, validation_alias="AGENT_MODEL")
    hf_token: SecretStr | None = Field(default=None, validation_alias="HF_TOKEN")

    language: Literal["en", "zh"] = Field(default="en", validation_alias="AGENT_LANGUAGE")
    prompt_style: Literal["react", "plugin-task"] = Field(
        default="react", validation_alias="AGENT_PROMPT_STYLE"
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, validation_alias="AGENT_TEMPERATURE")
    max_steps: int = Field(default=8, ge=1, le=50, validation_alias="AGENT_MAX_STEPS")
    image_detail: Literal["auto", "low", "high"] = Field(
        default="auto", validation_alias="AGENT_IMAGE_DETAIL"
    )
    max_image_side: int = Field(
        default=1568, ge=64, le=8192, validation_alias="AGENT_MAX_IMAGE_SIDE"
    )
    max_upload_mb: float = Field(default=20.0, gt=0, le=200, validation_alias="AGENT_MAX_UPLOAD_MB")
    tool_timeout: float = Field(default=30.0, gt=0, le=600, validation_alias="AGENT_TOOL_TIMEOUT")
    model_timeout: float = Field(default=60.0, gt=0, le=600, validation_alias="AGENT_MODEL_TIMEOUT")
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

    def model_source(self) -> Literal["openai", "hf", "offline"]:
        if self.openai_api_key or self.openai_base_url:
            return "openai"
        if self.hf_token:
            return "hf"
        return "offline"


def make_model(settings: Settings | None = None):
    """The model the settings call for: OpenAI-compatible, Hugging Face's router, or offline."""
    from .models import OfflineModel, OpenAIChatModel

    settings = settings or Settings()
    source = settings.model_source()
    if source == "openai":
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        return OpenAIChatModel(
            model=settings.model or DEFAULT_OPENAI_MODEL,
            base_url=settings.openai_base_url,
            # No key is fine for local servers: the model sends the client a placeholder.
            api_key=key,
            timeout=settings.model_timeout,
        )
    if source == "hf":
        return OpenAIChatModel(
            model=settings.model or DEFAULT_HF_MODEL,
            base_url=HF_ROUTER_URL,
            api_key=settings.hf_token.get_secret_value() if settings.hf_token else None,
            timeout=settings.model_timeout,
        )
    return OfflineModel()
