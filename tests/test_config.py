"""Which model the environment selects, and that settings refuse what they do not know."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.config import HF_ROUTER_URL, Settings, make_model

VARS = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN"]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in VARS:
        monkeypatch.delenv(name, raising=False)


def test_no_key_means_the_offline_model():
    model = make_model(Settings())
    assert model.offline and "offline" in model.name


def test_openai_key_selects_openai(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc")
    monkeypatch.setenv("AGENT_MODEL", "gpt-4.1-mini")
    model = make_model(Settings())
    assert not model.offline and model.name == "gpt-4.1-mini"
    assert "sk-abc" not in repr(model)


def test_base_url_alone_is_enough_for_a_local_server(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    assert Settings().model_source() == "openai"
    assert not make_model(Settings()).offline


def test_hf_token_alone_selects_the_router(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_abc")
    settings = Settings()
    assert settings.model_source() == "hf"
    model = make_model(settings)
    assert HF_ROUTER_URL in repr(model) and "hf_abc" not in repr(model)


def test_bad_values_and_unknown_keys_are_refused(monkeypatch):
    monkeypatch.setenv("AGENT_LANGUAGE", "fr")
    with pytest.raises(ValidationError):
        Settings()
    monkeypatch.delenv("AGENT_LANGUAGE")
    with pytest.raises(ValidationError):
        Settings(langauge="zh")
