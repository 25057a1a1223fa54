import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import ValidationError

from agent.config import Settings
from tools import default_tools, tool_map
from tools.base import ToolSettings
from tools.plugins import (
    ManifestError,
    PluginError,
    PluginManifest,
    load_manifest,
    load_plugins,
    plugin_from_manifest,
)

SECRET = "s3cr3t-token-value"
WEATHER_MANIFEST = Path(__file__).resolve().parent.parent / "assets" / "plugins" / "weather.json"
PLACES = {
    "Berlin": {"name": "Berlin", "country": "Germany", "latitude": 52.52, "longitude": 13.41},
    "北京": {"name": "北京市", "country": "中国", "latitude": 39.91, "longitude": 116.40},
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _json(self, payload, status=200):
        body = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _echo(self, body=None):
        split = urlsplit(self.path)
        self._json(
            {
                "method": self.command,
                "path": split.path,
                "query": {k: v[0] for k, v in parse_qs(split.query).items()},
                "body": body,
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
        )

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self._echo(json.loads(self.rfile.read(length) or b"null"))

    def do_GET(self):
        split = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        if split.path == "/v1/search":
            place = PLACES.get(query.get("name", ""))
            self._json({"results": [place], "asked": query} if place else {"generationtime_ms": 1})
        elif split.path == "/v1/forecast":
            self._json(
                {
                    "latitude": float(query["latitude"]),
                    "current": {"temperature_2m": 21.5},
                    "query": query,
                }
            )
        elif split.path == "/big":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            chunk = b" " * 65536
            with contextlib.suppress(OSError):
                for _ in range(50 * 16):  # 50 MB
                    self.wfile.write(chunk)
        elif split.path == "/big-declared":
            self.send_response(200)
            self.send_header("Content-Length", str(50 * 1024 * 1024))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(b"{")
        elif split.path == "/hang":
            time.sleep(3)
            self._json({})
        elif split.path == "/fail":
            self._json({"error": f"bad key {self.headers.get('X-API-Key')}"}, status=500)
        elif split.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "http://example.com/")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif split.path == "/text":
            body = b"plain words"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self._echo()


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # clients hanging up on /big and /hang are the point of those tests


@pytest.fixture(scope="module")
def server():
    httpd = QuietServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def make_tool(**manifest):
    base = {
        "name_for_model": "echo",
        "name_for_human": "Echo",
        "description_for_human": "Sends the arguments back.",
        "request_body": [
            {"name": "city", "description": "A city.", "required": True, "type": "string"},
            {"name": "days", "description": "How many days.", "type": "integer"},
            {"name": "unit", "description": "Units.", "type": "string", "enum": ["c", "f"]},
        ],
    }
    base.update(manifest)
    return plugin_from_manifest(PluginManifest.model_validate(base))()


# -- declaration ------------------------------------------------------------------------------


def test_orion_style_fields_build_a_validating_args_model(server):
    tool = make_tool(url=f"{server}/echo")
    assert tool.name == "echo" and tool.required_fields() == ["city"]
    schema = tool.schema()
    assert schema["required"] == ["city"]
    assert "One of: c, f." in schema["properties"]["unit"]["description"]
    assert "Tool Name: echo" in tool.prompt_line()
    args = tool.Args.model_validate({"city": "Oslo", "days": "3", "url": "http://evil.test"})
    assert args.days == 3 and not hasattr(args, "url")


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ({}, "city\n  Field required"),
        ({"city": "Oslo", "unit": "k"}, "Input should be 'c' or 'f'"),
        ({"city": "Oslo", "days": "many"}, "valid integer"),
    ],
)
def test_bad_arguments_say_what_to_fix(server, arguments, complaint):
    tool = make_tool(url=f"{server}/echo")
    with pytest.raises(ValidationError) as error:
        tool.Args.model_validate(arguments)
    assert complaint in str(error.value)


def test_json_schema_parameters_are_accepted(server):
    tool = make_tool(
        url=f"{server}/echo",
        request_body=[],
        parameters={
            "type": "object",
            "properties": {
                "q": {"type": "string", "description": "Search words."},
                "limit": {"type": "integer", "default": 5},
                "safe": {"type": "boolean"},
            },
            "required": ["q"],
        },
    )
    assert tool.required_fields() == ["q"]
    assert tool.Args.model_validate({"q": "x"}).limit == 5


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"name_for_model": "get bing wallpaper"}, "name_for_model"),
        ({"url": "file:///etc/passwd"}, "http"),
        ({"url": ""}, "either url"),
        ({"method": "DELETE"}, "method"),
        ({"triggers": ["(unclosed"]}, "triggers"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_broken_manifests_are_refused_with_the_reason(tmp_path, change, problem):
    manifest = {
        "name_for_model": "echo",
        "name_for_human": "Echo",
        "description_for_human": "Echo.",
        "url": "http://127.0.0.1:9/echo",
    }
    manifest.update(change)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(manifest))
    with pytest.raises(ManifestError, match=problem):
        load_manifest(path)


