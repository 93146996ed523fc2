"""Retention: every media object expires (`expires_at`, 30 days by default, setting
`storage.retention_seconds`); from then on its URLs answer 410 `media_expired`, and the
worker's sweep deletes its bytes and frees its quota, once, however many sweepers run."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings, StorageSettings
from soundstage.core.db import Database
from soundstage.core.timeutil import travel
from soundstage.jobs.worker import WorkerEnvironment, sweep
from soundstage.models import MediaObject
from soundstage.storage import service as storage
from soundstage.storage.errors import MediaUnreachable
from tests.support.api import assert_error
from tests.support.audio import wav_bytes
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.storage import path_of

pytestmark = pytest.mark.services

# This module's own media expire after an hour, so that moving the clock past them leaves
# every other test's media (30 days) alone when the sweep runs.
HOUR = 3600


@pytest.fixture(scope="module")
def short_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"storage": StorageSettings(retention_seconds=HOUR)})


@pytest.fixture(scope="module")
def short_client(short_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(short_settings), raise_server_exceptions=False) as client:
        yield client


def upload(client: TestClient, customer: Customer) -> dict[str, str]:
    response = client.post(
        "/api/v1/uploads",
        headers=customer.auth(),
        files={"file": ("clip.wav", wav_bytes(), "audio/wav")},
    )
    assert response.status_code == 200, response.text
    media: dict[str, str] = response.json()
    return media


def test_uploads_expire_after_30_days_by_default(client: TestClient, db: Database) -> None:
    customer = create_customer(db)
    media = upload(client, customer)
    created = datetime.fromisoformat(media["created_at"])
    assert datetime.fromisoformat(media["expires_at"]) - created == timedelta(days=30)
    shown = client.get(f"/api/v1/media/{media['id']}", headers=customer.auth())
    assert shown.json()["expires_at"] == media["expires_at"]
    with travel(timedelta(days=30, seconds=-5)):
        assert (
            client.get(f"/api/v1/media/{media['id']}", headers=customer.auth()).status_code == 200
        )
        assert client.get(path_of(media["url"])).status_code == 200
    with travel(timedelta(days=30, seconds=1)):
        error = assert_error(
            client.get(f"/api/v1/media/{media['id']}", headers=customer.auth()),
            410,
            "media_expired",
        )
        assert error["param"] == "media_id"
        assert_error(client.get(path_of(media["url"])), 410, "media_expired")


def stored_size(settings: Settings, db: Database, media_id: str) -> int | None:
    """The size of the media's bytes in the store (local or S3); None once deleted."""
    with db.read_session() as session:
        media = session.get(MediaObject, media_id)
        assert media is not None
        return storage.stored_size(settings, media)


def test_the_sweep_deletes_expired_bytes_and_frees_the_quota(
    short_client: TestClient, short_settings: Settings, db: Database
) -> None:
    customer = create_customer(db)
    kept = upload(short_client, customer)
    with travel(timedelta(minutes=30)):
        fresh = upload(short_client, customer)  # expires half an hour after `kept`
    size = stored_size(short_settings, db, kept["id"])
    assert size is not None
    assert size > 0
    with db.read_session() as session:
        assert storage.storage_used(session, principal_of(customer)) == 2 * size

    with travel(timedelta(seconds=HOUR - 5)):
        sweep(WorkerEnvironment(short_settings, db, os.getpid()))
    assert stored_size(short_settings, db, kept["id"]) == size  # not yet expired: kept

    with travel(timedelta(seconds=HOUR + 1)):
        # Expired, not swept yet: the URL already answers 410 (never the bytes).
        assert_error(short_client.get(path_of(kept["url"])), 410, "media_expired")
        sweep(WorkerEnvironment(short_settings, db, os.getpid()))
        assert stored_size(short_settings, db, kept["id"]) is None
        assert stored_size(short_settings, db, fresh["id"]) is not None
        assert_error(short_client.get(path_of(kept["url"])), 410, "media_expired")
        assert_error(
            short_client.get(f"/api/v1/media/{kept['id']}", headers=customer.auth()),
            410,
            "media_expired",
        )
        with db.read_session() as session:
            assert storage.storage_used(session, principal_of(customer)) == size
            row = session.get(MediaObject, kept["id"])
            assert row is not None
            assert row.deleted_at is not None
        # An audio_url pointing at it is refused by name, not fetched.
        with (
            db.read_session() as session,
            pytest.raises(MediaUnreachable) as refused,
        ):
            storage.read_input(
                session, short_settings, kept["url"], Path("/nonexistent"), param="audio_url"
            )
        assert (refused.value.code, refused.value.param) == ("media_expired", "audio_url")


def test_several_sweepers_free_each_object_once(
    short_client: TestClient, short_settings: Settings, db: Database
) -> None:
    customer = create_customer(db)
    media = [upload(short_client, customer) for _ in range(3)]
    assert all(stored_size(short_settings, db, m["id"]) for m in media)
    counts: list[int] = []
    with travel(timedelta(seconds=HOUR + 1)):
        barrier = threading.Barrier(3)

        def run() -> None:
            barrier.wait()
            counts.append(storage.sweep_expired(db, short_settings))

        threads = [threading.Thread(target=run) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert storage.sweep_expired(db, short_settings) == 0  # nothing left: idempotent
    assert sum(counts) == 3
    assert all(stored_size(short_settings, db, m["id"]) is None for m in media)
    with db.read_session() as session:
        assert storage.storage_used(session, principal_of(customer)) == 0
