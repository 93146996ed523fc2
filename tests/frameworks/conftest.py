"""The voice-agent frameworks' tests: each framework in its own virtualenv
(tests/support/framework_venvs.py), against a live server as tests/compat has one."""

from __future__ import annotations

import subprocess

import pytest

from soundstage.voices.service import CatalogCounts
from tests.support.processes import SharedServer


@pytest.fixture(scope="module")
def live_url(
    shared_server: SharedServer, worker: subprocess.Popen[bytes], demo_catalog: CatalogCounts
) -> str:
    """The base URL of a live server (the test process's shared one), its worker running,
    the demo voice catalog loaded: the frameworks' services speak HTTP and WebSocket to it."""
    return shared_server.url()
