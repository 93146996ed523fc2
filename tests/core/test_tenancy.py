"""Tenancy in one place: every customer table (a mapped class with `account_id` and
`environment`) is filtered for its owner by `core.tenancy`, and nowhere else.

Three proofs: the source compares no owner column outside `core/tenancy.py` (an AST scan, with
a short allow-list of statements that are not an owner's); every customer table is filtered by
the helper or named below as reached only through an owned row; and, over HTTP, every route
that names a customer object by id (taken from the app's own OpenAPI document, so a new route
is covered or must be classified) answers 404 to another account and to the other environment,
and no list shows them another's objects.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select

import soundstage
import soundstage.models  # every table mapped
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.ids import new_id
from soundstage.core.principal import Principal
from soundstage.core.tenancy import (
    owned,
    owned_by_parameters,
    owner_parameters,
    select_owned,
    update_owned,
)
from soundstage.jobs import service as jobs
from soundstage.models import CreditBalance, CreditTransaction, WebhookEndpoint
from soundstage.models.base import Base
from soundstage.voices.service import CatalogCounts
from soundstage.webhooks import service as webhooks
from tests.support.api import list_operations
from tests.support.audio import wav_bytes
from tests.support.factories import Customer, create_customer, verify_buyer
from tests.support.jobs import stored

pytestmark = pytest.mark.services

SOURCE = Path(soundstage.__file__).parent
HELPER = SOURCE / "core" / "tenancy.py"
OWNER_COLUMNS = frozenset({"account_id", "environment"})
HELPER_FUNCTIONS = frozenset(
    {"owned", "owned_by_parameters", "select_owned", "select_owned_by_parameters", "update_owned"}
)

CUSTOMER_TABLES = {
    mapper.class_.__name__
    for mapper in Base.registry.mappers
    if set(mapper.columns.keys()) >= OWNER_COLUMNS
}

# Statements that compare an owner column and are not an owner's filter: (file, function).
ALLOWED = {
    ("workforce/licensing/repository.py", "addressed_query"): (
        "the talent side: licenses addressed to the creators an account speaks for "
        "(Creator.account_id) in its key's environment; the license's owner is the buyer"
    ),
    ("jobs/repository.py", "_claim_statements"): (
        "the workers serve every tenant; they group waiting and running jobs by owner only to "
        "take turns between owners and cap each owner's running jobs"
    ),
    ("webhooks/repository.py", "due_endpoints"): (
        "the delivery loop serves every tenant; it reads each due delivery's account only to "
        "cap one account's share"
    ),
}

# Customer tables that no statement filters by owner: always reached through an owned row.
REACHED_THROUGH_OWNED_ROW = {
    "CreditEntry": "read by the ids of owned transactions (credits.repository.entries_of)",
    "CreditReservation": "by the id an owned job or a worker holds",
    "RealtimeToken": "found by its hash: using the token is what names the owner",
    "WebhookDeliveryAttempt": "by the ids of owned deliveries (webhooks.repository.attempts_of)",
}


def modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SOURCE.rglob("*.py")):
        if path != HELPER:
            yield path.relative_to(SOURCE).as_posix(), ast.parse(path.read_text(), str(path))


def local_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> customer table, through `import … as …`."""
    names = {name: name for name in CUSTOMER_TABLES}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in CUSTOMER_TABLES and alias.asname:
                    names[alias.asname] = alias.name
    return names


