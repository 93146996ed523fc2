"""Shared fixtures: a migrated database (SQLite file, or PostgreSQL when
SOUNDSTAGE_TEST_DATABASE_URL is set), media in the data directory (or, when
SOUNDSTAGE_TEST_S3_ENDPOINT is set, in a fresh bucket of that S3 store), the real app over
HTTP, a worker, and fresh customers.
The helpers tests call (factories, assertions, servers) live in `tests/support/`.

Tests isolate themselves by creating their own accounts, so no test sees another's rows.
"""

from __future__ import annotations

import faulthandler
import os
import secrets
import shutil
import signal
import subprocess
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from soundstage import app_tasks
from soundstage.app import create_app
from soundstage.config import JobSettings, MediaSettings, Settings, SttSettings, TtsSettings
from soundstage.core.db import Database
from soundstage.core.migrate import upgrade_database
from soundstage.realtime.threads import hold_to_share
from soundstage.voices.demo import load_demo_catalog
from soundstage.voices.service import CatalogCounts
from tests.support.factories import Customer, create_customer
from tests.support.offline import forbid_network
from tests.support.processes import (
    GENEROUS_LIMITS,
    SharedServer,
    SharedWorker,
    free_port,
    wait_for_port,
)
from tests.support.schedule import longest_first, measured
from tests.support.stores import s3_test_media, s3_test_store
from tests.support.tls import Certificate, issue


def pytest_configure(config: pytest.Config) -> None:
    """A test process that receives SIGINT prints every thread's stack before it stops (pytest
    then reports the run as interrupted, which says neither where nor why): once, in CI's
    services pass, a test process stopped so at 91%."""
    # A copy of stderr as it is now, before the tests' output capture takes file descriptor 2.
    faulthandler.register(signal.SIGINT, file=os.dup(2), all_threads=True, chain=True)
    # Nothing is downloaded at run time: an engine that tries fails here (support/offline.py).
    forbid_network()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules go to the test processes those on the shared worker first, then the others, each
    longest first (support/schedule.py), by their seconds in this pass (CI's services pass runs
    other tests of them, against other stores)."""
    on_services = bool(os.environ.get("SOUNDSTAGE_TEST_DATABASE_URL"))
    longest_first(items, measured("services" if on_services else "sqlite"))


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


@pytest.fixture(scope="session")
def s3_media() -> Iterator[MediaSettings | None]:
    """Media settings for a fresh bucket of the S3 store at SOUNDSTAGE_TEST_S3_ENDPOINT (with
    SOUNDSTAGE_TEST_S3_ACCESS_KEY / _SECRET_KEY / _REGION), emptied and removed at the end of
    the session; None when no S3 store is configured."""
    media = s3_test_media()
    if media is None:
        yield None
        return
    with s3_test_store(media):
        yield media


@pytest.fixture(scope="session")
def settings(
    database_url: str, s3_media: MediaSettings | None, tmp_path_factory: pytest.TempPathFactory
) -> Settings:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("data"),
        # Media in S3 are served by every node: the URL secret is shared, not the data dir's.
        media=s3_media or MediaSettings(),
        secret_key=secrets.token_urlsafe(32) if s3_media else None,
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
            plugins=["tests.support.jobs_plugin"],
            # Workers start by the dozen here: each model loads on the first job needing it
            # (tests/jobs/test_preload.py starts a worker that preloads).
            preload_models=False,
        ),
        # Sized as docs/scaling-out.md sizes a machine (threads x processes = cores): 2 test
        # processes, each with a worker of 2 processes, on CI's 2 cores, so each model runs one
        # thread. With a thread per core each, a whisper-base decode took 20% more CPU time
        # for its 17% less wall time on an idle machine, and on a busy one only the cost is left.
        stt=SttSettings(cpu_threads=1),
        tts=TtsSettings(cpu_threads=1),
    )
    # numpy's and torch's pools too, here and in every process started from here (the
    # variables are inherited: support/processes.settings_env).
    hold_to_share(settings)
    upgrade_database(settings)
    # What every process that touches jobs does at startup (create_app does it too).
    app_tasks.install()
    return settings


@pytest.fixture(scope="session")
def shared_worker(settings: Settings) -> Iterator[SharedWorker]:
    holder = SharedWorker(settings)
    yield holder
    holder.stop()


@pytest.fixture(scope="module")
def worker(shared_worker: SharedWorker) -> subprocess.Popen[bytes]:
    """A real `soundstage worker` (Huey consumer, 2 processes, sweeper). It may deliver
    webhooks to receivers on 127.0.0.1, on a short retry schedule. One test module after
    another in a test process share it while each asks for it from its first test (its
    processes load each model once); before any other module it is stopped
    (`_worker_only_where_asked`), so a module runs with no worker, or its own, as it did
    with one worker per module."""
    return shared_worker.running()


@pytest.fixture(scope="module", autouse=True)
def _worker_only_where_asked(request: pytest.FixtureRequest, shared_worker: SharedWorker) -> None:
    """Stop the shared worker before a module whose first test does not ask for it, or that
    defines a `worker` of its own: no jobs of its run before it asks, none on a worker it
    does not know, and no sweeper acts on its rows unasked."""
    first = next(
        (
            item
            for item in request.session.items
            if isinstance(item, pytest.Function) and item.module is request.module
        ),
        None,
    )
    own = callable(getattr(request.module, "worker", None))
    if first is None or "worker" not in first.fixturenames or own:
        shared_worker.stop()


@pytest.fixture(scope="session")
def shared_server(settings: Settings) -> Iterator[SharedServer]:
    """The live server the compatible surfaces' and the frameworks' modules share
    (`live_url` in tests/compat and tests/frameworks)."""
    holder = SharedServer(settings)
    yield holder
    holder.stop()


@pytest.fixture(scope="session")
def shared_tls_server(settings: Settings, certificate: Certificate) -> Iterator[SharedServer]:
    """As `shared_server`, over TLS with the session's test certificate."""
    holder = SharedServer(settings, certificate)
    yield holder
    holder.stop()


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A server certificate for 127.0.0.1 from a throwaway authority (for wss:// clients)."""
    return issue(tmp_path_factory.mktemp("tls"))


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
