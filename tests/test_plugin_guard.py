"""Plugins keep path values to one segment, and never repeat a secret in any encoding, over real
HTTP against a local service that echoes the secret back every way it can."""

from __future__ import annotations

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.plugins import PluginError, PluginManifest, plugin_from_manifest
from tools.plugins.guard import Redactor, path_value_problem

SECRET = "s3cr3t-token-value+/~"
BASIC_PAIR = "alice:hunter2-correct-horse"
BASIC = base64.b64encode(BASIC_PAIR.encode()).decode()


def b64(data: str, urlsafe: bool = False, pad: bool = True) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    text = encode(data.encode()).decode()
    return text if pad else text.rstrip("=")


def encodings(secret: str) -> dict[str, str]:
    """Every way the service below sends a secret back."""
    raw = secret.encode()
    forms = {
        "raw": secret,
        "bearer": f"Bearer {secret}",
        "url": quote(secret, safe=""),
        "url_plus": quote_plus(secret),
        "url_lower": re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(secret, safe="")),
        "url_every_byte": "".join(f"%{b:02X}" for b in raw),
        "hex": raw.hex(),
        "hex_upper": raw.hex().upper(),
        "embedded_hex": ("token:" + secret).encode().hex(),
        "escaped_json": "".join(f"\\u{ord(c):04x}" for c in secret),  # undone by json.loads
    }
    for urlsafe in (False, True):
        for pad in (False, True):
            kind = f"{'urlsafe' if urlsafe else 'standard'}_{'padded' if pad else 'bare'}"
            forms[f"b64_{kind}"] = b64(secret, urlsafe, pad)
            for lead in ("u:", "us:", "use:"):  # the secret at each offset modulo 3
                forms[f"basic_{lead}{kind}"] = "Basic " + b64(lead + secret, urlsafe, pad)
            forms[f"in_json_{kind}"] = b64(json.dumps({"api_key": secret}), urlsafe, pad)
    return forms


class Echo(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        split = urlsplit(self.path)
        key = self.headers.get("X-API-Key") or ""
        auth = self.headers.get("Authorization") or ""
        if split.path == "/basic":
            token = auth.split()[-1]
            pair = base64.b64decode(token).decode()
            echoed = {"pair": pair, "password": pair.partition(":")[2], "header": auth}
            echoed |= {f"pair_{k}": v for k, v in encodings(pair).items()}
        else:
            echoed = encodings(key)
        # Written by hand so that the escaped form stays escaped on the wire.
        body = "{" + ", ".join(f'"{k}": "{v}"' for k, v in echoed.items()) + "}"
        status = 401 if split.path == "/refuse" else 200
        raw = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


class Quiet(ThreadingHTTPServer):
    daemon_threads = True


@pytest.fixture(scope="module")
def service():
    httpd = Quiet(("127.0.0.1", 0), Echo)
    httpd.requests = 0
    original = Echo.do_GET

    def counted(handler):
        httpd.requests += 1
        original(handler)

    Echo.do_GET = counted
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    Echo.do_GET = original
    httpd.shutdown()
    httpd.server_close()


def url_of(httpd, path: str) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}{path}"


def make_tool(url: str, headers: dict | None = None, **extra):
    manifest = {
        "name_for_model": "lookup",
        "name_for_human": "Lookup",
        "description_for_human": "Looks an item up.",
        "request_body": [{"name": "item", "description": "The item.", "required": True}],
        "headers": headers or {},
        **({"url": url} if url else {}),
        **extra,
    }
    return plugin_from_manifest(PluginManifest.model_validate(manifest))()


