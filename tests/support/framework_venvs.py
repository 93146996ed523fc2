"""A voice-agent framework's own virtualenv, made from a pinned requirements file where its pins
are not the service's: `<project>/.venv-frameworks/NAME` (ignored by git), made with the
machine's python (`python -m venv`, then `pip install -r`) the first time, and again only when
the file's hash differs from the stamp in the venv. A file lock beside it keeps pytest-xdist's
workers from making it twice."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[2]
VENVS = PROJECT / ".venv-frameworks"
# A cold install downloads some tens of packages (a minute or a few); within pytest's limits.
INSTALL_TIMEOUT_S = 540
STAMP_NAME = ".requirements.sha256"


def _hash(requirements: Path) -> str:
    return hashlib.sha256(requirements.read_bytes()).hexdigest()


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _made(venv: Path, requirements: Path) -> bool:
    stamp = venv / STAMP_NAME
    return stamp.is_file() and stamp.read_text().strip() == _hash(requirements)


def _make(venv: Path, requirements: Path) -> None:
    """A fresh virtualenv with exactly the pinned packages; the stamp written last, so an
    interrupted install is made again next time."""
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = [str(venv_python(venv)), "-m", "pip", "install", "--quiet", "--no-input"]
    done = subprocess.run(
        [*install, "-r", str(requirements)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"pip install -r {requirements}:\n{done.stderr[-4000:]}"
    (venv / STAMP_NAME).write_text(_hash(requirements) + "\n")


def framework_venv(name: str, requirements: Path) -> Path:
    """The python of `.venv-frameworks/NAME`, made from `requirements` first where its stamp
    does not hold the file's hash."""
    VENVS.mkdir(parents=True, exist_ok=True)
    venv = VENVS / name
    with (VENVS / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _made(venv, requirements):
                _make(venv, requirements)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return venv_python(venv)


def run_script(
    python: Path, script: Path, case: str, live_url: str, key: str, timeout: float, **options: Any
) -> dict[str, Any]:
    """Run `script`'s `case` with a framework venv's `python` against the live server (only
    the base URL and the key given, options as `--name value`): the JSON of its last line."""
    command = [str(python), str(script), case, "--base-url", live_url, "--key", key]
    for name, value in options.items():
        command += [f"--{name.replace('_', '-')}", str(value)]
    env = {**os.environ, "PYTHONPATH": ""}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def main(requirements: list[str]) -> None:
    """`python -m tests.support.framework_venvs tests/frameworks/*/requirements.txt`: make
    each framework's virtualenv (named after the requirements' folder) ahead of the tests.
    `make test` runs it beside the linters, which leave a core idle, so that no test process
    waits for a cold install."""
    for path in requirements:
        file = Path(path).resolve()
        framework_venv(file.parent.name, file)


if __name__ == "__main__":
    main(sys.argv[1:])
