"""The S3 media store against a real S3 server (Ceph RGW in CI: scripts/ensure-services.sh,
`CI=true .ci/run`): objects in and out, byte ranges, multipart uploads above the threshold,
copies streamed to scratch in bounded memory; and the API end to end with media in S3, an API
node and a worker that share no directory (each its own data_dir): an upload and a TTS
output made by the worker are downloaded through their signed URLs, ranges included, and a
voice preview rendered by the worker is served by the API."""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import soundfile
from botocore.exceptions import ClientError, EndpointConnectionError
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import MediaSettings, Settings
from soundstage.core.db import Database
from soundstage.storage.backend import MediaObjectMissing, S3MediaStore, make_store
from soundstage.voices.service import CatalogCounts
from tests.support.audio import wav_bytes
from tests.support.factories import create_customer
from tests.support.processes import run_worker
from tests.support.storage import path_of
from tests.support.stores import s3_test_media, s3_test_store, stored_objects

MIB = 1024 * 1024

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(
        not os.environ.get("SOUNDSTAGE_TEST_S3_ENDPOINT"),
        reason="no S3 store: set SOUNDSTAGE_TEST_S3_ENDPOINT (and _ACCESS_KEY, _SECRET_KEY); "
        "scripts/ensure-services.sh starts Ceph RGW on 127.0.0.1:7480, CI=true .ci/run uses it",
    ),
]


@pytest.fixture(scope="module")
def small_parts() -> Iterator[MediaSettings]:
    """A fresh bucket, with S3's smallest parts (5 MiB) so that multipart is cheap to show."""
    media = s3_test_media()
    assert media is not None
    media = media.model_copy(
        update={"s3_multipart_threshold_bytes": 5 * MIB, "s3_multipart_chunk_bytes": 5 * MIB}
    )
    with s3_test_store(media):
        yield media


@pytest.fixture(scope="module")
def store(small_parts: MediaSettings) -> S3MediaStore:
    return S3MediaStore(small_parts)


def random_file(path: Path, size: int) -> str:
    """`size` random bytes at `path`, written a MiB at a time; their SHA-256."""
    digest = hashlib.sha256()
    with path.open("wb") as out:
        left = size
        while left:
            chunk = os.urandom(min(MIB, left))
            digest.update(chunk)
            out.write(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(MIB):
            digest.update(chunk)
    return digest.hexdigest()


def test_put_size_ranges_copy_and_delete(store: S3MediaStore, tmp_path: Path) -> None:
    data = os.urandom(300_000)
    source = tmp_path / "clip.bin"
    source.write_bytes(data)
    key = "sandbox/acc_x/med_1/clip.bin"
    assert store.put(key, source) == len(data)
    assert store.size(key) == len(data)
    assert store.local_file(key) is None  # nothing of it on this machine's disk
    assert b"".join(store.open_range(key)) == data
    assert b"".join(store.open_range(key, 1000, 1999)) == data[1000:2000]
    assert b"".join(store.open_range(key, len(data) - 10)) == data[-10:]
    copy = store.download_to(key, tmp_path / "copy.bin")
    assert copy.read_bytes() == data

    store.delete(key)
    assert store.size(key) is None
    with pytest.raises(MediaObjectMissing):
        store.open_range(key)
    with pytest.raises(MediaObjectMissing):
        store.download_to(key, tmp_path / "gone.bin")
    store.delete(key)  # deleting what is gone is no error


def test_objects_from_the_threshold_up_go_in_parts(
    store: S3MediaStore, small_parts: MediaSettings, tmp_path: Path
) -> None:
    """The threshold is 5 MiB: an object a byte under is one PUT, one of 12 MiB three parts
    (a multipart object's ETag ends with its count of parts)."""
    sizes = {"under": 5 * MIB - 1, "over": 12 * MIB}
    for name, size in sizes.items():
        digest = random_file(tmp_path / name, size)
        assert store.put(f"t/{name}", tmp_path / name) == size
        etag = store.client.head_object(Bucket=small_parts.s3_bucket, Key=f"t/{name}")["ETag"]
        assert etag.strip('"').endswith("-3") if name == "over" else "-" not in etag
        assert sha256_of(store.download_to(f"t/{name}", tmp_path / f"{name}.copy")) == digest
        assert store.size(f"t/{name}") == size


def test_copies_and_streams_never_hold_the_object(store: S3MediaStore, tmp_path: Path) -> None:
    """A 40 MiB object is copied to scratch (ranged GETs of 5 MiB, written as they come) and
    streamed (as a response is), each with a Python heap peak far under its size."""
    size = 40 * MIB
    digest = random_file(tmp_path / "long.bin", size)
    store.put("t/long", tmp_path / "long.bin")

    tracemalloc.start()
    try:
        copy = store.download_to("t/long", tmp_path / "long.copy")
        _, copy_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        streamed = hashlib.sha256()
        for chunk in store.open_range("t/long"):
            streamed.update(chunk)
        _, stream_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sha256_of(copy) == digest
    assert streamed.hexdigest() == digest
    # Bounded by the chunks in flight and the disk queue (about 6 MiB measured), not the size.
    assert copy_peak < 12 * MIB < size, copy_peak
    assert stream_peak < 2 * MIB, stream_peak


# The API end to end: an API node and a worker with media in S3 and nothing else shared.


@pytest.fixture(scope="module")
def s3_nodes(
    settings: Settings,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Settings, Settings]]:
    """(API node's settings, worker's settings): the same database, Redis queue and bucket,
    each its own data directory."""
    media = s3_test_media()
    assert media is not None
    with s3_test_store(media):
        api = settings.model_copy(
            update={
                "data_dir": tmp_path_factory.mktemp("api-node"),
                "media": media,
                "secret_key": secrets.token_urlsafe(32),
                "redis_url": redis_url,
                "redis_namespace": f"s3-nodes-{secrets.token_hex(4)}",
            }
        )
        worker = api.model_copy(update={"data_dir": tmp_path_factory.mktemp("worker-node")})
        yield api, worker


