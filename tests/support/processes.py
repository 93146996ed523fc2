"""Processes the tests start (a server, a worker, the CLI, redis-server): the repository
root, free ports, and the environment that gives a subprocess the test settings."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from soundstage.config import RateLimitSettings, Settings, WebhookSettings
from soundstage.engines.transcribers.models import whisper_base_dir
from tests.support import offline
from tests.support.tls import Certificate

REPO_ROOT = Path(__file__).resolve().parents[2]

WORKER_WEBHOOKS = WebhookSettings(retry_schedule_seconds=[0.3, 0.6], timeout_seconds=5)
GENEROUS_LIMITS = RateLimitSettings(
    sandbox="100000/minute",
    production="100000/minute",
    anonymous="100000/minute",
    media="100000/minute",
    previews="100000/minute",
    console="100000/minute",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def fresh_serve_env(root: Path, port: int) -> dict[str, str]:
    """The environment of `make serve` on a fresh machine, in `root`: this process's
    variables but any SOUNDSTAGE_* one, a SQLite database and data directory of its own,
    URLs on `port`, the checkout's code."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    env.update(
        SOUNDSTAGE_DATA_DIR=str(root / "data"),
        SOUNDSTAGE_DATABASE_URL=f"sqlite:///{root / 'soundstage.db'}",
        SOUNDSTAGE_PUBLIC_BASE_URL=f"http://127.0.0.1:{port}",
        SOUNDSTAGE_LOG_LEVEL="warning",
        PYTHONPATH=os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT), str(offline.SITE)]),
    )
    return env


# What `make serve` writes before it serves (the migrated database with the demo catalog, the
# data directory), made once per test process by the same commands and copied into each
# fresh root: migrate, load-demo and demo took 6.7 s of each module's set-up, on a quiet machine.
_MADE: dict[bool, Path] = {}


