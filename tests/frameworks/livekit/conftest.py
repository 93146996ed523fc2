"""The LiveKit Agents plugins' tests: their own virtualenv, made from requirements.txt beside
this file at `.venv-frameworks/livekit` (their pins are not the service's), and a live
server as tests/compat has one."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from soundstage.config import Settings
from soundstage.voices.service import CatalogCounts
from tests.support.processes import serve

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "requirements.txt"
PROJECT = HERE.parents[2]
VENV = PROJECT / ".venv-frameworks" / "livekit"
# Holds the hash of the requirements the virtualenv was made from.
STAMP = VENV / ".requirements.sha256"
# A cold install downloads some 70 packages (a minute or two); within pytest's 600 s.
INSTALL_TIMEOUT_S = 480


def _requirements_hash() -> str:
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def _python() -> Path:
    return VENV / "bin" / "python"


def _made() -> bool:
    return STAMP.is_file() and STAMP.read_text().strip() == _requirements_hash()


def _make() -> None:
    """A fresh virtualenv with exactly the pinned packages; the stamp written last, so an
    interrupted install is made again next time."""
    if VENV.exists():
        shutil.rmtree(VENV)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    install = [str(_python()), "-m", "pip", "install", "--quiet", "--no-input"]
    done = subprocess.run(
        [*install, "-r", str(REQUIREMENTS)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"pip install -r {REQUIREMENTS}:\n{done.stderr[-4000:]}"
    STAMP.write_text(_requirements_hash() + "\n")


@pytest.fixture(scope="session")
def livekit_python() -> Path:
    """The virtualenv's python, the virtualenv made first where its stamp does not hold the
    requirements' hash. A file lock keeps pytest-xdist's workers from making it twice."""
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with (VENV.parent / "livekit.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _made():
                _make()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return _python()


@pytest.fixture(scope="module")
def live_url(
    settings: Settings, worker: subprocess.Popen[bytes], demo_catalog: CatalogCounts
) -> Iterator[str]:
    """The base URL of a live server for this module (as tests/compat's), its worker
    running, the demo voice catalog loaded: the plugins speak HTTP and WebSocket to it."""
    yield from serve(settings)