@pytest.fixture(scope="module")
def s3_client(s3_nodes: tuple[Settings, Settings]) -> Iterator[TestClient]:
    api, worker = s3_nodes
    with (
        TestClient(create_app(api), raise_server_exceptions=False) as client,
        # A worker of its own: the session's worker reads another queue.
        contextmanager(run_worker)(worker),
    ):
        yield client


def test_an_upload_lives_in_s3_and_its_url_serves_ranges(
    s3_client: TestClient, s3_nodes: tuple[Settings, Settings], db: Database
) -> None:
    api, _ = s3_nodes
    customer = create_customer(db)
    data = wav_bytes(seconds=2.0)
    response = s3_client.post(
        "/api/v1/uploads", headers=customer.auth(), files={"file": ("take.wav", data)}
    )
    assert response.status_code == 200, response.text
    media = response.json()
    assert list(stored_objects(api, f"sandbox/{customer.account_id}/").values()) == [len(data)]
    assert not (api.data_dir / "media").exists()  # nothing on the node's disk

    url = path_of(media["url"])
    whole = s3_client.get(url)
    assert whole.status_code == 200
    assert whole.content == data
    assert whole.headers["content-type"] == "audio/wav"
    assert whole.headers["accept-ranges"] == "bytes"
    first = s3_client.get(url, headers={"Range": "bytes=0-99"})
    assert first.status_code == 206
    assert first.content == data[:100]
    assert first.headers["content-range"] == f"bytes 0-99/{len(data)}"
    tail = s3_client.get(url, headers={"Range": "bytes=-10"})
    assert (tail.status_code, tail.content) == (206, data[-10:])
    past = s3_client.get(url, headers={"Range": f"bytes={len(data)}-"})
    assert past.status_code == 416
    assert past.headers["content-range"] == f"bytes */{len(data)}"
    # Still signed: a changed byte of the signature is refused before the store is asked.
    assert s3_client.get(url[:-1] + ("A" if url[-1] != "A" else "B")).status_code == 403


def test_a_tts_made_by_a_worker_node_is_served_by_the_api_node(
    s3_client: TestClient,
    s3_nodes: tuple[Settings, Settings],
    db: Database,
    demo_catalog: CatalogCounts,
) -> None:
    api, worker = s3_nodes
    customer = create_customer(db, credits_each=5000)
    response = s3_client.post(
        "/api/v1/speech/tts",
        headers=customer.auth(),
        json={"voice_id": "voice_kal", "text": "Stored in the bucket.", "format": "wav"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    audio = s3_client.get(body["output_url"].removeprefix(api.public_base_url))
    assert audio.status_code == 200
    samples, rate = soundfile.read(io.BytesIO(audio.content), dtype="float32")
    assert abs(len(samples) * 1000 / rate - body["duration_ms"]) <= 30
    header = s3_client.get(
        body["output_url"].removeprefix(api.public_base_url), headers={"Range": "bytes=0-3"}
    )
    assert (header.status_code, header.content) == (206, b"RIFF")
    # Neither node keeps media on its disk: the worker rendered in scratch, then S3.
    for node in (api, worker):
        assert not (node.data_dir / "media").exists()
    assert make_store(api).local_file("anything") is None


def test_a_preview_rendered_by_the_worker_node_is_served_by_the_api_node(
    s3_client: TestClient, s3_nodes: tuple[Settings, Settings], demo_catalog: CatalogCounts
) -> None:
    api, worker = s3_nodes
    response = s3_client.get("/previews/voice_joe.mp3")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "audio/mpeg"
    kept = stored_objects(api, "previews/voice_joe-")
    assert list(kept.values()) == [len(response.content)]
    ranged = s3_client.get("/previews/voice_joe.mp3", headers={"Range": "bytes=10-19"})
    assert (ranged.status_code, ranged.content) == (206, response.content[10:20])
    for node in (api, worker):
        assert not (node.data_dir / "previews").exists()
        assert not (node.data_dir / "media").exists()


def test_the_store_is_ready_when_its_bucket_answers(small_parts: MediaSettings) -> None:
    """/readyz's media_store check: a HEAD of the bucket, one try, short timeouts."""
    S3MediaStore(small_parts).check_ready(2.0)
    missing = small_parts.model_copy(update={"s3_bucket": f"absent-{secrets.token_hex(4)}"})
    with pytest.raises(ClientError, match=r"\(404\)"):
        S3MediaStore(missing).check_ready(2.0)
    unreachable = small_parts.model_copy(update={"s3_endpoint": "http://127.0.0.1:9"})
    with pytest.raises(EndpointConnectionError):
        S3MediaStore(unreachable).check_ready(1.0)
