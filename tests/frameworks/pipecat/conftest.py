"""pipecat's tests: its own virtualenv, made from requirements.txt beside this file at
`.venv-frameworks/pipecat` (its pins are not the service's), and a live server as tests/compat
has one."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from soundstage.config import Settings
from soundstage.voices.service import CatalogCounts
from tests.support.framework_venvs import framework_venv
from tests.support.processes import serve

REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"


@pytest.fixture(scope="session")
def pipecat_python() -> Path:
    """The virtualenv's python, the virtualenv made first where its stamp does not hold the
    requirements' hash (under a file lock, for pytest-xdist's workers)."""
    return framework_venv("pipecat", REQUIREMENTS)


@pytest.fixture(scope="module")
def live_url(
    settings: Settings, worker: subprocess.Popen[bytes], demo_catalog: CatalogCounts
) -> Iterator[str]:
    """The base URL of a live server for this module (as tests/compat's), its worker running,
    the demo voice catalog loaded: pipecat's services speak HTTP and WebSocket to it."""
    yield from serve(settings)
