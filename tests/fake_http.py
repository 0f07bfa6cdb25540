"""One fake HTTP server on 127.0.0.1 for provider tests (model providers, market data providers)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def fake_server(
    script: list[tuple[int, dict[str, str], Any]],
    encode: Callable[[Any], tuple[str, bytes]],
    record: Callable[[BaseHTTPRequestHandler], Any],
) -> Iterator[tuple[str, list[tuple[float, Any]]]]:
    """Yields (base URL, hits). `script`: (status, headers, payload) answered in order, the last repeating; a
    payload None hangs 1.5 s (a timeout); `encode(payload)` -> (content type, body); `record(request)` is what
    each hit keeps beside its time."""
    hits: list[tuple[float, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            hits.append((time.monotonic(), record(self)))
            status, headers, payload = script[min(len(hits) - 1, len(script) - 1)]
            if payload is None:
                time.sleep(1.5)
                return
            kind, data = encode(payload)
            self.send_response(status)
            for k, v in {"Content-Type": kind, **headers}.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer  # noqa: N815

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits for serve_forever's next poll: every 0.5 s by default, 0.5 s at the end of every test
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", hits
    finally:
        server.shutdown()
        server.server_close()
