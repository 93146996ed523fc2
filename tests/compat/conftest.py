"""The compatible surfaces are tested through the official SDKs against a live server: a real
`soundstage serve` on loopback (the SDKs speak HTTP, not ASGI) and a real worker.

They are not `services` tests: the surfaces only translate onto the native services, whose own
tests run again against PostgreSQL and Redis in CI; running these twice would add minutes and
test nothing new."""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
from pathlib import Path

import pytest

from soundstage.voices.service import CatalogCounts
from tests.support.processes import SharedServer

# The JavaScript SDKs' scripts and their npm lock (CONTRIBUTING.md, "Running").
JS = Path(__file__).parent / "js"
# What the installed node_modules was made from: `npm ci` runs again when either file changes.
STAMP = JS / "node_modules" / ".soundstage-installed"


@pytest.fixture(scope="module")
def live_url(
    shared_server: SharedServer, worker: subprocess.Popen[bytes], demo_catalog: CatalogCounts
) -> str:
    """The base URL of a live server (the test process's shared one), its worker running,
    the demo voice catalog loaded."""
    return shared_server.url()


@pytest.fixture(scope="module")
def live_tls_url(
    shared_tls_server: SharedServer,
    worker: subprocess.Popen[bytes],
    demo_catalog: CatalogCounts,
) -> str:
    """As `live_url`, served over TLS with the session's test `certificate` (https://, wss://):
    the vendors' realtime SDKs open wss:// only."""
    return shared_tls_server.url()


def _lock_digest() -> str:
    return hashlib.sha256(
        (JS / "package.json").read_bytes() + (JS / "package-lock.json").read_bytes()
    ).hexdigest()


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """The SDKs installed by `npm ci` from the committed lock, once per lock (a file lock
    keeps two test processes from installing at once). No npm is a failure: `make install`
    installs Node."""
    with (JS / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        digest = _lock_digest()
        if not STAMP.is_file() or STAMP.read_text() != digest:
            installed = subprocess.run(
                ["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=JS,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert installed.returncode == 0, installed.stdout + installed.stderr
            STAMP.write_text(digest)
    return JS / "node_modules"