# -- calls ------------------------------------------------------------------------------------


async def test_get_sends_arguments_in_the_query_string(server):
    tool = make_tool(url=f"{server}/echo", headers={"Accept": "application/json"})
    result = await tool.run(tool.Args.model_validate({"city": "Oslo", "days": 2}), None)
    assert result.data["method"] == "GET"
    assert result.data["query"] == {"city": "Oslo", "days": "2"}
    assert result.data["headers"]["accept"] == "application/json"
    assert json.loads(result.text) == result.data


async def test_post_sends_a_json_body(server):
    tool = make_tool(url=f"{server}/echo", method="post")
    result = await tool.run(tool.Args.model_validate({"city": "Oslo", "unit": "c"}), None)
    assert result.data["method"] == "POST"
    assert result.data["body"] == {"city": "Oslo", "unit": "c"}


async def test_path_values_are_quoted_into_one_segment(server):
    tool = make_tool(url=f"{server}/items/{{city}}")
    result = await tool.run(tool.Args.model_validate({"city": "Oslo Süd?x=1#top"}), None)
    assert result.data["path"] == "/items/Oslo%20S%C3%BCd%3Fx%3D1%23top"
    assert "city" not in result.data["query"]


async def test_base_url_env_points_the_plugin_elsewhere(server, monkeypatch):
    tool = make_tool(url="https://api.invalid/echo", base_url_env="ECHO_BASE_URL")
    monkeypatch.setenv("ECHO_BASE_URL", server)
    result = await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)
    assert result.data["path"] == "/echo"


async def test_non_json_answers_come_back_as_text(server):
    tool = make_tool(url=f"{server}/text")
    result = await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)
    assert result.data == {"response": "plain words"}


async def test_long_answers_are_truncated_for_the_model(server):
    tool = make_tool(url=f"{server}/echo")
    result = await tool.run(tool.Args.model_validate({"city": "x" * 5000}), None)
    assert len(result.text) == 2000 and result.text.endswith("…")
    assert result.data["query"]["city"] == "x" * 5000


# -- hostile services -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/big", "/big-declared"])
async def test_a_50_mb_answer_is_stopped_at_the_cap(server, path):
    tool = make_tool(url=f"{server}{path}")
    started = time.monotonic()
    with pytest.raises(PluginError, match="more than 1,000,000 bytes"):
        await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)
    assert time.monotonic() - started < 3


async def test_a_hanging_service_times_out(server):
    tool = make_tool(url=f"{server}/hang", timeout_seconds=0.5)
    started = time.monotonic()
    with pytest.raises(PluginError, match=r"did not answer within 0\.5 seconds") as error:
        await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)
    assert error.value.timeout_seconds == 0.5
    assert time.monotonic() - started < 2
    assert type(tool).timeout > 0.5  # the runner's limit leaves room for this message


async def test_unreachable_service_is_one_sentence():
    tool = make_tool(url="http://127.0.0.1:9/echo")
    with pytest.raises(PluginError, match="Could not reach the echo service"):
        await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)


async def test_a_service_out_of_reach_is_said_in_the_turns_language(server):
    """The offline model quotes the sentence: "没能完成：Could not reach…" mixed two languages."""
    from agent.images import ImageStore
    from tools.base import ToolContext

    context = ToolContext(ImageStore(), language="zh")
    tool = make_tool(url="http://127.0.0.1:9/echo")
    with pytest.raises(PluginError, match="无法连接 echo 服务"):
        await tool.run(tool.Args.model_validate({"city": "Oslo"}), context)
    late = make_tool(url=f"{server}/hang", timeout_seconds=0.5)
    with pytest.raises(PluginError, match=r"echo 服务在 0\.5 秒内没有回应"):
        await late.run(late.Args.model_validate({"city": "Oslo"}), context)


async def test_redirects_are_not_followed(server):
    tool = make_tool(url=f"{server}/redirect")
    with pytest.raises(PluginError, match="redirect") as error:
        await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)
    assert error.value.status_code == 302


