"""The paths that take no key have buckets of their own per client address: a valid signed
media URL, a voice preview and the console answer once the anonymous bucket is spent (a
scanner's 401s never silence a listener's player), a tampered signed URL spends the anonymous
bucket, and each public bucket bounds its own flood."""

from __future__ import annotations

import secrets
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.storage import signing
from soundstage.voices.service import CatalogCounts
from tests.support.api import Answer, assert_error
from tests.support.audio import wav_bytes
from tests.support.factories import Customer, create_customer
from tests.support.processes import GENEROUS_LIMITS
from tests.support.storage import path_of

pytestmark = pytest.mark.services

FORGED = {"Authorization": "Bearer sk_sandbox_" + "x" * 40}


@contextmanager
def limited_client(settings: Settings, **limits: str) -> Iterator[TestClient]:
    """The app with these rate limits, seen from a client address of its own (with Redis the
    buckets outlive the app: another test's address would share them)."""
    small = settings.model_copy(update={"rate_limits": GENEROUS_LIMITS.model_copy(update=limits)})
    address = f"client-{secrets.token_hex(6)}"
    with TestClient(create_app(small), client=(address, 50000)) as client:
        yield client


def upload(client: TestClient, customer: Customer) -> dict[str, str]:
    """A short clip the customer uploads (spending the account's bucket, not a public one)."""
    uploaded = client.post(
        "/api/v1/uploads",
        headers=customer.auth(),
        files={"file": ("clip.wav", wav_bytes(seconds=0.2))},
    )
    assert uploaded.status_code == 200, uploaded.text
    body: dict[str, str] = uploaded.json()
    return body


def tampered(url: str) -> str:
    return url[:-1] + ("A" if url[-1] != "A" else "B")


def policy_of(response: Answer) -> str:
    return response.headers["RateLimit-Policy"].split(";")[0].strip('"')


def test_public_paths_answer_once_the_anonymous_bucket_is_spent(
    settings: Settings,
    db: Database,
    demo_catalog: CatalogCounts,
    worker: subprocess.Popen[bytes],
) -> None:
    customer = create_customer(db)
    with limited_client(settings, anonymous="3/hour") as client:
        uploaded = upload(client, customer)
        media = path_of(uploaded["url"])
        day_ago = time.time() - 86_400
        expired = path_of(
            signing.signed_url(settings, uploaded["id"], uploaded["filename"], now=day_ago)[0]
        )
        assert_error(client.get(expired), 403, "url_expired")
        # Before: a tampered URL is refused as such, and spends the anonymous bucket.
        assert_error(client.get(tampered(media)), 403, "invalid_signature")
        statuses = [client.get("/api/v1/credits", headers=FORGED).status_code for _ in range(2)]
        assert statuses == [401, 429]
        # The anonymous bucket is spent: a tampered URL (and an expired one) counts there.
        refused = client.get(tampered(media))
        assert_error(refused, 429, "rate_limited")
        assert policy_of(refused) == "anonymous"
        late = client.get(expired)
        assert (late.status_code, policy_of(late)) == (429, "anonymous")

        played = client.get(media)
        assert played.status_code == 200, played.text
        assert played.content == wav_bytes(seconds=0.2)
        assert policy_of(played) == "media"
        preview = client.get("/previews/voice_joe.mp3")
        assert preview.status_code == 200, preview.text
        assert preview.headers["content-type"] == "audio/mpeg"
        assert policy_of(preview) == "previews"
        console = client.get("/console/")
        assert console.status_code == 200, console.text
        assert policy_of(console) == "console"
        # The anonymous bucket is still spent for everything else.
        assert client.get("/openapi.json").status_code == 429


def test_signed_media_have_a_bounded_bucket_of_their_own(settings: Settings, db: Database) -> None:
    customer = create_customer(db)
    with limited_client(settings, media="3/hour", anonymous="2/hour") as client:
        media = path_of(upload(client, customer)["url"])
        ranged = {"Range": "bytes=0-99"}
        statuses = [client.get(media, headers=ranged).status_code for _ in range(3)]
        assert statuses == [206] * 3  # the bound: three inside
        flood = client.get(media, headers=ranged)  # one outside
        error = assert_error(flood, 429, "rate_limited")
        assert error["message"].startswith(
            "Too many requests: 3 per 3600 s for signed media URLs from this address."
        )
        assert policy_of(flood) == "media"
        assert 0 < int(flood.headers["Retry-After"]) <= 3600
        # Other buckets are untouched: the anonymous one, and the account's.
        assert client.get("/api/v1/credits", headers=FORGED).status_code == 401
        assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200
    # Another address has its own media bucket.
    with limited_client(settings, media="3/hour") as elsewhere:
        assert elsewhere.get(media, headers=ranged).status_code == 206
