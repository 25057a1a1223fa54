import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent.config import Settings
from agent.models.offline.tool_hints import hints_for
from tools import default_tools, registry, tool_map
from tools.base import Tool, ToolSettings

BUILT_INS = {"calculator", "convert_units", "world_clock"}

DROPPED_TOOL = textwrap.dedent(
    """
    from pydantic import Field

    from tools.base import StrictArgs, Tool, ToolResult
    from tools.calculator import Calculator  # imported tools are not counted twice


    class EchoArgs(StrictArgs):
        words: str = Field(description="What to say back.")


    class Echo(Tool):
        name = "dropped_echo"
        description = "Says the words back."
        Args = EchoArgs

        def run(self, args, ctx):
            return ToolResult(text=args.words)


    class _Helper(Tool):
        name = "hidden"
    """
)

MANIFEST = {
    "name_for_model": "dropped_plugin",
    "name_for_human": "Dropped",
    "description_for_human": "A plugin dropped into the plugin directory.",
    "url": "http://127.0.0.1:9/nothing",
    "request_body": [{"name": "q", "description": "Words.", "required": True}],
}


@pytest.fixture
def tool_dir(tmp_path, monkeypatch):
    """A folder on the import path for this test only, for modules outside `tools/`."""
    folder = tmp_path / "extra_tools"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    before = set(sys.modules)
    yield folder
    for name in set(sys.modules) - before:
        if name.startswith(("dropped_", "broken_")):
            del sys.modules[name]
    registry._PROBLEMS.clear()


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    folder = tmp_path / "plugins"
    folder.mkdir()
    monkeypatch.setenv("AGENT_PLUGIN_DIR", str(folder))
    return folder


def configured_tools():
    """The tools as the app gets them: from the settings the environment makes."""
    return default_tools(Settings().tool_settings())


def test_default_tools_has_the_built_ins_in_a_stable_order():
    found = default_tools()
    names = [tool.name for tool in found]
    assert set(names) >= BUILT_INS
    assert names == sorted(names) and len(names) == len(set(names))
    assert all(isinstance(tool, Tool) for tool in found)
    assert [t.name for t in default_tools()] == names


def test_tool_map_is_keyed_by_name():
    mapping = tool_map(default_tools())
    assert mapping["calculator"].name == "calculator"
    assert set(mapping) >= BUILT_INS


def test_a_new_tool_is_one_module_and_one_registration_line(tool_dir, monkeypatch):
    (tool_dir / "dropped_echo.py").write_text(DROPPED_TOOL)
    monkeypatch.setattr(registry, "BUILT_IN", (*registry.BUILT_IN, "dropped_echo:Echo"))
    names = [tool.name for tool in default_tools()]
    assert "dropped_echo" in names and names.count("calculator") == 1
    assert "hidden" not in names  # only what is registered counts
    assert registry.tool_problems() == []


def test_a_module_that_is_not_registered_adds_nothing(tool_dir):
    (tool_dir / "dropped_echo.py").write_text(DROPPED_TOOL)
    assert "dropped_echo" not in {tool.name for tool in default_tools()}


def test_a_registered_tool_that_fails_to_load_is_left_out_and_said(tool_dir, monkeypatch):
    (tool_dir / "broken_tool.py").write_text("raise RuntimeError('half written')\n")
    (tool_dir / "dropped_echo.py").write_text(DROPPED_TOOL)
    listed = (*registry.BUILT_IN, "broken_tool:Tool", "dropped_echo:_Helper", "dropped_echo:Nope")
    monkeypatch.setattr(registry, "BUILT_IN", listed)
    names = {tool.name for tool in default_tools()}
    assert names >= BUILT_INS and "hidden" not in names
    said = " ".join(registry.tool_problems())
    assert "broken_tool:Tool" in said and "half written" in said
    assert "dropped_echo:Nope" in said and "dropped_echo:_Helper" in said
    assert len(registry.tool_problems()) == 3


def test_an_installed_package_registers_its_tools_by_entry_point(tool_dir, monkeypatch):
    (tool_dir / "dropped_echo.py").write_text(DROPPED_TOOL)
    dist = tool_dir / "dropped_echo-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: dropped-echo\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[{registry.ENTRY_POINTS}]\necho = dropped_echo:Echo\nbad = dropped_echo:Gone\n"
    )
    names = {tool.name for tool in default_tools()}
    assert "dropped_echo" in names
    assert any("dropped_echo:Gone" in s for s in registry.tool_problems())


