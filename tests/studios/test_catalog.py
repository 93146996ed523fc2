"""The studio catalog for operators: `soundstage catalog import-studios FILE` (validated
with every problem named, all or nothing; a reload changes only what changed) and the demo
catalog `soundstage catalog load-demo` loads (deterministic, a few hundred studios)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.models import Room, Studio
from soundstage.studios.demo import DEMO_STUDIOS, demo_studios
from soundstage.studios.errors import CatalogInvalid
from soundstage.studios.importer import parse_catalog, upsert_studios
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer, studio_spec
from tests.support.processes import REPO_ROOT, settings_env
from tests.support.studios import days_ahead

pytestmark = pytest.mark.services


def soundstage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "soundstage.cli", *args],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def studio_json(**options: Any) -> dict[str, Any]:
    return studio_spec(**options).model_dump(mode="json")


def write(tmp_path: Path, studios: list[dict[str, Any]]) -> str:
    path = tmp_path / "studios.json"
    path.write_text(json.dumps({"studios": studios}))
    return str(path)


@pytest.fixture
def reader(db: Database) -> Customer:
    return create_customer(db)


def test_import_creates_replaces_and_leaves_alone(
    settings: Settings, client: TestClient, reader: Customer, tmp_path: Path
) -> None:
    env = settings_env(settings)
    first, second = studio_json(), studio_json(types=["foley"])
    done = soundstage(env, "catalog", "import-studios", write(tmp_path, [first, second]), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "studios_created": 2,
        "studios_updated": 0,
        "studios_unchanged": 0,
    }
    shown = client.get(f"/api/v1/studios/{second['id']}", headers=reader.auth()).json()
    assert (shown["name"], shown["types"]) == (second["name"], ["foley"])

    again = soundstage(env, "catalog", "import-studios", write(tmp_path, [first, second]))
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "studios: 0 created, 0 updated, 2 unchanged"

    # Rename the first, drop its second room, open it at night only.
    room_b = first["rooms"].pop()
    first["name"] = "Renamed Studio"
    first["opening_hours"] = [{"day": "friday", "open": "20:00", "close": "04:00"}]
    changed = soundstage(
        env, "catalog", "import-studios", write(tmp_path, [first, second]), "--json"
    )
    assert json.loads(changed.stdout)["studios_updated"] == 1
    shown = client.get(f"/api/v1/studios/{first['id']}", headers=reader.auth()).json()
    assert shown["name"] == "Renamed Studio"
    assert [room["id"] for room in shown["rooms"]] == [first["rooms"][0]["id"]]
    assert shown["room_count"] == 1
    assert shown["opening_hours"] == [
        {"day": "friday", "open": "20:00", "close": "04:00", "overnight": True}
    ]
    retired = client.post(
        f"/api/v1/studios/{first['id']}/book",
        headers=reader.auth(),
        json={
            "date": str(days_ahead(first["timezone"], 3)),
            "start_time": "10:00",
            "end_time": "12:00",
            "room_id": room_b["id"],
        },
    )
    assert assert_error(retired, 422, "room_not_in_studio")["param"] == "room_id"


def test_an_invalid_file_is_refused_whole_with_every_problem_named(
    settings: Settings, client: TestClient, reader: Customer, tmp_path: Path
) -> None:
    good = studio_json()
    bad_currency = studio_json()
    bad_currency["rooms"][0]["currency"] = "XXQ"
    overlapping = studio_json()
    overlapping["opening_hours"] = [
        {"day": "sunday", "open": "22:00", "close": "03:00"},
        {"day": "monday", "open": "02:00", "close": "10:00"},
    ]
    done = soundstage(
        settings_env(settings),
        "catalog",
        "import-studios",
        write(tmp_path, [good, bad_currency, overlapping]),
    )
    assert done.returncode == 1
    assert "The catalog has 2 problems." in done.stderr
    assert (
        f"studios[1].rooms[0].currency (studio {bad_currency['id']}): must be an ISO 4217 "
        "currency code" in done.stderr
    )
    assert (
        f"studios[2] (studio {overlapping['id']}): opening_hours: sunday 22:00-03:00 overlaps "
        "monday 02:00-10:00" in done.stderr
    )
    assert "Nothing was imported." in done.stderr
    # The valid studio of the file was not written either.
    missing = client.get(f"/api/v1/studios/{good['id']}", headers=reader.auth())
    assert_error(missing, 404, "studio_not_found")


def _with(change: dict[str, Any]) -> dict[str, Any]:
    studio = studio_json()
    for dotted, value in change.items():
        target: Any = studio
        *path, last = dotted.split(".")
        for part in path:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
    return studio


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"timezone": "Mars/Olympus"}, "timezone (studio"),
        ({"address.country": "XX"}, "address.country"),
        ({"address.city": "--"}, "address.city"),
        ({"types": ["recording", "recording"]}, "types: each type once"),
        ({"types": ["vocal"]}, "types[0]"),
        ({"types": []}, "types"),
        ({"rating": 4.2, "review_count": 0}, "rating is given exactly when"),
        ({"rating": 5.1}, "rating"),
        ({"rooms": []}, "rooms"),
        ({"rooms.0.booth_capacity": 0}, "rooms[0].booth_capacity"),
        ({"rooms.0.booth_capacity": 1001}, "rooms[0].booth_capacity"),
        ({"rooms.0.hourly_rate_cents": 0}, "rooms[0].hourly_rate_cents"),
        ({"rooms.0.min_booking_hours": 25}, "rooms[0].min_booking_hours"),
        ({"rooms.0.buffer_minutes": 20}, "must be a multiple of 15"),
        ({"rooms.0.buffer_minutes": 255}, "rooms[0].buffer_minutes"),
        ({"rooms.1.currency": "EUR"}, "every room of a studio has the same currency"),
        ({"rooms.1.id": "same", "rooms.0.id": "same"}, "room ids must be unique"),
        ({"opening_hours.0.open": "09:10"}, "on the quarter hour"),
        ({"opening_hours.0.open": "24:00"}, "opening_hours[0].open"),
        ({"opening_hours.0.close": "09:00"}, "open and close are equal"),
        ({"opening_hours.0.day": "funday"}, "opening_hours[0].day"),
        ({"photos": ["ftp://example.com/a.jpg"]}, "photos[0]"),
        ({"latitude": 91}, "latitude"),
        ({"rooms.0.currency": "ßp"}, "rooms[0].currency"),  # 'ßp'.upper() is SSP
        ({"address.country": "ß"}, "address.country"),  # 'ß'.upper() is SS
        ({"opening_hours.0.open": "0٩:00"}, "opening_hours[0].open"),
        ({"id": "has space"}, "studios[0].id"),
        ({"colour": "blue"}, "colour"),
        ({"closures": [{"date": "2027-01-01"}, {"date": "2027-01-01"}]}, "each date once"),
    ],
)
def test_validation_names_the_place_of_each_problem(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(CatalogInvalid) as caught:
        parse_catalog(json.dumps({"studios": [_with(change)]}))
    assert any(problem in line for line in caught.value.problems), caught.value.problems


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "file: Input should be a valid dictionary"),
        ('{"studios": []}', "studios: List should have at least 1 item"),
    ],
)
def test_a_file_that_is_no_catalog(raw: str, problem: str) -> None:
    with pytest.raises(CatalogInvalid) as caught:
        parse_catalog(raw)
    assert any(line.startswith(problem) for line in caught.value.problems), caught.value.problems


def test_ids_are_unique_in_a_file_and_rooms_never_change_studio(db: Database) -> None:
    one, two = studio_json(), studio_json()
    with pytest.raises(CatalogInvalid) as caught:
        parse_catalog(json.dumps({"studios": [one, one]}))
    assert caught.value.problems == [f"file: studio ids appear more than once: {one['id']}"]
    two["rooms"][0]["id"] = one["rooms"][0]["id"]
    with pytest.raises(CatalogInvalid) as caught:
        parse_catalog(json.dumps({"studios": [one, two]}))
    assert "room ids appear more than once" in caught.value.problems[0]

    with db.session() as session:
        upsert_studios(session, parse_catalog(json.dumps({"studios": [one]})))
    with pytest.raises(CatalogInvalid) as caught, db.session() as session:
        upsert_studios(session, parse_catalog(json.dumps({"studios": [two]})))
    assert caught.value.problems == [
        f"studios[0].rooms[0].id: room {one['rooms'][0]['id']} belongs to studio {one['id']}"
    ]
    with db.read_session() as session:
        assert session.get(Studio, two["id"]) is None


def test_the_demo_catalog_is_the_same_every_time() -> None:
    first, second = demo_studios(), demo_studios()
    assert len(first) == DEMO_STUDIOS
    assert [s.content_hash() for s in first] == [s.content_hash() for s in second]
    assert len({s.address.city for s in first}) >= 50
    assert len({s.address.country for s in first}) >= 20
    assert len({s.timezone for s in first}) >= 25
    assert {t for s in first for t in s.types} == {
        "recording", "mixing", "mastering", "podcast", "foley",
    }  # fmt: skip
    assert len({room.id for s in first for room in s.rooms}) == sum(len(s.rooms) for s in first)


def test_load_demo_loads_it_once(tmp_path: Path) -> None:
    """On a fresh database of its own: 300 studios created, then nothing changes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    env |= {
        "SOUNDSTAGE_DATA_DIR": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT)]),
    }
    first = soundstage(env, "catalog", "load-demo", "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["studios_created"] == DEMO_STUDIOS
    again = soundstage(env, "catalog", "load-demo")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().endswith(f"studios: 0 created, 0 updated, {DEMO_STUDIOS} unchanged")
    engine = create_engine(f"sqlite:///{tmp_path / 'soundstage.db'}")
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(Studio)) == DEMO_STUDIOS
        assert (conn.scalar(select(func.count()).select_from(Room)) or 0) >= DEMO_STUDIOS
    engine.dispose()
