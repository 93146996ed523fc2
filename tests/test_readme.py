"""The README runs: every `sh` block that calls `curl` is executed, in the README's order and in
one shell's state (a variable one block sets, the next uses), against a live `soundstage serve`
set up as `make serve` sets it up (a fresh SQLite database and data directory, migrations, the
demo catalog, the funded sandbox key of `soundstage demo`). Every request must answer 2xx, and
no job it shows may have failed."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import REPO_ROOT, free_port, wait_for_port

README = REPO_ROOT / "README.md"
_FENCE = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
_CURL = re.compile(r"(?<![\w-])curl ")
# Every curl call reports its status on stderr and fails the block on an HTTP error (its body is
# kept for the message); `set -a` exports every variable a block sets, for the next block.
_PRELUDE = """set -euo pipefail -a
curl() {
  local rc=0
  command curl --silent --show-error --fail-with-body \\
    --write-out '%{stderr}HTTP %{http_code} %{method} %{url_effective}\\n' "$@" || rc=$?
  echo
  return $rc
}
"""


@dataclass(frozen=True)
class Block:
    line: int
    heading: str
    code: str

    @property
    def curls(self) -> int:
        return len(_CURL.findall(self.code))


def readme_blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        code = match.group(1)
        if not _CURL.search(code):
            continue
        before = text[: match.start()]
        headings = re.findall(r"^#+ (.+)$", before, flags=re.MULTILINE)
        blocks.append(Block(before.count("\n") + 1, headings[-1] if headings else "", code))
    return blocks


BLOCKS = readme_blocks()


@dataclass
class LiveServer:
    port: int
    env: dict[str, str]
    shell: Path
    workdir: Path


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`make serve` on a fresh machine: migrate, load the demo catalog, serve with the embedded
    worker on SQLite (Huey on SQLite, no Redis), default limits."""
    root = tmp_path_factory.mktemp("readme")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    env.update(
        SOUNDSTAGE_DATA_DIR=str(root / "data"),
        SOUNDSTAGE_DATABASE_URL=f"sqlite:///{root / 'soundstage.db'}",
        SOUNDSTAGE_PUBLIC_BASE_URL=f"http://127.0.0.1:{port}",
        SOUNDSTAGE_LOG_LEVEL="warning",
        PYTHONPATH=os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT)]),
    )
    cli = [sys.executable, "-m", "soundstage.cli"]
    subprocess.run([*cli, "migrate"], env=env, check=True, capture_output=True)
    subprocess.run([*cli, "catalog", "load-demo"], env=env, check=True, capture_output=True)
    server = subprocess.Popen(
        [*cli, "serve", "--port", str(port)], env=env, cwd=root, start_new_session=True
    )
    try:
        wait_for_port(port, timeout=120)
        workdir = root / "shell"
        workdir.mkdir()
        # The README calls the CLI as `.venv/bin/soundstage` from the checkout: the same
        # command here, whichever interpreter runs the tests.
        shim = root / "bin"
        shim.mkdir()
        (shim / "soundstage").write_text(
            f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m soundstage.cli "$@"\n'
        )
        (shim / "soundstage").chmod(0o755)
        # And `.venv/bin/python` (the SDK examples) as this interpreter, its packages included.
        (shim / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
        (shim / "python").chmod(0o755)
        (workdir / ".venv").mkdir()
        (workdir / ".venv" / "bin").symlink_to(shim)
        yield LiveServer(port, env, root / "state.sh", workdir)
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def test_the_readme_has_runnable_examples_for_every_area() -> None:
    headings = {block.heading for block in BLOCKS}
    for area in (
        "Soundstage",
        "Voices and text-to-speech",
        "Speech-to-text",
        "Voice isolation and voice changer",
        "Dubbing",
        "Sound effects",
        "Music generation",
        "DAW export",
        "Studios",
        "Workforce: talent, campaigns, licensing",
        "Voice agents",
        "OpenAI-compatible API (`/v1`)",
        "ElevenLabs-compatible API (`/elevenlabs`)",
    ):
        assert area in headings, f"no runnable curl example under '## {area}'"
    for block in BLOCKS:
        assert "example.com/" not in block.code.replace("buyer@example.com", ""), (
            f"README line {block.line}: a placeholder URL that cannot work"
        )


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: f"line{b.line}")
def test_readme_example_runs(live: LiveServer, block: Block) -> None:
    code = block.code.replace("127.0.0.1:8000", f"127.0.0.1:{live.port}")
    state = f"source {shlex.quote(str(live.shell))}\n" if live.shell.exists() else ""
    script = f"{_PRELUDE}{state}{code}\nset +a; export -p > {shlex.quote(str(live.shell))}\n"
    done = subprocess.run(
        ["bash", "-c", script],
        env=live.env,
        cwd=live.workdir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    where = f"README line {block.line} (## {block.heading})"
    assert done.returncode == 0, f"{where} failed:\n{done.stdout}\n{done.stderr}"
    statuses = re.findall(r"^HTTP (\d{3}) ", done.stderr, flags=re.MULTILINE)
    assert len(statuses) >= block.curls, f"{where}: {block.curls} curl calls, {statuses} ran"
    assert all(s.startswith("2") for s in statuses), f"{where}: {statuses}\n{done.stdout}"
    for line in done.stdout.splitlines():
        try:
            answer = json.loads(line)
        except ValueError:
            continue
        if isinstance(answer, dict):
            assert answer.get("status") != "failed", f"{where}: {line}"
            assert answer.get("error") is None, f"{where}: {line}"
