"""`soundstage serve --ssl-certfile/--ssl-keyfile`: the API over HTTPS and its realtime
sessions over wss://, as the clients that force TLS (the vendors' realtime SDKs) open them."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from websockets.sync.client import connect

from soundstage.config import Settings
from tests.support.factories import Customer
from tests.support.processes import REPO_ROOT, serve, settings_env
from tests.support.tls import Certificate


@pytest.fixture(scope="module")
def tls_url(settings: Settings, certificate: Certificate) -> Iterator[str]:
    yield from serve(settings, certificate)


def test_https_with_the_certificate(tls_url: str, certificate: Certificate) -> None:
    assert tls_url.startswith("https://")
    with httpx.Client(verify=certificate.client_context()) as client:
        assert client.get(f"{tls_url}/healthz").json()["status"] == "ok"


def test_an_untrusted_authority_is_refused(tls_url: str) -> None:
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(f"{tls_url}/healthz", verify=ssl.create_default_context())


def test_plain_http_to_the_tls_port_gets_no_answer(tls_url: str) -> None:
    plain = tls_url.replace("https://", "http://")
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{plain}/healthz", timeout=5)


def test_a_realtime_session_over_wss(
    tls_url: str, certificate: Certificate, customer: Customer
) -> None:
    url = tls_url.replace("https://", "wss://") + "/api/v1/speech/stt/realtime"
    headers = customer.auth()
    with connect(
        url, ssl=certificate.client_context(), additional_headers=headers, open_timeout=30
    ) as websocket:
        websocket.send(json.dumps({"sample_rate": 16000}))
        started = json.loads(websocket.recv(timeout=60))
        assert started["type"] == "session.started", started
        websocket.send(json.dumps({"close": True}))
        closed = json.loads(websocket.recv(timeout=60))
        assert closed["type"] == "session.closed", closed
        assert closed["job_id"] == started["job_id"]


def test_a_key_file_needs_a_certificate(settings: Settings, certificate: Certificate) -> None:
    key_only = ["--ssl-keyfile", str(certificate.key_file)]
    result = subprocess.run(
        [sys.executable, "-m", "soundstage.cli", "serve", *key_only],
        env=settings_env(settings),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--ssl-certfile" in result.stderr