def test_the_page_and_the_command_line_say_which_tool_is_missing(tool_dir, monkeypatch):
    from ui.notices import tell_mcp_notices

    (tool_dir / "broken_tool.py").write_text("raise RuntimeError('half written')\n")
    monkeypatch.setattr(registry, "BUILT_IN", (*registry.BUILT_IN, "broken_tool:Tool"))
    default_tools()
    request = type("Request", (), {"headers": {"accept-language": "zh-CN"}})()
    with pytest.warns(UserWarning, match="部分工具无法加载.*half written"):
        tell_mcp_notices(request)
    # The command line, as a person runs it, with a package that registers a broken tool.
    dist = tool_dir / "broken_tool-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-tool\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[{registry.ENTRY_POINTS}]\nbroken = broken_tool:Tool\n"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tool_dir), str(root)])}
    done = subprocess.run(
        [sys.executable, "-m", "agent", "2+2", "--offline"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "4" in done.stdout
    assert "broken (broken_tool:Tool) could not be loaded" in done.stderr
    assert "half written" in done.stderr


def test_a_dropped_manifest_adds_a_plugin(plugin_dir):
    (plugin_dir / "dropped.json").write_text(json.dumps(MANIFEST))
    mapping = tool_map(configured_tools())
    assert mapping["dropped_plugin"].required_fields() == ["q"]
    assert set(mapping) >= BUILT_INS


def test_a_broken_manifest_is_skipped_with_a_warning(plugin_dir, caplog):
    (plugin_dir / "good.json").write_text(json.dumps(MANIFEST))
    (plugin_dir / "broken.json").write_text('{"name_for_model": "x"}')
    (plugin_dir / "garbage.json").write_text("\x00\x01 not json")
    with caplog.at_level(logging.WARNING, logger="tools.plugins"):
        names = {tool.name for tool in configured_tools()}
    assert "dropped_plugin" in names
    assert "broken.json" in caplog.text and "garbage.json" in caplog.text


def test_a_plugin_cannot_replace_a_built_in(plugin_dir, caplog):
    (plugin_dir / "clash.json").write_text(json.dumps({**MANIFEST, "name_for_model": "calculator"}))
    with caplog.at_level(logging.WARNING, logger="tools.registry"):
        mapping = tool_map(configured_tools())
    assert type(mapping["calculator"]).__module__ == "tools.calculator"
    assert "calculator" in caplog.text


def test_plugins_gated_by_a_setting_follow_the_settings(plugin_dir, monkeypatch):
    monkeypatch.delenv("AGENT_ENABLE_DROPPED", raising=False)
    (plugin_dir / "gated.json").write_text(
        json.dumps({**MANIFEST, "enabled_by": "AGENT_ENABLE_DROPPED"})
    )
    switched = ToolSettings(plugin_dir=plugin_dir, variables={"AGENT_ENABLE_DROPPED": "1"})

    assert "dropped_plugin" not in tool_map(configured_tools())
    assert "dropped_plugin" in tool_map(default_tools(switched))
    # A variable the settings do not know is the manifest's own: read from the environment.
    monkeypatch.setenv("AGENT_ENABLE_DROPPED", "yes")
    assert "dropped_plugin" in tool_map(configured_tools())
    off = ToolSettings(plugin_dir=plugin_dir, variables={"AGENT_ENABLE_DROPPED": "0"})
    assert "dropped_plugin" not in tool_map(default_tools(off))


def test_without_settings_the_plugin_dir_is_the_shipped_one(plugin_dir):
    (plugin_dir / "dropped.json").write_text(json.dumps(MANIFEST))
    assert "dropped_plugin" not in tool_map(default_tools())
    assert "dropped_plugin" in tool_map(default_tools(ToolSettings(plugin_dir=plugin_dir)))


def test_a_missing_plugin_dir_means_no_plugins(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_PLUGIN_DIR", str(tmp_path / "nowhere"))
    assert {tool.name for tool in configured_tools()} >= BUILT_INS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what is 12*(3+4)?", "calculator"),
        ("计算 3的平方根", "calculator"),
        ("3的平方根是多少", "calculator"),
        ("3的平方根到底是多少", "calculator"),
        ("convert 5 miles to km", "convert_units"),
        ("5公里等于多少英里", "convert_units"),
        ("how many pounds is 3 kg", "convert_units"),
        ("What is 100 °F in celsius?", "convert_units"),
        ("What time is it in Tokyo?", "world_clock"),
        ("现在几点了？", "world_clock"),
        ("What's the weather in Berlin?", "weather"),
        ("北京天气怎么样", "weather"),
        ("read the text in this image", None),
        ("rotate the photo and convert it to grayscale", None),
        ("what colours are in this picture?", None),
        ("scan the QR code", None),
        ("zoom into the top left corner", None),
        ("when was this photo taken? check the exif", None),
        ("how many people are in this image?", None),
    ],
)
def test_triggers_route_requests_to_the_right_everyday_tool(text, expected, monkeypatch):
    import re

    monkeypatch.setenv("AGENT_ENABLE_WEATHER", "1")
    monkeypatch.delenv("AGENT_PLUGIN_DIR", raising=False)
    mine = [t for t in default_tools() if t.name in {*BUILT_INS, "weather"}]
    hits = {
        t.name: sum(bool(re.search(p, text, re.IGNORECASE)) for p in hints_for(t).triggers)
        for t in mine
    }
    best = max(hits, key=hits.get)
    assert (best if hits[best] else None) == expected, hits
