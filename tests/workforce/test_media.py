"""Licensed media: listed with signed URLs and license terms only while a completed license
runs (a moved clock ends it), nothing for unlicensed creators; and the demo files behind the
URLs, rendered by a real worker and decoded."""

from __future__ import annotations

import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import travel
from soundstage.media.audio import decode
from tests.support.api import assert_error
from tests.support.factories import Customer, add_talent, profile
from tests.support.workforce import act, completed_license, request_license

pytestmark = pytest.mark.services

MEDIA = "/api/v1/workforce/media"
TWO_DEMOS = [
    {"title": "Warm read", "genre": "commercial", "voice_id": "voice_sarah",
     "script": "Fresh bread, every morning, just around the corner."},
    {"title": "Story", "genre": "audiobook", "voice_id": "voice_es_lucia", "language": "es-ES",
     "script": "Había una vez una casa junto al mar."},
]  # fmt: skip


def media(client: TestClient, buyer: Customer, query: str = "") -> list[dict[str, Any]]:
    response = client.get(f"{MEDIA}{query}", headers=buyer.auth())
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def test_media_appear_only_once_a_license_completes_and_go_when_it_expires(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    creator, unlicensed = add_talent(db, profile(demos=TWO_DEMOS), profile(demos=TWO_DEMOS))
    license_ = request_license(client, buyer, creator, usage_type="internet", duration_months=3)
    assert media(client, buyer) == []
    act(client, buyer, license_["id"], "accept")
    assert media(client, buyer) == []
    done = act(client, buyer, license_["id"], "complete").json()
    held = media(client, buyer)
    assert [m["title"] for m in held] == ["Warm read", "Story"]
    assert {m["creator_id"] for m in held} == {creator}
    for asset in held:
        assert asset["object"] == "licensed_media"
        assert asset["content_type"] == "audio/mpeg"
        assert "signature=" in asset["url"]
        assert asset["license"] == {
            "license_id": done["id"],
            "usage_type": "internet",
            "territory": "US",
            "duration_months": 3,
            "starts_at": done["starts_at"],
            "ends_at": done["ends_at"],
        }
    assert held[1]["language"] == "es-ES"
    assert media(client, buyer, f"?creator_id={unlicensed}") == []
    assert len(media(client, buyer, f"?license_id={done['id']}")) == 2
    term = datetime.fromisoformat(done["ends_at"]) - datetime.fromisoformat(done["starts_at"])
    with travel(term - timedelta(seconds=5)):
        assert len(media(client, buyer)) == 2
    with travel(term):
        assert media(client, buyer) == []
    with travel(term + timedelta(days=400)):
        assert media(client, buyer) == []


def test_cancelled_and_declined_licenses_grant_nothing(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    creator = add_talent(db, profile(demos=TWO_DEMOS))[0]
    cancelled = request_license(client, buyer, creator, usage_type="internet")
    act(client, buyer, cancelled["id"], "accept")
    act(client, buyer, cancelled["id"], "cancel")
    declined = request_license(client, buyer, creator, usage_type="internet")
    act(client, buyer, declined["id"], "decline")
    assert media(client, buyer) == []


def test_each_running_license_lists_its_own_media(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    first, second = add_talent(db, profile(demos=TWO_DEMOS[:1]), profile(demos=TWO_DEMOS))
    short = completed_license(client, buyer, first, duration_months=1)
    long = completed_license(client, buyer, second, duration_months=24)
    held = media(client, buyer)
    assert [m["license"]["license_id"] for m in held] == [long["id"], long["id"], short["id"]]
    page = client.get(f"{MEDIA}?limit=2", headers=buyer.auth()).json()
    assert page["has_more"] is True
    rest = media(client, buyer, f"?starting_after={page['data'][-1]['id']}")
    assert [m["id"] for m in page["data"] + rest] == [m["id"] for m in held]
    with travel(timedelta(days=40)):
        assert {m["creator_id"] for m in media(client, buyer)} == {second}


def fetch(client: TestClient, url: str, patience_seconds: float = 180) -> Any:
    """GET a signed URL as a client would: a 503 (a worker is still rendering; it may have a
    queue of other files first) is retried after its Retry-After."""
    parts = urlsplit(url)
    deadline = time.monotonic() + patience_seconds
    while True:
        response = client.get(f"{parts.path}?{parts.query}")
        if response.status_code != 503 or time.monotonic() > deadline:
            return response
        time.sleep(float(response.headers["Retry-After"]))


@pytest.mark.slow
def test_demo_urls_serve_the_rendered_mp3(
    client: TestClient,
    db: Database,
    buyer: Customer,
    settings: Settings,
    worker: subprocess.Popen[bytes],
    tmp_path: Path,
) -> None:
    creator = add_talent(db, profile(demos=TWO_DEMOS))[0]
    completed_license(client, buyer, creator)
    held = media(client, buyer)
    assert len(held) == len(TWO_DEMOS)  # the loop below must check something
    for asset in held:
        response = fetch(client, asset["url"])
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "audio/mpeg"
        path = tmp_path / f"{asset['demo_id']}.mp3"
        path.write_bytes(response.content)
        audio = decode(path)
        # A read of one sentence: a second or more of sound, not silence.
        assert 1000 <= audio.duration_ms <= 15_000
        assert float(abs(audio.samples).max()) > 0.05
    profile_demo = client.get(f"/api/v1/workforce/creators/{creator}", headers=buyer.auth())
    url = profile_demo.json()["demos"][0]["url"]
    assert fetch(client, url).content == fetch(client, media(client, buyer)[0]["url"]).content
    tampered = url.replace("signature=", "signature=x")
    assert_error(fetch(client, tampered), 403, "invalid_signature")
    renamed = url.replace("/warm-read.mp3", "/other.mp3")
    assert fetch(client, renamed).status_code == 403


def test_demo_urls_expire_and_unknown_demos_are_404(
    client: TestClient, db: Database, buyer: Customer, settings: Settings
) -> None:
    from soundstage.storage import signing

    creator = add_talent(db, profile())[0]
    demo = client.get(f"/api/v1/workforce/creators/{creator}", headers=buyer.auth()).json()[
        "demos"
    ][0]
    name = urlsplit(demo["url"]).path.rsplit("/", 1)[1]
    stale, _ = signing.signed_url(
        settings, demo["demo_id"], name, now=datetime.now().timestamp() - 25 * 3600
    )
    query = urlsplit(stale).query
    assert_error(client.get(f"/demos/{demo['demo_id']}/{name}?{query}"), 403, "url_expired")
    ghost, _ = signing.signed_url(settings, "demo_ghost", "ghost.mp3")
    assert_error(
        client.get(f"/demos/demo_ghost/ghost.mp3?{urlsplit(ghost).query}"), 404, "demo_not_found"
    )
