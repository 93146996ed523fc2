"""The compatible surfaces are tested through the official SDKs against a live server: a real
`soundstage serve` on loopback (the SDKs speak HTTP, not ASGI) and a real worker.

They are not `services` tests: the surfaces only translate onto the native services, whose own
tests run again against PostgreSQL and Redis in CI; running these twice would add minutes and
test nothing new."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from soundstage.config import Settings
from soundstage.voices.service import CatalogCounts
from tests.support.processes import serve
from tests.support.tls import Certificate


@pytest.fixture(scope="module")
def live_url(
    settings: Settings, worker: subprocess.Popen[bytes], demo_catalog: CatalogCounts
) -> Iterator[str]:
    """The base URL of a live server for this module, its worker running, the demo voice
    catalog loaded."""
    yield from serve(settings)


@pytest.fixture(scope="module")
def live_tls_url(
    settings: Settings,
    worker: subprocess.Popen[bytes],
    demo_catalog: CatalogCounts,
    certificate: Certificate,
) -> Iterator[str]:
    """As `live_url`, served over TLS with the session's test `certificate` (https://, wss://):
    the vendors' realtime SDKs open wss:// only."""
    yield from serve(settings, certificate)
