"""Prometheus metrics (prometheus-client): what each process records (requests, job
durations, credits captured) and the exposition of a machine's processes together.

Multiprocess mode: when PROMETHEUS_MULTIPROC_DIR is set, every process (uvicorn workers, the
job worker and its forked processes) writes its numbers to files there and a scrape sums them.
The mode is fixed by the environment when the first metric is made, so the metrics are made
on first use, never at import: `soundstage serve` and `soundstage worker` set the directory
before that (`use_directory`)."""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry, Counter, Histogram

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Request latencies: API calls are milliseconds, synchronous jobs (TTS, STT) seconds to minutes.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900)
# Job durations: from a second of TTS to an hour-long dub.
JOB_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200)

_enabled = [True]


class _Metrics(NamedTuple):
    requests: Counter
    request_seconds: Histogram
    job_seconds: Histogram
    credits_captured: Counter


@lru_cache(maxsize=1)
def _metrics() -> _Metrics:
    from prometheus_client import Counter, Histogram

    return _Metrics(
        requests=Counter(
            "soundstage_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"],
        ),
        request_seconds=Histogram(
            "soundstage_http_request_duration_seconds",
            "Time from a request's arrival to the end of its response, by route template.",
            ["route", "method"],
            buckets=REQUEST_BUCKETS,
        ),
        job_seconds=Histogram(
            "soundstage_job_duration_seconds",
            "Time a worker spent on a job attempt, by kind and how it ended "
            "(completed, failed, cancelled, requeued).",
            ["kind", "outcome"],
            buckets=JOB_BUCKETS,
        ),
        credits_captured=Counter(
            "soundstage_credits_captured",
            "Credits captured (charged) for completed work, by operation.",
            ["operation"],
        ),
    )


def set_enabled(enabled: bool) -> None:
    """`metrics.enabled`: when False, nothing is recorded."""
    _enabled[0] = enabled


def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    if _enabled[0]:
        metrics = _metrics()
        metrics.requests.labels(route, method, str(status)).inc()
        metrics.request_seconds.labels(route, method).observe(seconds)


def observe_job(kind: str, outcome: str, seconds: float) -> None:
    if _enabled[0]:
        _metrics().job_seconds.labels(kind, outcome).observe(seconds)


def count_credits_captured(operation: str, credits: int) -> None:
    if _enabled[0] and credits > 0:
        _metrics().credits_captured.labels(operation).inc(credits)


def use_directory(path: Path | None) -> Path:
    """Before any metric is made in this process: the multiprocess directory its children
    inherit. `path` (the operator's PROMETHEUS_MULTIPROC_DIR) is used as it is: the operator
    empties it when the machine's processes start. None: a fresh private directory for this
    process group (removed by `remove_private`)."""
    if path is None:
        path = Path(tempfile.mkdtemp(prefix="soundstage-metrics-"))
    path.mkdir(parents=True, exist_ok=True)
    os.environ[MULTIPROC_ENV] = str(path)
    values = sys.modules.get("prometheus_client.values")
    if values is not None:  # imported earlier (by a library): choose its mode again
        values.ValueClass = values.get_value_class()  # type: ignore[attr-defined]
    return path


def remove_private(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def directory() -> Path | None:
    value = os.environ.get(MULTIPROC_ENV)
    return Path(value) if value else None


# What a collector added at scrape time yields: (name, help, {labels: value}) gauges.
GaugeReading = tuple[str, str, list[str], Iterable[tuple[tuple[str, ...], float]]]


def exposition(extra: Callable[[], Iterable[GaugeReading]] | None = None) -> bytes:
    """The text exposition of this machine's processes (every file in the multiprocess
    directory when there is one, else this process), plus gauges read now (`extra`)."""
    from prometheus_client import REGISTRY, CollectorRegistry, generate_latest

    _metrics()  # the families appear (empty) before anything was recorded
    registry: CollectorRegistry
    if directory() is not None:
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = CollectorRegistry()
        registry.register(_Forward(REGISTRY))
    if extra is not None:
        registry.register(_Gauges(extra))
    return generate_latest(registry)


class _Forward:
    """The process's own default registry, inside a scrape registry of our own."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterable[Any]:
        return self.registry.collect()


class _Gauges:
    """Gauges computed at scrape time (queue depth from the database)."""

    def __init__(self, read: Callable[[], Iterable[GaugeReading]]) -> None:
        self.read = read

    def collect(self) -> Iterable[Any]:
        from prometheus_client.core import GaugeMetricFamily

        for name, help_text, labels, values in self.read():
            family = GaugeMetricFamily(name, help_text, labels=labels)
            for label_values, value in values:
                family.add_metric(list(label_values), value)
            yield family


class ExpositionServer:
    """/metrics of a worker machine that runs no API process (`metrics.worker_port`): the
    same exposition on a small HTTP server of its own, in the worker's main process, behind
    the same optional bearer token."""

    def __init__(self, host: str, port: int, bearer_token: str | None) -> None:
        self.host, self.port, self.bearer_token = host, port, bearer_token
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        token = self.bearer_token

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.split("?")[0] != "/metrics":
                    self._answer(404, b"not found\n", "text/plain")
                elif token and not secrets.compare_digest(
                    self.headers.get("Authorization", ""), f"Bearer {token}"
                ):
                    self._answer(401, b"unauthorized\n", "text/plain")
                else:
                    self._answer(200, exposition(), CONTENT_TYPE)

            def _answer(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # scrapes every few seconds: not worth a log line each

        self._server = ThreadingHTTPServer((self.host, self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="metrics", daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
