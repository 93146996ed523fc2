"""Discover over HTTP on the demo catalog: every filter alone and combined (city and state
case- and accent-insensitive, state by name or code, type, minimum booth capacity), cursor
pagination that walks every result once in both directions, the bounds of each parameter,
one studio with its rooms, and the indexes the filtered queries use."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from soundstage.core.db import Database
from soundstage.core.pagination import PageParams
from soundstage.models import Studio
from soundstage.studios import repository
from soundstage.studios.catalog import STUDIO_TYPES
from soundstage.studios.importer import StudioCounts, upsert_studios
from soundstage.studios.places import place_key
from tests.support.api import assert_error
from tests.support.factories import ROOM_A, ROOM_B, Customer, MakeStudio, create_customer
from tests.support.studios import days_ahead

pytestmark = pytest.mark.services

Keep = Callable[[Studio], bool]
URL = "/api/v1/studios/discover"


@pytest.fixture(scope="module")
def reader(db: Database, demo_studios: StudioCounts) -> Customer:
    return create_customer(db)


def walk(
    client: TestClient, customer: Customer, query: str, limit: int = 100
) -> list[dict[str, Any]]:
    """Every page of a discover query, following starting_after."""
    found: list[dict[str, Any]] = []
    cursor = ""
    while True:
        response = client.get(f"{URL}?limit={limit}{query}{cursor}", headers=customer.auth())
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["object"] == "list"
        assert len(body["data"]) <= limit
        found += body["data"]
        if not body["has_more"]:
            return found
        assert len(body["data"]) == limit
        cursor = f"&starting_after={body['data'][-1]['id']}"


def expected(db: Database, keep: Keep) -> set[str]:
    with db.read_session() as session:
        rows = session.scalars(select(Studio).where(Studio.is_active.is_(True))).all()
    return {row.id for row in rows if keep(row)}


def assert_listed(found: list[dict[str, Any]], ids: set[str]) -> None:
    listed = [s["id"] for s in found]
    assert len(listed) == len(set(listed)), "a studio was listed twice"
    assert set(listed) == ids
    ratings = [s["rating"] if s["rating"] is not None else 0 for s in found]
    assert ratings == sorted(ratings, reverse=True), "not best rated first"


FILTERS: list[tuple[str, Keep]] = [
    ("&city=Montr%C3%A9al", lambda s: s.city == "Montréal"),
    ("&city=portland", lambda s: s.city == "Portland"),
    ("&state=Qu%C3%A9bec", lambda s: s.state == "Québec"),
    ("&state=qc", lambda s: s.state_code == "QC"),
    ("&state=California", lambda s: s.state == "California"),
    ("&state=CA", lambda s: s.state_code == "CA"),
    # A code two countries share: Louisiana and Lagos.
    ("&state=la", lambda s: s.state_code == "LA"),
    ("&state=Andalucia", lambda s: s.state == "Andalucía"),
    *[(f"&type={t}", lambda s, t=t: getattr(s, f"type_{t}")) for t in STUDIO_TYPES],
    ("&capacity=1", lambda s: True),
    ("&capacity=4", lambda s: s.max_booth_capacity >= 4),
    ("&capacity=15", lambda s: s.max_booth_capacity >= 15),
    ("&capacity=1000", lambda s: False),
]
COMBINED: list[tuple[str, Keep]] = [
    ("&city=portland&state=maine", lambda s: s.city == "Portland" and s.state == "Maine"),
    ("&city=berlin&type=recording", lambda s: s.city == "Berlin" and s.type_recording),
    ("&state=tx&capacity=3", lambda s: s.state_code == "TX" and s.max_booth_capacity >= 3),
    ("&type=mixing&capacity=6", lambda s: s.type_mixing and s.max_booth_capacity >= 6),
    ("&type=podcast&capacity=12", lambda s: s.type_podcast and s.max_booth_capacity >= 12),
    (
        "&city=SAO+PAULO&state=sp&type=recording&capacity=2",
        lambda s: s.city == "São Paulo" and s.type_recording and s.max_booth_capacity >= 2,
    ),
]


@pytest.mark.parametrize(("query", "keep"), FILTERS, ids=[q for q, _ in FILTERS])
def test_each_filter_alone(
    client: TestClient, db: Database, reader: Customer, query: str, keep: Keep
) -> None:
    assert_listed(walk(client, reader, query), expected(db, keep))


@pytest.mark.parametrize(("query", "keep"), COMBINED, ids=[q for q, _ in COMBINED])
def test_filters_combined(
    client: TestClient, db: Database, reader: Customer, query: str, keep: Keep
) -> None:
    ids = expected(db, keep)
    assert ids, "the demo catalog should hold studios for this combination"
    assert_listed(walk(client, reader, query), ids)


def test_the_demo_catalog_exercises_every_filter(db: Database, reader: Customer) -> None:
    for query, keep in FILTERS[:-1]:  # all but capacity=1000
        assert len(expected(db, keep)) >= 2, query


@pytest.mark.parametrize(
    "typed",
    ["S%C3%A3o%20Paulo", "SAO%20PAULO", "sao+paulo", "s%C3%A3o-paulo", "%20Sao%20%20Paulo%20"],
)
def test_city_ignores_case_accents_and_punctuation(
    client: TestClient, db: Database, reader: Customer, typed: str
) -> None:
    ids = expected(db, lambda s: s.city == "São Paulo")
    assert len(ids) >= 5
    assert_listed(walk(client, reader, f"&city={typed}"), ids)


def test_a_state_name_wins_over_another_states_code(
    client: TestClient, db: Database, reader: Customer, make_studio: MakeStudio
) -> None:
    # A region literally named "Qc" elsewhere: `state=qc` now means it, not Québec's code.
    spec = make_studio(state="Qc")
    assert [s["id"] for s in walk(client, reader, "&state=QC")] == [spec.id]
    assert place_key(spec.address.state) == "qc"


def test_pages_walk_every_result_once_forwards_and_backwards(
    client: TestClient, db: Database, reader: Customer
) -> None:
    everything = walk(client, reader, "")
    assert_listed(everything, expected(db, lambda s: True))
    small = walk(client, reader, "&type=podcast", limit=7)
    assert_listed(small, expected(db, lambda s: s.type_podcast))
    assert small == [s for s in everything if "podcast" in s["types"]]
    # Backwards from the end with ending_before gives the same studios in the same order.
    backwards: list[dict[str, Any]] = []
    cursor = small[-1]["id"]
    while True:
        body = client.get(
            f"{URL}?type=podcast&limit=7&ending_before={cursor}", headers=reader.auth()
        ).json()
        backwards = body["data"] + backwards
        if not body["has_more"]:
            break
        cursor = body["data"][0]["id"]
    assert [*backwards, small[-1]] == small


def test_a_studio_summary(client: TestClient, reader: Customer) -> None:
    body = client.get(f"{URL}?city=Kathmandu&limit=1", headers=reader.auth()).json()
    studio = body["data"][0]
    assert set(studio) == {
        "object", "id", "name", "types", "address", "coordinates", "timezone", "rating",
        "review_count", "max_booth_capacity", "room_count", "hourly_rate_from_cents",
        "currency", "cover_photo_url",
    }  # fmt: skip
    assert studio["object"] == "studio"
    assert studio["address"]["city"] == "Kathmandu"
    assert studio["address"]["country"] == "NP"
    assert studio["timezone"] == "Asia/Kathmandu"
    assert studio["currency"] == "NPR"
    assert set(studio["types"]) <= set(STUDIO_TYPES)


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("capacity=0", "capacity"),
        ("capacity=1001", "capacity"),
        ("capacity=two", "capacity"),
        ("capacity=%EF%BC%92", "capacity"),  # fullwidth 2
        ("capacity=%C2%B2", "capacity"),  # superscript 2
        ("type=vocal", "type"),
        ("city=", "city"),
        ("city=---", "city"),
        ("city=" + "x" * 101, "city"),
        ("state=", "state"),
        ("state=%21%21", "state"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("starting_after=a&ending_before=b", "ending_before"),
    ],
)
def test_bad_filters_are_422_naming_the_parameter(
    client: TestClient, reader: Customer, query: str, param: str
) -> None:
    response = client.get(f"{URL}?{query}", headers=reader.auth())
    assert assert_error(response, 422, response.json()["error"]["code"])["param"] == param


@pytest.mark.parametrize("query", ["capacity=1", "capacity=1000", "limit=1", "limit=100"])
def test_filter_bounds_inside_are_accepted(
    client: TestClient, reader: Customer, query: str
) -> None:
    assert client.get(f"{URL}?{query}", headers=reader.auth()).status_code == 200


def test_an_unknown_cursor_is_404(client: TestClient, reader: Customer) -> None:
    response = client.get(f"{URL}?starting_after=studio_nowhere", headers=reader.auth())
    assert assert_error(response, 404, "studio_not_found")["param"] == "starting_after"


def test_a_key_is_required(client: TestClient) -> None:
    assert_error(client.get(URL), 401, "missing_api_key")


def test_one_studio_with_rooms_hours_and_closures(
    client: TestClient, reader: Customer, make_studio: MakeStudio
) -> None:
    closed = days_ahead("Europe/Paris", 9)
    spec = make_studio(
        timezone="Europe/Paris",
        hours=[
            {"day": "friday", "open": "20:00", "close": "04:00"},
            {"day": "saturday", "open": "10:00", "close": "24:00"},
        ],
        closures=[
            {"date": str(closed), "reason": "Maintenance"},
            {"date": str(days_ahead("Europe/Paris", -3)), "reason": "Past"},
            {"date": str(days_ahead("Europe/Paris", 400)), "reason": "Too far"},
        ],
        amenities=["Wi-Fi", "Parking"],
        photos=["https://images.example/a.jpg", "https://images.example/b.jpg"],
    )
    body = client.get(f"/api/v1/studios/{spec.id}", headers=reader.auth()).json()
    assert body["id"] == spec.id
    assert body["cover_photo_url"] == "https://images.example/a.jpg"
    assert body["photos"] == ["https://images.example/a.jpg", "https://images.example/b.jpg"]
    assert body["amenities"] == ["Wi-Fi", "Parking"]
    assert [r["id"] for r in body["rooms"]] == [room.id for room in spec.rooms]
    assert body["rooms"][0] == {
        "object": "room",
        "id": spec.rooms[0].id,
        "name": "Studio A",
        "booth_capacity": 4,
        "hourly_rate_cents": 5000,
        "currency": "USD",
        "min_booking_hours": 2,
        "buffer_minutes": 30,
    }
    assert body["max_booth_capacity"] == 4
    assert body["hourly_rate_from_cents"] == 3333
    assert body["opening_hours"] == [
        {"day": "friday", "open": "20:00", "close": "04:00", "overnight": True},
        {"day": "saturday", "open": "10:00", "close": "24:00", "overnight": False},
    ]
    assert body["upcoming_closures"] == [{"date": str(closed), "reason": "Maintenance"}]


def test_an_unknown_studio_is_404(client: TestClient, reader: Customer) -> None:
    response = client.get("/api/v1/studios/studio_nowhere", headers=reader.auth())
    assert assert_error(response, 404, "studio_not_found")["param"] == "id"


def test_a_retired_studio_is_neither_listed_nor_shown(
    client: TestClient, db: Database, reader: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    query = f"&city={spec.address.city.replace(' ', '+')}"
    assert [s["id"] for s in walk(client, reader, query)] == [spec.id]
    with db.session() as session:
        upsert_studios(session, [spec.model_copy(update={"active": False})])
    assert walk(client, reader, query) == []
    assert_error(
        client.get(f"/api/v1/studios/{spec.id}", headers=reader.auth()), 404, "studio_not_found"
    )


QUERY_PLANS = [
    repository.StudioFilters(),
    repository.StudioFilters(city_key="berlin"),
    repository.StudioFilters(state_key="california"),
    repository.StudioFilters(state_key="ca"),
    *[repository.StudioFilters(type=t) for t in STUDIO_TYPES],
    repository.StudioFilters(capacity=2),
    repository.StudioFilters(capacity=19),
    repository.StudioFilters(city_key="berlin", type="mixing", capacity=3),
]


@pytest.mark.parametrize("filters", QUERY_PLANS, ids=str)
def test_discover_queries_read_through_indexes(
    db: Database, demo_studios: StudioCounts, filters: repository.StudioFilters
) -> None:
    """No filter makes the database read the studio table from end to end. On PostgreSQL
    sequential scans are priced out, so a plan without an index would still show one."""
    with db.session() as session:
        dialect = session.get_bind().dialect
        stmt = repository.discover_statement(session, filters, PageParams(limit=20))
        assert stmt is not None
        sql = str(stmt.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
        if dialect.name == "sqlite":
            plan = [row[-1] for row in session.execute(text(f"EXPLAIN QUERY PLAN {sql}"))]
            assert all("USING" in line for line in plan if " studio" in line), plan
            assert any("INDEX ix_studio_" in line for line in plan), plan
        else:
            session.execute(text("SET LOCAL enable_seqscan = off"))
            plan = [row[0] for row in session.execute(text(f"EXPLAIN {sql}"))]
            assert not any("Seq Scan on studio" in line for line in plan), plan
            assert any("ix_studio_" in line for line in plan), plan


def test_only_active_studios_decide_whether_a_state_is_a_name_or_a_code(
    client: TestClient, db: Database, reader: Customer, make_studio: MakeStudio
) -> None:
    code = "Z" + secrets.token_hex(3).upper()
    address = {"city": f"Testville {code}", "state": f"Province {code}", "country": "US"}
    active = make_studio(address={**address, "state_code": code})
    assert [s["id"] for s in walk(client, reader, f"&state={code}")] == [active.id]
    # A retired studio in a state *named* like that code must not turn the filter into a
    # name filter that no active studio matches.
    retired = make_studio(state=code)
    with db.session() as session:
        upsert_studios(session, [retired.model_copy(update={"active": False})])
    assert [s["id"] for s in walk(client, reader, f"&state={code}")] == [active.id]
    # Likewise a retired studio of that city is not listed.
    city = active.address.city.replace(" ", "+")
    assert [s["id"] for s in walk(client, reader, f"&city={city}&state={code}")] == [active.id]


def test_capacity_counts_only_the_rooms_a_studio_still_has(
    client: TestClient, db: Database, reader: Customer, make_studio: MakeStudio
) -> None:
    big = {**ROOM_A, "booth_capacity": 900}
    spec = make_studio(rooms=[ROOM_B, big])
    query = f"&city={spec.address.city.replace(' ', '+')}&capacity=900"
    assert [s["id"] for s in walk(client, reader, query)] == [spec.id]
    with db.session() as session:  # the big room is retired
        upsert_studios(session, [spec.model_copy(update={"rooms": spec.rooms[:1]})])
    assert walk(client, reader, query) == []
    shown = client.get(f"/api/v1/studios/{spec.id}", headers=reader.auth()).json()
    assert [room["id"] for room in shown["rooms"]] == [spec.rooms[0].id]
    assert shown["max_booth_capacity"] == ROOM_B["booth_capacity"]