def _made(demo: bool) -> Path:
    """A root where `soundstage migrate` and `catalog load-demo` (and `demo`) have run."""
    if demo not in _MADE:
        root = Path(tempfile.mkdtemp(prefix="soundstage-made-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        env = fresh_serve_env(root, free_port())
        cli = [sys.executable, "-m", "soundstage.cli"]
        steps = [["migrate"], ["catalog", "load-demo"], *([["demo"]] if demo else [])]
        for step in steps:
            subprocess.run([*cli, *step], env=env, check=True, capture_output=True)
        whisper_base_dir(root / "data")  # as the first worker process would join it
        _MADE[demo] = root
    return _MADE[demo]


def _copy_made(root: Path, demo: bool) -> None:
    made = _made(demo)
    for path in made.glob("soundstage.db*"):
        shutil.copyfile(path, root / path.name)
    # The joined whisper-base model (145 MB) is only read: linked, not copied.
    shutil.copytree(
        made / "data",
        root / "data",
        ignore=shutil.ignore_patterns("models"),
        dirs_exist_ok=True,
    )
    shutil.copytree(made / "data" / "models", root / "data" / "models", copy_function=os.link)


@contextmanager
def fresh_serve(root: Path, env: dict[str, str], port: int, demo: bool = False) -> Iterator[None]:
    """`make serve` in `root` with `env` (`fresh_serve_env`'s): migrate, load the demo
    catalog (and with `demo`, `soundstage demo`: its key in data/demo-key.json), then
    `soundstage serve` with its embedded worker on `port`, until it answers; stopped as Ctrl-C
    stops it (SIGINT to its process group). What the first steps write is made once per test
    process and copied."""
    _copy_made(root, demo)
    cli = [sys.executable, "-m", "soundstage.cli"]
    server = subprocess.Popen(
        [*cli, "serve", "--port", str(port)], env=env, cwd=root, start_new_session=True
    )
    try:
        wait_for_port(port, timeout=120)
        yield
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def settings_env(settings: Settings) -> dict[str, str]:
    """The environment that gives a subprocess (server, worker, CLI) these settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    env.update(
        SOUNDSTAGE_DATA_DIR=str(settings.data_dir),
        SOUNDSTAGE_DATABASE_URL=settings.resolved_database_url,
        SOUNDSTAGE_REDIS_NAMESPACE=settings.redis_namespace,
        SOUNDSTAGE_JOBS=settings.jobs.model_dump_json(),
        SOUNDSTAGE_STT=settings.stt.model_dump_json(),
        SOUNDSTAGE_TTS=settings.tts.model_dump_json(),
        SOUNDSTAGE_LOG_LEVEL="warning",
        # src first: a checkout other than the installed one (a git worktree) tests its own code;
        # no connection to another machine (support/offline.py).
        PYTHONPATH=os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT), str(offline.SITE)]),
    )
    if settings.redis_url:
        env["SOUNDSTAGE_REDIS_URL"] = settings.redis_url
    if settings.secret_key:
        env["SOUNDSTAGE_SECRET_KEY"] = settings.secret_key
    media = settings.media
    if media.s3_endpoint:
        for name in ("s3_endpoint", "s3_bucket", "s3_region", "s3_access_key", "s3_secret_key"):
            value = getattr(media, name)
            if value is not None:
                env[f"SOUNDSTAGE_MEDIA__{name.upper()}"] = str(value)
    return env


def run_worker(settings: Settings, **extra_env: str) -> Iterator[subprocess.Popen[bytes]]:
    """The `worker` fixture's process, with more environment variables (a module's own
    worker settings) if given."""
    env = settings_env(settings)
    env["SOUNDSTAGE_FETCH_ALLOW_HOSTS"] = "127.0.0.1"
    env["SOUNDSTAGE_WEBHOOKS"] = WORKER_WEBHOOKS.model_dump_json()
    env.update(extra_env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "worker"], env=env, cwd=REPO_ROOT
    )
    yield proc
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()


class SharedWorker:
    """The `worker` fixture's process, kept running from one test module to the next while
    each asks for it, so that the models a worker loads are loaded once, not per module
    (stopped before a module that does not ask for it first, or runs a worker of its own:
    see tests/conftest.py)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._running: Iterator[subprocess.Popen[bytes]] | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def running(self) -> subprocess.Popen[bytes]:
        """The worker, started if it is not running (or was stopped by a test)."""
        if self._process is None or self._process.poll() is not None:
            self.stop()
            self._running = run_worker(self.settings)
            self._process = next(self._running)
        return self._process

    def stop(self) -> None:
        if self._running is not None:
            next(self._running, None)
        self._running = self._process = None


def stand_in_program(folder: Path, name: str, script: str) -> Path:
    """An executable shell script called name in folder, standing in for a broken or stuck
    external program (a failure the real one shows only now and then)."""
    program = folder / name
    program.write_text(f"#!/bin/sh\n{script}\n")
    program.chmod(0o755)
    return program


def serve(
    settings: Settings, certificate: Certificate | None = None, **extra_env: str
) -> Iterator[str]:
    """A real `soundstage serve --no-worker` on a free loopback port, with these settings (the
    `worker` fixture does the jobs), over TLS with `certificate`: yields its base URL
    (https:// then), stops it with SIGTERM."""
    port = free_port()
    env = settings_env(settings)
    env.update(extra_env)
    command = [sys.executable, "-m", "soundstage.cli", "serve", "--no-worker", "--port", str(port)]
    if certificate is not None:
        command += [
            "--ssl-certfile",
            str(certificate.cert_file),
            "--ssl-keyfile",
            str(certificate.key_file),
        ]
    server = subprocess.Popen(command, env=env, cwd=REPO_ROOT)
    try:
        wait_for_port(port, timeout=60)
        yield f"{'https' if certificate else 'http'}://127.0.0.1:{port}"
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()


class SharedServer:
    """A `serve` of the session's settings (over TLS with `certificate`), kept running from
    one test module to the next that asks for it: the compatible surfaces' and the
    frameworks' modules share one per test process, with its realtime slots and the models
    they loaded, instead of starting their own (about 6 s of CPU each, and the slots'
    models). It keeps no state a module could see beyond the database and data directory
    they all share; each test makes its own customers."""

    def __init__(self, settings: Settings, certificate: Certificate | None = None) -> None:
        self.settings = settings
        self.certificate = certificate
        self._running: Iterator[str] | None = None
        self._url: str | None = None

    def url(self) -> str:
        """The server's base URL, started if it is not running (or stopped answering)."""
        if self._url is None or not _answers(self._url):
            self.stop()
            self._running = serve(self.settings, self.certificate)
            self._url = next(self._running)
        return self._url

    def stop(self) -> None:
        if self._running is not None:
            next(self._running, None)
        self._running = self._url = None


def _answers(url: str) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", int(url.rsplit(":", 1)[1]))) == 0


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (read from /proc)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def group_members(pgid: int) -> list[int]:
    """The processes of process group `pgid` (read from /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            members.append(int(stat.parent.name))
    return members


def wait_until_gone(pids: list[int], timeout: float = 30, what: str = "a process") -> None:
    """Until none of `pids` runs any more; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        assert time.monotonic() < deadline, f"{what} outlived its parent"
        time.sleep(0.1)
