"""The voice-agent frameworks' tests: each framework in its own virtualenv
(tests/support/framework_venvs.py), against a live server as tests/compat has one."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from soundstage.config import Settings
from soundstage.voices.service import CatalogCounts
from tests.support.processes import serve


@pytest.fixture(scope="module")
def live_url(
    settings: Settings, worker: subprocess.Popen[bytes], demo_catalog: CatalogCounts
) -> Iterator[str]:
    """The base URL of a live server for this module, its worker running, the demo voice
    catalog loaded: the frameworks' services speak HTTP and WebSocket to it."""
    yield from serve(settings)
