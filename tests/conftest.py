"""Shared fixtures: a migrated database (SQLite file, or PostgreSQL when
SOUNDSTAGE_TEST_DATABASE_URL is set), the real app over HTTP, and account factories.

Tests isolate themselves by creating their own accounts, so no test sees another's rows.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from soundstage.accounts import service as accounts
from soundstage.app import create_app
from soundstage.config import JobSettings, RateLimitSettings, Settings, WebhookSettings
from soundstage.core.db import Database
from soundstage.core.migrate import upgrade_database
from soundstage.credits import service as credits
from soundstage.voices.demo import load_demo_catalog
from soundstage.voices.service import CatalogCounts

WORKER_WEBHOOKS = WebhookSettings(retry_schedule_seconds=[0.3, 0.6], timeout_seconds=5)
GENEROUS_LIMITS = RateLimitSettings(
    sandbox="100000/minute", production="100000/minute", anonymous="100000/minute"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh, empty database migrated from nothing for this test session."""
    server = os.environ.get("SOUNDSTAGE_TEST_DATABASE_URL")
    if not server:
        path = tmp_path_factory.mktemp("db") / "soundstage.db"
        yield f"sqlite:///{path}"
        return
    name = f"soundstage_test_{secrets.token_hex(4)}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """SOUNDSTAGE_TEST_REDIS_URL, or a private redis-server started for this session."""
    configured = os.environ.get("SOUNDSTAGE_TEST_REDIS_URL")
    if configured:
        yield configured
        return
    binary = shutil.which("redis-server")
    assert binary, "redis-server is missing: `make test` installs it (apt package redis-server)"
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def wait_for_port(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture(scope="session")
def settings(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("data"),
        database_url=database_url,
        redis_url=os.environ.get("SOUNDSTAGE_TEST_REDIS_URL") or None,
        redis_namespace=f"soundstage-test-{secrets.token_hex(4)}",
        rate_limits=GENEROUS_LIMITS,
        jobs=JobSettings(
            lease_seconds=2,
            heartbeat_seconds=0.3,
            sweep_interval_seconds=0.5,
            requeue_after_seconds=5,
            worker_processes=2,
            plugins=["tests.jobs.plugin"],
        ),
    )
    upgrade_database(settings)
    return settings


def settings_env(settings: Settings) -> dict[str, str]:
    """The environment that gives a subprocess (server, worker, CLI) these settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    env.update(
        SOUNDSTAGE_DATA_DIR=str(settings.data_dir),
        SOUNDSTAGE_DATABASE_URL=settings.resolved_database_url,
        SOUNDSTAGE_REDIS_NAMESPACE=settings.redis_namespace,
        SOUNDSTAGE_JOBS=settings.jobs.model_dump_json(),
        SOUNDSTAGE_LOG_LEVEL="warning",
        # src first: a checkout other than the installed one (a git worktree) tests its own code.
        PYTHONPATH=os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT)]),
    )
    if settings.redis_url:
        env["SOUNDSTAGE_REDIS_URL"] = settings.redis_url
    return env


@pytest.fixture(scope="module")
def worker(settings: Settings) -> Iterator[subprocess.Popen[bytes]]:
    """A real `soundstage worker` (Huey consumer, 2 processes, sweeper) for one test module
    (its sweeper would otherwise act on other modules' rows). It may deliver webhooks to
    receivers on 127.0.0.1, on a short retry schedule."""
    yield from run_worker(settings)


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


@pytest.fixture(scope="session")
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings)
    yield database
    database.dispose()


@pytest.fixture(scope="session")
def demo_catalog(db: Database) -> CatalogCounts:
    """The demo voice catalog in the test database, loaded once through the service."""
    with db.session() as session:
        return load_demo_catalog(session)


@pytest.fixture(scope="session")
def app(settings: Settings) -> FastAPI:
    return create_app(settings)


@pytest.fixture(scope="session")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@dataclass
class Customer:
    account_id: str
    sandbox_key: str
    production_key: str
    sandbox_key_id: str
    production_key_id: str

    def auth(self, environment: str = "sandbox") -> dict[str, str]:
        key = self.sandbox_key if environment == "sandbox" else self.production_key
        return {"Authorization": f"Bearer {key}"}


def create_customer(db: Database, credits_each: int = 0) -> Customer:
    with db.session() as session:
        account = accounts.create_account(session, "Test customer")
        sandbox = accounts.create_key(session, account.id, "sandbox")
        production = accounts.create_key(session, account.id, "production")
        if credits_each:
            for environment in ("sandbox", "production"):
                credits.grant(session, account.id, environment, credits_each, "test grant")
    return Customer(
        account.id, sandbox.secret, production.secret, sandbox.key.id, production.key.id
    )


@pytest.fixture
def customer(db: Database) -> Customer:
    """A fresh account with a sandbox and a production key and 1,000 credits in each."""
    return create_customer(db, credits_each=1000)


@pytest.fixture
def local_media(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The API fetches inputs itself (asynchronous submissions fetch and measure theirs):
    from the test's file servers on 127.0.0.1."""
    monkeypatch.setattr(settings, "fetch_allow_hosts", ["127.0.0.1"])


@pytest.fixture
def other_customer(db: Database) -> Customer:
    return create_customer(db, credits_each=1000)


REPO_ROOT = Path(__file__).resolve().parents[1]