def table_of(node: ast.expr, names: dict[str, str]) -> str | None:
    """The customer table `node` names (`Job`, `models.Job`), if any."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return names.get(name) if isinstance(name, str) else None


class Scan(ast.NodeVisitor):
    """Hand-written owner filters (`Job.account_id`, `filter_by(environment=…)`) and the
    tables passed to the helper, each with the function it sits in."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self.function = "<module>"
        self.by_hand: list[tuple[str, str]] = []
        self.through_helper: set[str] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815  (the visitor's name)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        table = table_of(node.value, self.names)
        if node.attr in OWNER_COLUMNS and table is not None:
            self.by_hand.append((self.function, f"{table}.{node.attr}"))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        called = node.func.id if isinstance(node.func, ast.Name) else None
        called = node.func.attr if isinstance(node.func, ast.Attribute) else called
        if called in HELPER_FUNCTIONS and node.args:
            table = table_of(node.args[0], self.names)
            if table is not None:
                self.through_helper.add(table)
        if called == "filter_by" and OWNER_COLUMNS & {k.arg for k in node.keywords}:
            self.by_hand.append((self.function, "filter_by"))
        self.generic_visit(node)


def scan() -> tuple[dict[tuple[str, str], list[str]], set[str]]:
    by_hand: dict[tuple[str, str], list[str]] = {}
    through_helper: set[str] = set()
    for where, tree in modules():
        visitor = Scan(local_names(tree))
        visitor.visit(tree)
        for function, what in visitor.by_hand:
            by_hand.setdefault((where, function), []).append(what)
        through_helper |= visitor.through_helper
    return by_hand, through_helper


def test_the_customer_tables_are_the_ones_we_know() -> None:
    assert len(CUSTOMER_TABLES) >= 18
    assert {"Job", "MediaObject", "CreditBalance", "StorageUsage", "Agent"} <= CUSTOMER_TABLES
    assert "RoomOccupancy" not in CUSTOMER_TABLES  # a room is taken whoever booked it


def test_no_owner_filter_is_written_by_hand() -> None:
    by_hand, _ = scan()
    outside = {place: what for place, what in by_hand.items() if place not in ALLOWED}
    assert outside == {}, "filter on the owner with core.tenancy.owned / select_owned"
    assert set(ALLOWED) <= set(by_hand), "an allow-list entry no longer needed: remove it"


def test_every_customer_table_goes_through_the_helper() -> None:
    _, through_helper = scan()
    assert through_helper <= CUSTOMER_TABLES
    assert not through_helper & set(REACHED_THROUGH_OWNED_ROW), "listed but filtered by owner"
    unaccounted = CUSTOMER_TABLES - through_helper - set(REACHED_THROUGH_OWNED_ROW)
    assert unaccounted == set(), "filter these through core.tenancy or say how they are reached"


def test_the_helper_is_the_two_equalities_for_every_statement() -> None:
    pair = ("acct_1", "sandbox")
    principal = Principal("acct_1", "sandbox", "key_1")
    expected = "credit_balance.account_id = :account_id_1 AND credit_balance.environment = "
    for owner in (pair, principal, CreditBalance(account_id="acct_1", environment="sandbox")):
        assert str(owned(CreditBalance, owner)).startswith(expected)
    assert str(select_owned(CreditBalance, pair)).endswith(f"WHERE {expected}:environment_1")
    update = update_owned(CreditBalance, pair).values(available=0)
    assert str(update).endswith(f"WHERE {expected}:environment_1")
    assert str(delete(CreditBalance).where(owned(CreditBalance, pair))).endswith(
        f"WHERE {expected}:environment_1"
    )
    # Built once with the owner as parameters (owner_parameters gives them): the same two.
    assert str(owned_by_parameters(CreditBalance)) == (
        "credit_balance.account_id = :owner_account_id "
        "AND credit_balance.environment = :owner_environment"
    )
    assert owner_parameters(principal) == {
        "owner_account_id": "acct_1",
        "owner_environment": "sandbox",
    }


def test_the_helper_keeps_to_the_owner_in_the_database(db: Database) -> None:
    mine, other = create_customer(db, credits_each=100), create_customer(db, credits_each=100)
    with db.session() as session:
        me = Principal(mine.account_id, "sandbox", mine.sandbox_key_id)
        changed = session.execute(
            update_owned(CreditBalance, me)
            .values(available=CreditBalance.available + 1)
            .execution_options(synchronize_session=False)
        )
        assert changed.rowcount == 1  # type: ignore[attr-defined]
        rows = session.scalars(select_owned(CreditTransaction, me)).all()
        assert rows
        assert {(r.account_id, r.environment) for r in rows} == {(mine.account_id, "sandbox")}
        count = select(func.count()).select_from(CreditTransaction)
        assert session.scalar(count.where(owned(CreditTransaction, rows[0]))) == len(rows)
    with db.read_session() as session:
        balances = {
            (b.account_id, b.environment): b.available
            for b in session.scalars(
                select(CreditBalance).where(
                    CreditBalance.account_id.in_([mine.account_id, other.account_id])
                )
            )
        }
    assert balances == {
        (mine.account_id, "sandbox"): 101,
        (mine.account_id, "production"): 100,
        (other.account_id, "sandbox"): 100,
        (other.account_id, "production"): 100,
    }


# --- over HTTP -------------------------------------------------------------------------------

# Path parameters that name something not owned by a customer (a shared catalog).
PUBLIC_PARAMETERS = {"voice_id", "id", "creator_id"}
# Owned objects whose isolation, writes included, is proved by the named test.
PROVED_ELSEWHERE = {
    "booking_id": "tests/studios/test_bookings.py::test_another_accounts_booking_is_404",
    "campaign_id": "tests/workforce/test_isolation.py::test_nobody_else_sees_or_touches_them",
    "history_item_id": "tests/history/test_history.py::test_another_owner_gets_404",
    "license_id": "tests/workforce/test_isolation.py::test_nobody_else_sees_or_touches_them",
}


# Bodies of writes by id that need one: valid, so that only the owner check can refuse them.
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/api/v1/pronunciation-dictionaries/{dictionary_id}/rules"): {
        "rules": [{"type": "alias", "string_to_replace": "API", "alias": "A P I"}]
    },
    ("POST", "/api/v1/pronunciation-dictionaries/{dictionary_id}/rules/remove"): {
        "rule_strings": ["W3C"]
    },
}