def assert_no_secret(text: str, secret: str) -> None:
    """No decoding of any part of `text` gives the whole secret back."""
    raw = secret.encode()
    for view in (text, unquote(text), unquote_plus(text), unquote(unquote(text))):
        assert secret not in view
    for run in re.findall(r"[0-9a-fA-F]{12,}", text):
        for start in (0, 1):
            digits = run[start:]
            assert raw not in bytes.fromhex(digits[: len(digits) // 2 * 2]), run
    for run in re.findall(r"[A-Za-z0-9+/_-]{8,}", text):
        standard = run.translate(str.maketrans("-_", "+/"))
        for start in range(4):
            piece = standard[start:]
            piece = piece[: len(piece) - (len(piece) % 4 == 1)]
            decoded = base64.b64decode(piece + "=" * (-len(piece) % 4))
            assert raw not in decoded, run


def everything_said(result) -> str:
    return result.text + json.dumps(result.data, ensure_ascii=False)


# -- secrets ----------------------------------------------------------------------------------


async def test_a_secret_echoed_in_every_encoding_is_redacted(service, monkeypatch):
    monkeypatch.setenv("LOOKUP_KEY", SECRET)
    tool = make_tool(url_of(service, "/echo"), {"X-API-Key": {"env": "LOOKUP_KEY"}})

    result = await tool.run(tool.Args.model_validate({"item": "x"}), None)

    assert set(result.data) == set(encodings(SECRET))  # the service did echo every form
    assert_no_secret(everything_said(result), SECRET)
    assert result.data["raw"] == result.data["b64_standard_padded"] == "[redacted]"
    assert result.data["escaped_json"] == "[redacted]"


async def test_a_basic_credential_is_redacted_decoded_and_re_encoded(service, monkeypatch):
    monkeypatch.setenv("LOOKUP_BASIC", BASIC)
    tool = make_tool(
        url_of(service, "/basic"), {"Authorization": {"env": "LOOKUP_BASIC", "prefix": "Basic "}}
    )

    result = await tool.run(tool.Args.model_validate({"item": "x"}), None)

    said = everything_said(result)
    assert "pair_b64_standard_padded" in result.data
    for secret in (BASIC, BASIC_PAIR, "hunter2-correct-horse"):
        assert_no_secret(said, secret)


async def test_error_sentences_are_redacted_too(service, monkeypatch):
    monkeypatch.setenv("LOOKUP_KEY", SECRET)
    tool = make_tool(url_of(service, "/refuse"), {"X-API-Key": {"env": "LOOKUP_KEY"}})

    with pytest.raises(PluginError) as caught:
        await tool.run(tool.Args.model_validate({"item": "x"}), None)

    assert caught.value.status_code == 401
    assert "HTTP 401" in str(caught.value)
    assert_no_secret(str(caught.value), SECRET)


@settings(max_examples=60, deadline=None)
@given(
    secret=st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=8, max_size=40),
    before=st.binary(max_size=7),
    after=st.binary(max_size=7),
    urlsafe=st.booleans(),
)
def test_base64_of_any_text_holding_the_secret_is_redacted(secret, before, after, urlsafe):
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    text = encode(before + secret.encode() + after).decode()

    assert_no_secret(Redactor([secret]).text(text), secret)


def test_redaction_leaves_other_text_alone():
    redactor = Redactor([SECRET])
    text = "Sunny, 21 °C; wind 12 km/h. Token dG9rZW4= and hex 0123abcd."

    assert redactor.text(text) == text
    assert redactor.data({"a": [text, 1, None]}) == {"a": [text, 1, None]}


# -- path values ------------------------------------------------------------------------------

REFUSED = {
    "dot": ".",
    "dot dot": "..",
    "traversal": "../admin",
    "slash": "a/b",
    "backslash": "a\\b",
    "encoded dots": "%2e%2e",
    "encoded dot, upper": "%2E",
    "encoded slash": "a%2Fb",
    "encoded backslash": "%5c",
    "double-encoded dots": "%252e%252e",
    "double-encoded slash": "a%252fb",
    "empty": "",
    "blank": "   ",
    "fullwidth dots": "．．",
    "fullwidth slash": "a／b",
    "control character": "a\x00b",
}


@pytest.mark.parametrize("value", list(REFUSED.values()), ids=list(REFUSED))
async def test_a_path_value_that_would_leave_its_segment_is_refused_before_any_request(
    service, value
):
    tool = make_tool(url_of(service, "/items/{item}"))
    before = service.requests

    with pytest.raises(PluginError) as caught:
        await tool.run(tool.Args.model_validate({"item": value}), None)

    sentence = str(caught.value)
    assert sentence.startswith("The item ") and sentence.endswith("give the item itself.")
    assert "\n" not in sentence
    assert service.requests == before


async def test_a_later_step_path_is_checked_before_the_first_request(service):
    steps = [
        {"url": url_of(service, "/echo"), "extract": {"found": "raw"}},
        {"url": url_of(service, "/items/{item}")},
    ]
    tool = make_tool("", steps=steps)
    before = service.requests

    with pytest.raises(PluginError, match="holds a slash"):
        await tool.run(tool.Args.model_validate({"item": "../admin"}), None)

    assert service.requests == before


async def test_a_value_from_an_earlier_answer_is_checked_too(service):
    steps = [
        # The service's `hex` of an empty key is "", and an empty segment is refused.
        {"url": url_of(service, "/echo"), "extract": {"found": "hex"}},
        {"url": url_of(service, "/items/{found}")},
    ]
    tool = make_tool("", steps=steps)
    before = service.requests

    with pytest.raises(PluginError, match=r"The found '' .* is empty"):
        await tool.run(tool.Args.model_validate({"item": "x"}), None)

    assert service.requests == before + 1


@pytest.mark.parametrize("value", ["Oslo", "São Paulo", "a.b", "...", "v1.2", "50%", "x?y#z"])
def test_ordinary_values_pass(value):
    assert path_value_problem(value) is None
