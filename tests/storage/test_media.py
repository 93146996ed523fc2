"""Media: signed URLs (24 h, tamper-proof), serving with Range, uploads, reading inputs."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.storage import service as storage
from soundstage.storage import signing
from soundstage.storage.errors import MediaUnreachable
from tests.support.api import assert_error
from tests.support.audio import wav_bytes
from tests.support.factories import Customer
from tests.support.storage import path_of, stored_media

pytestmark = pytest.mark.services


def test_signed_url_lifetime_is_24_hours(settings: Settings) -> None:
    issued = 1_800_000_000.0
    url, expires_at = signing.signed_url(settings, "med_x", "a.wav", now=issued)
    query = urlsplit(url).query
    assert expires_at.timestamp() == issued + 24 * 3600
    signing.verify(settings, "med_x", "a.wav", query, now=issued + 24 * 3600 - 1)
    with pytest.raises(signing.MediaUrlExpired):
        signing.verify(settings, "med_x", "a.wav", query, now=issued + 24 * 3600 + 1)


def test_any_changed_byte_is_refused(settings: Settings) -> None:
    url, _ = signing.signed_url(settings, "med_abc", "a.wav")
    query = urlsplit(url).query
    signing.verify(settings, "med_abc", "a.wav", query)
    for i in range(len(query)):
        changed = query[:i] + ("A" if query[i] != "A" else "B") + query[i + 1 :]
        with pytest.raises(signing.InvalidMediaSignature):
            signing.verify(settings, "med_abc", "a.wav", changed)
    # The last base64 character's two unused low bits: another spelling of the same bytes.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(query[-1])
    for sibling in {alphabet[(last & ~3) | low] for low in range(4)} - {query[-1]}:
        with pytest.raises(signing.InvalidMediaSignature):
            signing.verify(settings, "med_abc", "a.wav", query[:-1] + sibling)
    for media_id, filename in (("med_abd", "a.wav"), ("med_abc", "b.wav"), ("med_abc", "a.wa")):
        with pytest.raises(signing.InvalidMediaSignature):
            signing.verify(settings, media_id, filename, query)
    with pytest.raises(signing.InvalidMediaSignature):
        signing.verify(settings, "med_abc", "a.wav", query + "&x=1")


def test_served_with_type_length_and_ranges(
    client: TestClient, db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> None:
    media = stored_media(db, settings, customer, tmp_path)
    url, _ = storage.url_of(settings, media)
    whole = client.get(path_of(url))
    assert whole.status_code == 200
    assert whole.headers["content-type"] == "audio/wav"
    assert int(whole.headers["content-length"]) == media.size_bytes == len(whole.content)
    assert whole.headers["accept-ranges"] == "bytes"
    part = client.get(path_of(url), headers={"Range": "bytes=0-3"})
    assert part.status_code == 206
    assert part.content == b"RIFF"
    assert part.headers["content-range"] == f"bytes 0-3/{media.size_bytes}"


def test_tampered_or_expired_urls_are_403(
    client: TestClient, db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> None:
    media = stored_media(db, settings, customer, tmp_path)
    url = path_of(storage.url_of(settings, media)[0])
    # A character inside the signature (the last base64 character may carry unused bits).
    i = len(url) - 5
    tampered = url[:i] + ("x" if url[i] != "x" else "y") + url[i + 1 :]
    assert_error(client.get(tampered), 403, "invalid_signature")
    assert_error(client.get(url.replace("clip.wav", "clip.mp3")), 403, "invalid_signature")
    assert_error(client.get(url.split("?")[0]), 403, "invalid_signature")
    expired, _ = signing.signed_url(
        settings, media.id, media.filename, now=time.time() - 24 * 3600 - 5
    )
    assert_error(client.get(path_of(expired)), 403, "url_expired")


def test_media_object_is_the_owners_only(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    other_customer: Customer,
    tmp_path: Path,
) -> None:
    media = stored_media(db, settings, customer, tmp_path)
    mine = client.get(f"/api/v1/media/{media.id}", headers=customer.auth())
    assert mine.status_code == 200
    assert mine.json()["duration_ms"] == 1000
    assert client.get(path_of(mine.json()["url"])).content == (tmp_path / "clip.wav").read_bytes()
    assert_error(
        client.get(f"/api/v1/media/{media.id}", headers=other_customer.auth()),
        404,
        "media_not_found",
    )
    assert_error(
        client.get(f"/api/v1/media/{media.id}", headers=customer.auth("production")),
        404,
        "media_not_found",
    )


def test_upload_then_read_back_as_an_input(
    client: TestClient, db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> None:
    data = wav_bytes(1.5)
    response = client.post(
        "/api/v1/uploads",
        headers=customer.auth(),
        files={"file": ("take 1 (final).wav", data, "audio/wav")},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["object"] == "media"
    assert (body["purpose"], body["content_type"], body["size_bytes"], body["duration_ms"]) == (
        "upload",
        "audio/wav",
        len(data),
        1500,
    )
    assert body["filename"] == "take-1-final-.wav"
    with db.session() as session:
        got = storage.read_input(session, settings, body["url"], tmp_path / "in", param="audio_url")
    assert got.read_bytes() == data


def test_upload_of_a_text_file_is_422(client: TestClient, customer: Customer) -> None:
    response = client.post(
        "/api/v1/uploads",
        headers=customer.auth(),
        files={"file": ("notes.txt", b"not audio at all", "text/plain")},
    )
    error = assert_error(response, 422, "invalid_media")
    assert error["param"] == "file"


def test_upload_needs_a_file(client: TestClient, customer: Customer) -> None:
    response = client.post("/api/v1/uploads", headers=customer.auth(), data={"file": ""})
    error = assert_error(response, 422, "parameter_missing")
    assert error["param"] == "file"
    # A part the endpoint does not take is refused, as an unknown JSON field is.
    response = client.post("/api/v1/uploads", headers=customer.auth(), data={"other": "x"})
    assert assert_error(response, 422, "parameter_unknown")["param"] == "other"


def test_upload_over_the_cap_is_413(settings: Settings, customer: Customer) -> None:
    from soundstage.app import create_app

    small = settings.model_copy(
        update={"media": settings.media.model_copy(update={"upload_max_bytes": 1000})}
    )
    with TestClient(create_app(small)) as client:
        response = client.post(
            "/api/v1/uploads",
            headers=customer.auth(),
            files={"file": ("a.wav", wav_bytes(1.0), "audio/wav")},
        )
    assert_error(response, 413, "request_too_large")


def test_expired_own_url_as_input_is_422(
    db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> None:
    media = stored_media(db, settings, customer, tmp_path)
    expired, _ = signing.signed_url(settings, media.id, media.filename, now=time.time() - 25 * 3600)
    with db.session() as session, pytest.raises(MediaUnreachable) as raised:
        storage.read_input(session, settings, expired, tmp_path / "x", param="audio_url")
    assert (raised.value.code, raised.value.status, raised.value.param) == (
        "media_unreachable",
        422,
        "audio_url",
    )


def test_remote_inputs_go_through_the_safe_fetcher(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    import http.server
    import threading

    from soundstage.media.fetch import UrlNotAllowed

    payload = wav_bytes(0.5)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "audio/wav")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/voice.wav"
    try:
        with db.session() as session, pytest.raises(UrlNotAllowed) as refused:
            storage.read_input(session, settings, url, tmp_path / "a", param="audio_url")
        assert (refused.value.status, refused.value.param) == (422, "audio_url")
        allowed = settings.model_copy(update={"fetch_allow_hosts": ["127.0.0.1"]})
        with db.session() as session:
            got = storage.read_input(session, allowed, url, tmp_path / "b", param="audio_url")
        assert got.read_bytes() == payload
    finally:
        server.shutdown()