def owned_routes(schema: dict[str, Any]) -> Iterator[tuple[str, str, list[str]]]:
    """(method, path, its path parameters) of every API route that names something by id."""
    for path, item in schema["paths"].items():
        if not path.startswith("/api/v1/"):
            continue  # served without a key: signed media URLs, catalog files
        for method, operation in item.items():
            names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
            if names:
                yield method.upper(), path, names


@pytest.fixture
def seeded(
    client: TestClient, db: Database, settings: Settings, demo_catalog: CatalogCounts
) -> Iterator[tuple[Customer, dict[str, str]]]:
    """A customer with one object of each kind in sandbox, by the path parameter naming it."""
    customer = verify_buyer(db, create_customer(db, credits_each=100))
    me = Principal(customer.account_id, "sandbox", customer.sandbox_key_id)
    auth = customer.auth()
    ids: dict[str, str] = {}
    voice = client.get("/api/v1/voices?limit=1", headers=auth).json()["data"][0]
    agent = {"name": "Receptionist", "voice_id": voice["voice_id"]}
    ids["agent_id"] = client.post("/api/v1/agents", json=agent, headers=auth).json()["id"]
    upload = {"file": ("take.wav", wav_bytes(0.5), "audio/wav")}
    ids["media_id"] = client.post("/api/v1/uploads", files=upload, headers=auth).json()["id"]
    ledger = client.get("/api/v1/credits/ledger", headers=auth).json()["data"]
    ids["transaction_id"] = ledger[0]["id"]
    ids["key_id"] = customer.sandbox_key_id
    rules = [{"type": "alias", "string_to_replace": "W3C", "alias": "World Wide Web Consortium"}]
    dictionary = client.post(
        "/api/v1/pronunciation-dictionaries", json={"name": "Names", "rules": rules}, headers=auth
    ).json()
    ids["dictionary_id"], ids["version_id"] = dictionary["id"], dictionary["latest_version_id"]
    with db.session() as session:
        endpoint = WebhookEndpoint(
            id=new_id("we"),
            account_id=customer.account_id,
            environment="sandbox",
            url="https://hooks.example.com/soundstage",
            enabled_events=["*"],
            secret="whsec_tenancy",
            status="enabled",
            slot=0,
        )
        session.add(endpoint)
        session.flush()
        ids["endpoint_id"] = endpoint.id
        event = webhooks.emit(session, (customer.account_id, "sandbox"), "job.failed", {})
        ids["event_id"] = event.id
        job = jobs.submit(
            session,
            settings,
            me,
            "test.echo",
            stored({"value": 1}),
            credits_needed=0,
            is_async=True,
        )
        ids["job_id"] = job.id
    deliveries = client.get(f"/api/v1/webhooks/endpoints/{endpoint.id}/deliveries", headers=auth)
    ids["delivery_id"] = deliveries.json()["data"][0]["id"]
    assert all(ids.values()), ids
    yield customer, ids
    # Nothing left waiting for a worker or the delivery loop of a later test.
    client.post(f"/api/v1/jobs/{ids['job_id']}/cancel", headers=auth)
    client.delete(f"/api/v1/webhooks/endpoints/{ids['endpoint_id']}", headers=auth)


