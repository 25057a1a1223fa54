"""Which model the environment selects, and that settings refuse what they do not know."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent.config import (
    HF_ROUTER_URL,
    ModelChoice,
    ModelNotConfigured,
    Settings,
    make_model,
    server_key,
)

VARS = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AGENT_MODEL",
    "HF_TOKEN",
    "AGENT_PLUGIN_DIR",
    "AGENT_ENABLE_WEATHER",
    "WEATHER_BASE_URL",
    "LOG_LEVEL",
    "GRADIO_SERVER_NAME",
    "GRADIO_SERVER_PORT",
]


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


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        ("AGENT_PLUGIN_DIR", "/srv/plugins", "plugin_dir", Path("/srv/plugins")),
        ("AGENT_ENABLE_WEATHER", "yes", "enable_weather", True),
        ("WEATHER_BASE_URL", "http://127.0.0.1:9", "weather_base_url", "http://127.0.0.1:9"),
        ("LOG_LEVEL", "debug", "log_level", "DEBUG"),
        ("GRADIO_SERVER_NAME", "0.0.0.0", "server_name", "0.0.0.0"),
        ("GRADIO_SERVER_PORT", "7861", "server_port", 7861),
    ],
)
def test_each_setting_comes_from_its_variable(monkeypatch, variable, value, field, expected):
    monkeypatch.setenv(variable, value)
    assert getattr(Settings(), field) == expected


@pytest.mark.parametrize(
    ("variable", "value"),
    [("LOG_LEVEL", "chatty"), ("GRADIO_SERVER_PORT", "99999"), ("AGENT_ENABLE_WEATHER", "maybe")],
)
def test_bad_server_and_plugin_values_are_refused(monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError):
        Settings()


def test_the_tools_get_plain_settings_by_variable_and_no_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc")
    monkeypatch.setenv("AGENT_ENABLE_WEATHER", "1")
    monkeypatch.setenv("AGENT_PLUGIN_DIR", "/srv/plugins")
    given = Settings().tool_settings()
    assert given.plugin_dir == Path("/srv/plugins")
    assert given.variables["AGENT_ENABLE_WEATHER"] == "true"
    assert "OPENAI_API_KEY" not in given.variables and "sk-abc" not in repr(given)


def test_the_server_listens_and_logs_where_the_settings_say(monkeypatch):
    import app

    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7999")
    monkeypatch.setenv("LOG_LEVEL", "warning")
    launched, logged = {}, {}

    class Page:
        def launch(self, **options):
            launched.update(options)

    monkeypatch.setattr(app, "build_demo", lambda **kwargs: Page())
    monkeypatch.setattr(app, "warm_up", lambda tools: None)
    monkeypatch.setattr(app.logging, "basicConfig", lambda **kwargs: logged.update(kwargs))
    # The server's own run removes this process's folders when it ends, and sets a SIGTERM
    # handler: neither is for a test process whose other tests use those folders.
    monkeypatch.setattr(app.process_folders, "running", contextlib.nullcontext)
    app.main()
    assert (launched["server_name"], launched["server_port"]) == ("0.0.0.0", 7999)
    assert logged["level"] == "WARNING"


def test_the_default_choice_follows_the_environment_and_carries_no_key(monkeypatch):
    assert Settings().default_choice() == ModelChoice(source="offline")
    monkeypatch.setenv("HF_TOKEN", "hf_abc")
    choice = Settings().default_choice()
    assert (choice.source, choice.base_url) == ("openai", HF_ROUTER_URL)
    assert choice.api_key.get_secret_value() == ""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc")
    monkeypatch.setenv("AGENT_MODEL", "gpt-4.1-mini")
    choice = Settings().default_choice()
    assert (choice.base_url, choice.model) == ("", "gpt-4.1-mini")


def test_a_chosen_model_keeps_its_typed_key_out_of_sight():
    choice = ModelChoice(source="openai", model="m", api_key="sk-typed")
    assert "sk-typed" not in repr(choice) and "sk-typed" not in str(choice)
    model = make_model(Settings(), choice)
    assert model.name == "m" and model.base_url is None
    assert "sk-typed" not in repr(model)


def test_a_hosted_choice_with_neither_key_nor_url_is_refused_in_a_sentence():
    with pytest.raises(ModelNotConfigured, match="API key or a base URL"):
        make_model(Settings(), ModelChoice(source="openai"))
    local = make_model(Settings(), ModelChoice(source="openai", base_url="http://h:1/v1/"))
    assert local.base_url == "http://h:1/v1"


def test_the_server_key_goes_only_to_the_endpoint_it_was_set_for(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-server")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://local:8000/v1/")
    monkeypatch.setenv("HF_TOKEN", "hf-server")
    settings = Settings()
    assert server_key(settings, "http://local:8000/v1") == "sk-server"
    assert server_key(settings, None) == ""
    assert server_key(settings, "http://attacker.example/v1") == ""
    assert server_key(settings, HF_ROUTER_URL + "/") == "hf-server"
    moved = ModelChoice(source="openai", base_url="http://attacker.example/v1")
    assert make_model(settings, moved)._api_key.get_secret_value() == ""
