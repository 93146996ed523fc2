"""The per-account storage quota (settings `storage.quota_bytes.*`): an upload past it is 413
`storage_quota_exceeded` and stores nothing; a job whose output would pass it fails with that
error, uncharged and keeping nothing; concurrent saves never pass it together."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings, StorageQuotaSettings, StorageSettings
from soundstage.core.db import Database
from soundstage.models.media import MediaPurpose
from soundstage.storage import service as storage
from soundstage.storage.errors import StorageQuotaExceeded
from tests.support.api import assert_error
from tests.support.audio import wav_bytes
from tests.support.daw import DAW
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.jobs import wait_for_job
from tests.support.processes import run_worker
from tests.support.stores import account_media_sizes

pytestmark = pytest.mark.services

QUOTA = 500_000  # bytes of live media per account in the sandbox, in this module
STORAGE = StorageSettings(quota_bytes=StorageQuotaSettings(sandbox=QUOTA))


@pytest.fixture(scope="module")
def quota_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"storage": STORAGE})


@pytest.fixture(scope="module")
def quota_client(quota_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(quota_settings), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def quota_worker(settings: Settings) -> Iterator[object]:
    yield from run_worker(settings, SOUNDSTAGE_STORAGE=STORAGE.model_dump_json())


def media_files(settings: Settings, customer: Customer) -> list[int]:
    """The sizes of the customer's stored media, in the media store (local or S3)."""
    return account_media_sizes(settings, customer.account_id)


def used(db: Database, customer: Customer) -> int:
    with db.read_session() as session:
        return storage.storage_used(session, principal_of(customer))


def upload(client: TestClient, customer: Customer, data: bytes, environment: str = "sandbox"):  # type: ignore[no-untyped-def]
    return client.post(
        "/api/v1/uploads",
        headers=customer.auth(environment),
        files={"file": ("clip.wav", data, "audio/wav")},
    )


def test_an_upload_past_the_quota_is_413_and_stores_nothing(
    quota_client: TestClient, quota_settings: Settings, db: Database
) -> None:
    customer = create_customer(db)
    first = wav_bytes(seconds=12.0)  # 384,044 bytes: inside the 500,000
    second = wav_bytes(seconds=4.0)  # 128,044 more: outside
    response = upload(quota_client, customer, first)
    assert response.status_code == 200, response.text
    assert used(db, customer) == len(first)
    error = assert_error(upload(quota_client, customer, second), 413, "storage_quota_exceeded")
    assert error["param"] == "file"
    assert "quota" in error["message"]
    assert used(db, customer) == len(first)
    assert media_files(quota_settings, customer) == [len(first)]
    # The rest of the quota still takes a smaller file; production has its own quota.
    rest = wav_bytes(seconds=3.5)
    assert len(first) + len(rest) <= QUOTA
    assert upload(quota_client, customer, rest).status_code == 200
    assert upload(quota_client, customer, second, "production").status_code == 200


def test_concurrent_saves_never_pass_the_quota_together(
    quota_settings: Settings, db: Database, tmp_path: Path
) -> None:
    """Each of the files fits alone, two do not: one conditional UPDATE each decides."""
    customer = create_customer(db)
    sources = []
    for index in range(4):
        path = tmp_path / f"clip-{index}.wav"
        path.write_bytes(wav_bytes(seconds=8.0))  # 256,044 bytes
        sources.append(path)
    barrier = threading.Barrier(len(sources))
    outcomes: list[str] = []

    def save(path: Path) -> None:
        barrier.wait()
        try:
            with db.session() as session:
                storage.save(
                    session,
                    quota_settings,
                    principal_of(customer),
                    path,
                    filename="clip.wav",
                    content_type="audio/wav",
                    duration_ms=8000,
                    purpose=MediaPurpose.UPLOAD,
                )
            outcomes.append("stored")
        except StorageQuotaExceeded:
            outcomes.append("refused")

    threads = [threading.Thread(target=save, args=(path,)) for path in sources]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused", "refused", "refused", "stored"]
    assert used(db, customer) == sources[0].stat().st_size
    assert len(media_files(quota_settings, customer)) == 1


def test_a_job_output_past_the_quota_fails_uncharged_and_keeps_nothing(
    quota_client: TestClient, quota_settings: Settings, db: Database, quota_worker: object
) -> None:
    """A DAW export of a 2 s upload: an OMF with linked 16-bit stems (about 180 kB) fits in
    what the upload leaves of the quota; an AAF with embedded 24-bit ones (about 1 MB) does
    not."""
    customer = create_customer(db, credits_each=10_000)
    stored = upload(quota_client, customer, wav_bytes(seconds=2.0))
    assert stored.status_code == 200, stored.text
    track = {"name": "Dialog", "audio_url": stored.json()["url"]}

    def export(**options: object) -> dict[str, Any]:
        response = quota_client.post(
            DAW, headers=customer.auth(), json={"tracks": [track], **options}
        )
        assert response.status_code == 200, response.text
        return wait_for_job(quota_client, customer, response.json()["job_id"])

    before = quota_client.get("/api/v1/credits", headers=customer.auth()).json()["balance"]
    failed = export(bit_depth=24, media="embedded")
    assert failed["status"] == "failed", failed
    assert failed["error"]["code"] == "storage_quota_exceeded"
    assert failed["credits_used"] == 0
    balance = quota_client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (before, 0)
    assert len(media_files(quota_settings, customer)) == 1  # the upload only
    assert used(db, customer) == len(wav_bytes(seconds=2.0))

    done = export(format="omf", bit_depth=16, sample_rate=44_100, media="linked")
    assert done["status"] == "completed", done["error"]
    assert done["credits_used"] > 0
    assert done["outputs_expire_at"] is not None
    assert len(media_files(quota_settings, customer)) == 2
