"""A stand-in for the weather plugin's service (Open-Meteo's geocoding and forecast) on
127.0.0.1, counting every request it gets: what a test asserts when it says nothing went out.

    with WeatherServer() as weather:
        Settings(AGENT_ENABLE_WEATHER=True, WEATHER_BASE_URL=weather.url)
        ...
        assert weather.asked == []
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class WeatherServer:
    def __init__(self) -> None:
        self.asked: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                split = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(split.query).items()}
                server.asked.append(split.path)
                if split.path == "/v1/search":
                    place = {"name": query.get("name", "?"), "country": "France"}
                    payload: dict = {"results": [{**place, "latitude": 48.9, "longitude": 2.4}]}
                else:
                    payload = {"current": {"temperature_2m": 4.5}, "daily": {}}
                body = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> WeatherServer:
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