async def test_secret_headers_come_from_env_and_never_leak(server, monkeypatch):
    monkeypatch.setenv("ECHO_TEST_KEY", SECRET)
    tool = make_tool(url=f"{server}/echo", headers={"X-API-Key": {"env": "ECHO_TEST_KEY"}})
    result = await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)
    assert SECRET not in result.text and SECRET not in json.dumps(result.data)
    assert result.data["headers"]["x-api-key"] == "[redacted]"

    failing = make_tool(url=f"{server}/fail", headers={"X-API-Key": {"env": "ECHO_TEST_KEY"}})
    with pytest.raises(PluginError) as error:
        await failing.run(failing.Args.model_validate({"city": "Oslo"}), None)
    assert error.value.status_code == 500
    assert "HTTP 500" in str(error.value) and SECRET not in str(error.value)


async def test_a_missing_secret_is_a_clear_error(server, monkeypatch):
    monkeypatch.delenv("ECHO_TEST_KEY", raising=False)
    tool = make_tool(url=f"{server}/echo", headers={"X-API-Key": {"env": "ECHO_TEST_KEY"}})
    with pytest.raises(PluginError, match="environment variable ECHO_TEST_KEY"):
        await tool.run(tool.Args.model_validate({"city": "Oslo"}), None)


# -- the weather plugin -----------------------------------------------------------------------


@pytest.fixture
def weather(server, monkeypatch):
    monkeypatch.setenv("WEATHER_BASE_URL", server)
    return plugin_from_manifest(load_manifest(WEATHER_MANIFEST))()


def test_weather_is_off_unless_enabled(monkeypatch):
    monkeypatch.delenv("AGENT_ENABLE_WEATHER", raising=False)
    monkeypatch.delenv("AGENT_PLUGIN_DIR", raising=False)
    assert "weather" not in tool_map(default_tools())
    monkeypatch.setenv("AGENT_ENABLE_WEATHER", "1")
    assert "weather" in tool_map(default_tools())
    monkeypatch.setenv("AGENT_ENABLE_WEATHER", "0")
    assert "weather" not in tool_map(default_tools())
    on = ToolSettings(variables={"AGENT_ENABLE_WEATHER": "true"})
    assert "weather" in tool_map(default_tools(on))
    assert "weather" in tool_map(default_tools(Settings(enable_weather=True).tool_settings()))


async def test_the_weather_settings_reach_the_plugin(server, monkeypatch):
    for name in ("WEATHER_BASE_URL", "AGENT_ENABLE_WEATHER", "AGENT_PLUGIN_DIR"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(enable_weather=True, weather_base_url=server).tool_settings()
    weather = tool_map(default_tools(settings))["weather"]
    result = await weather.run(weather.Args.model_validate({"city": "Berlin"}), None)
    assert result.data["resolved"]["place"] == "Berlin"


async def test_weather_geocodes_then_forecasts(weather):
    result = await weather.run(weather.Args.model_validate({"city": "Berlin"}), None)
    assert result.data["resolved"]["place"] == "Berlin"
    assert result.data["query"]["latitude"] == "52.52"
    assert result.data["query"]["timezone"] == "auto"
    assert result.data["current"]["temperature_2m"] == 21.5
    assert '"place":"Berlin"' in result.text


async def test_weather_takes_chinese_city_names(weather):
    found = weather.extract("北京今天天气怎么样？", [], {})
    assert found == {"city": "北京", "language": "zh"}
    result = await weather.run(weather.Args.model_validate(found), None)
    assert result.data["resolved"]["place"] == "北京市"
    assert result.data["query"]["longitude"] == "116.4"


async def test_weather_for_an_unknown_place_says_so(weather):
    with pytest.raises(PluginError, match="No place called Atlantis was found"):
        await weather.run(weather.Args.model_validate({"city": "Atlantis"}), None)


@pytest.mark.parametrize(
    ("text", "known", "expected"),
    [
        ("What's the weather in Berlin?", {}, {"city": "Berlin"}),
        ("weather like in New York tomorrow?", {}, {"city": "New York"}),
        ("查一下上海的天气", {}, {"city": "上海", "language": "zh"}),
        ("What's the weather?", {}, {}),
        ("明天天气怎么样", {}, {"language": "zh"}),
        ("Berlin", {}, {"city": "Berlin"}),
    ],
)
def test_weather_extracts_the_city(weather, text, known, expected):
    assert weather.extract(text, [], known) == expected


def test_load_plugins_skips_disabled_and_broken(tmp_path, caplog):
    good = json.loads(WEATHER_MANIFEST.read_text())
    (tmp_path / "weather.json").write_text(json.dumps(good))
    (tmp_path / "broken.json").write_text("{not json")
    assert load_plugins(tmp_path, ToolSettings(variables={"AGENT_ENABLE_WEATHER": "0"})) == []
    assert "broken.json" in caplog.text
    on = ToolSettings(variables={"AGENT_ENABLE_WEATHER": "1"})
    names = [t.name for t in load_plugins(tmp_path, on)]
    assert names == ["weather"]
