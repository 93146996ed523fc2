"""pipecat's tests: its own virtualenv, made from requirements.txt beside this file at
`.venv-frameworks/pipecat` (its pins are not the service's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.framework_venvs import framework_venv

REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"


@pytest.fixture(scope="session")
def pipecat_python() -> Path:
    """The virtualenv's python, the virtualenv made first where its stamp does not hold the
    requirements' hash (under a file lock, for pytest-xdist's workers)."""
    return framework_venv("pipecat", REQUIREMENTS)