@pytest.fixture(params=["other account", "other environment"])
def stranger(
    request: pytest.FixtureRequest, db: Database, seeded: tuple[Customer, dict[str, str]]
) -> dict[str, str]:
    """The headers of someone else: another (verified) account, or the owner's other key."""
    if request.param == "other environment":
        return seeded[0].auth("production")
    return verify_buyer(db, create_customer(db)).auth()


def test_every_route_by_id_hides_the_object_from_others(
    client: TestClient, seeded: tuple[Customer, dict[str, str]], stranger: dict[str, str]
) -> None:
    owner, ids = seeded
    schema = client.get("/openapi.json").json()
    checked = set()
    for method, path, names in owned_routes(schema):
        if set(names) <= PUBLIC_PARAMETERS or set(names) & set(PROVED_ELSEWHERE):
            continue
        unknown = set(names) - set(ids)
        assert not unknown, f"{method} {path}: seed its object here, or classify {unknown}"
        url = path.format(**ids)
        if method == "GET" and path.endswith("}"):
            assert client.get(url, headers=owner.auth()).status_code == 200, url
        body = BODIES.get((method, path), {"name": "Mine now"} if method == "PATCH" else None)
        response = client.request(method, url, json=body, headers=stranger)
        assert response.status_code == 404, (method, url, response.text)
        code = response.json()["error"]["code"]
        assert code.endswith("_not_found"), (method, url, code)
        assert code != "route_not_found", (method, url)
        checked.add((method, path))
    assert len(checked) >= 14, checked
    # Still the owner's, unchanged by the stranger's writes.
    agent = client.get(f"/api/v1/agents/{ids['agent_id']}", headers=owner.auth()).json()
    assert agent["name"] == "Receptionist"
    job = client.get(f"/api/v1/jobs/{ids['job_id']}", headers=owner.auth()).json()
    assert job["status"] != "cancelled"
    path = f"/api/v1/pronunciation-dictionaries/{ids['dictionary_id']}"
    dictionary = client.get(path, headers=owner.auth()).json()
    assert (dictionary["latest_version_id"], dictionary["version_count"]) == (ids["version_id"], 1)


def test_no_list_shows_another_owners_objects(
    client: TestClient, seeded: tuple[Customer, dict[str, str]], stranger: dict[str, str]
) -> None:
    owner, ids = seeded
    listed = set(ids.values()) - {ids["media_id"], ids["delivery_id"]}  # no list of their own
    seen_by_owner: set[str] = set()
    lists = [p for p in list_operations(client.get("/openapi.json").json()) if "{" not in p]
    assert len(lists) >= 10
    for path in lists:
        mine = client.get(f"{path}?limit=100", headers=owner.auth())
        theirs = client.get(f"{path}?limit=100", headers=stranger)
        assert (mine.status_code, theirs.status_code) == (200, 200), (path, theirs.text)
        assert not set(strings(theirs.json())) & set(ids.values()), path
        seen_by_owner |= set(strings(mine.json())) & listed
    assert seen_by_owner == listed


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value
