"""HTTP servers on 127.0.0.1 that the service under test calls: static files (inputs it
fetches) and webhook receivers that verify every request with the standardwebhooks library."""

from __future__ import annotations

import functools
import http.server
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks import Webhook


class FileServer:
    """Static files on 127.0.0.1, which the test worker may fetch from."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def put(self, name: str, data: bytes) -> str:
        (self.root / name).write_bytes(data)
        return f"http://127.0.0.1:{self.server.server_address[1]}/{name}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    payload: Any  # what Webhook.verify returned; None when verification failed
    error: str | None  # why verification failed
    raw_headers: list[tuple[str, str]] = field(default_factory=list)  # as sent, repeats kept
    at: float = field(default_factory=time.monotonic)


class Receiver:
    """An HTTP server answering POSTs with `statuses` in turn, then `default`, each after
    `delay_seconds` (cut short once `release` is set). It counts the requests it is answering,
    per path (`in_flight`), at most at once per path (`most_at_once`) and over all paths
    (`most_held`)."""

    def __init__(self) -> None:
        self.secret = ""
        self.statuses: list[int] = []
        self.default = 200
        self.delay_seconds = 0.0
        self.release = threading.Event()
        self.requests: list[Received] = []
        self.in_flight: dict[str, int] = {}
        self.most_at_once: dict[str, int] = {}
        self.most_held = 0  # over every path
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                raw = list(self.headers.items())
                receiver.record(self.path, {k.lower(): v for k, v in raw}, body, raw)
                receiver.count(self.path, +1)
                try:
                    receiver.release.wait(receiver.delay_seconds)
                finally:
                    receiver.count(self.path, -1)
                self.send_response(receiver.next_status())
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def record(
        self, path: str, headers: dict[str, str], body: bytes, raw: list[tuple[str, str]]
    ) -> None:
        try:
            payload, error = Webhook(self.secret).verify(body, headers), None
        except Exception as exc:
            payload, error = None, f"{type(exc).__name__}: {exc}"
        with self._lock:
            self.requests.append(Received(path, headers, body, payload, error, raw))

    def count(self, path: str, change: int) -> None:
        with self._lock:
            now = self.in_flight[path] = self.in_flight.get(path, 0) + change
            self.most_at_once[path] = max(self.most_at_once.get(path, 0), now)
            self.most_held = max(self.most_held, sum(self.in_flight.values()))

    def held(self) -> int:
        """Requests being answered now, over every path."""
        with self._lock:
            return sum(self.in_flight.values())

    def next_status(self) -> int:
        with self._lock:
            return self.statuses.pop(0) if self.statuses else self.default

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
