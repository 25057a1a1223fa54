"""MCP tool schemas as argument models, and a person's reply as an elicitation's content."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import ValidationError

from tools.mcp.answers import fit_reply
from tools.mcp.config import ConfigError, load_config
from tools.mcp.schema import args_model, image_fields

SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        "mode": {"enum": ["fast", "exact"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "near": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "screenshot": {"type": "string"},
        "payload": {"type": "string", "contentEncoding": "base64"},
        "dry-run": {"type": "boolean"},
    },
    "required": ["query", "dry-run"],
}


def test_required_fields_types_and_bounds_carry_over():
    Args = args_model("SearchArgs", SCHEMA)
    assert [n for n, f in Args.model_fields.items() if f.is_required()] == ["query", "dry_run"]
    args = Args.model_validate({"query": "cats", "dry_run": True, "limit": "5", "mode": "fast"})
    assert args.limit == 5 and args.mode == "fast"
    # The server gets its own names, and only what was given.
    assert args.model_dump(by_alias=True, exclude_unset=True) == {
        "query": "cats", "limit": 5, "mode": "fast", "dry-run": True,
    }  # fmt: skip
    for bad in ({"limit": 99}, {"mode": "slow"}, {"tags": "x"}):
        with pytest.raises(ValidationError):
            Args.model_validate({"query": "q", "dry_run": False, **bad})
    assert Args.model_fields["mode"].annotation == Literal["fast", "exact"] | None


def test_image_data_fields_take_an_image_id():
    assert image_fields(SCHEMA) == {"screenshot": "data_url", "payload": "base64"}
    Args = args_model("SearchArgs", SCHEMA)
    assert "img_1" in Args.model_fields["screenshot"].description


@pytest.mark.parametrize(
    ("reply", "schema", "content"),
    [
        ("blue", {"properties": {"colour": {"type": "string"}}}, {"colour": "blue"}),
        ("Yes.", {"properties": {"sure": {"type": "boolean"}}}, {"sure": True}),
        ("no", {"properties": {"sure": {"type": "boolean"}}}, {"sure": False}),
        ("maybe", {"properties": {"sure": {"type": "boolean"}}}, None),
        ("about 3 of them", {"properties": {"n": {"type": "integer"}}}, {"n": 3}),
        ("the Large one", {"properties": {"size": {"enum": ["small", "large"]}}},
         {"size": "large"}),
        ('{"a": "x", "b": 2}', {"properties": {"a": {"type": "string"}, "b": {"type": "number"}}},
         {"a": "x", "b": 2.0}),
        ("a: x, b: 2", {"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
         {"a": "x", "b": 2}),
        ("x", {"properties": {"a": {"type": "string"}, "b": {"type": "string"}},
               "required": ["a", "b"]}, None),
    ],
)  # fmt: skip
def test_a_reply_is_fitted_to_the_question(reply, schema, content):
    assert fit_reply(reply, schema) == content


def test_config_in_the_common_shape(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text(
        '{"mcpServers": {"files": {"command": "npx", "args": ["server"], "env": {"A": "1"}},'
        ' "web": {"url": "http://127.0.0.1:9/mcp", "autoApprove": []},'
        ' "off": {"command": "x", "disabled": true}}}'
    )
    specs = load_config(path)
    assert list(specs) == ["files", "web"]
    assert specs["files"].transport == "stdio" and specs["web"].transport == "http"
    path.write_text('{"mcpServers": {"both": {"command": "x", "url": "http://h"}}}')
    with pytest.raises(ConfigError, match="either"):
        load_config(path)
    path.write_text('{"mcpServers": {"a.b": {"command": "x"}}}')
    with pytest.raises(ConfigError, match="server name"):
        load_config(path)
