"""Admission control (core.admission): past `server.max_active_requests` a request waits at
most `admission_wait_seconds` for a turn (and at most `max_waiting_requests` wait), then is
refused at once with 503 `overloaded` and Retry-After, nothing done; the probes are never
queued; a request waiting for its job stops counting. The database's own waits (no free
connection, a lock held elsewhere) end the same way within `database.wait_seconds`, never in a
500 or a hang."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text
from sqlalchemy.engine import make_url

from soundstage.app import create_app
from soundstage.config import DatabaseSettings, ServerSettings, Settings
from soundstage.core.db import Database
from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.jobs import service as jobs
from soundstage.models import Job
from tests.support.api import assert_error
from tests.support.factories import Customer
from tests.support.jobs import stored
from tests.support.processes import serve

pytestmark = pytest.mark.services


def app_with(settings: Settings, **server: Any) -> FastAPI:
    return create_app(settings.model_copy(update={"server": ServerSettings(**server)}))


class HeldRequest:
    """A request whose body arrives in two halves: it holds its turn (FastAPI reads the
    whole body before the endpoint runs) until `finish` lets the second half go."""

    def __init__(self, client: httpx.AsyncClient, customer: Customer) -> None:
        self.started = asyncio.Event()
        self.go_on = asyncio.Event()
        body = b'{"amount": 1}'

        async def halves() -> AsyncIterator[bytes]:
            yield body[:5]
            self.started.set()
            await self.go_on.wait()
            yield body[5:]

        self.task = asyncio.create_task(
            client.post(
                "/api/v1/sandbox/credits",
                content=halves(),
                headers={**customer.auth(), "Content-Type": "application/json"},
            )
        )

    async def finish(self) -> httpx.Response:
        self.go_on.set()
        return await self.task


def run(app: FastAPI, scenario: Callable[[httpx.AsyncClient], Awaitable[None]]) -> None:
    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            await scenario(client)

    asyncio.run(main())


def assert_overloaded(response: httpx.Response) -> None:
    assert_error(response, 503, "overloaded")
    assert response.headers["Retry-After"] == "1"


def test_past_capacity_a_request_is_refused_at_once_and_nothing_is_done(
    settings: Settings, customer: Customer
) -> None:
    app = app_with(settings, max_active_requests=1, max_waiting_requests=0)

    async def scenario(client: httpx.AsyncClient) -> None:
        held = HeldRequest(client, customer)
        await held.started.wait()
        began = time.monotonic()
        refused = await client.post(
            "/api/v1/sandbox/credits", json={"amount": 5}, headers=customer.auth()
        )
        assert time.monotonic() - began < 5  # at once: nobody may wait
        assert_overloaded(refused)
        # Probes are never queued behind requests.
        assert (await client.get("/healthz")).status_code == 200
        assert (await client.get("/readyz")).status_code == 200
        assert (await held.finish()).status_code == 200
        balance = await client.get("/api/v1/credits", headers=customer.auth())
        assert balance.status_code == 200
        # The refused top-up did nothing; the held one counted once.
        assert balance.json()["balance"] == 1000 + 1

    run(app, scenario)


def test_a_waiting_request_gets_the_next_turn_or_gives_up_in_bounded_time(
    settings: Settings, customer: Customer
) -> None:
    app = app_with(
        settings, max_active_requests=1, max_waiting_requests=4, admission_wait_seconds=0.3
    )

    async def scenario(client: httpx.AsyncClient) -> None:
        held = HeldRequest(client, customer)
        await held.started.wait()
        began = time.monotonic()
        gave_up = await client.get("/api/v1/credits", headers=customer.auth())
        waited = time.monotonic() - began
        assert_overloaded(gave_up)
        assert 0.3 <= waited < 10
        # One that waits while the turn is given back is served.
        waiting = asyncio.create_task(client.get("/api/v1/credits", headers=customer.auth()))
        await asyncio.sleep(0.05)
        assert (await held.finish()).status_code == 200
        assert (await waiting).status_code == 200

    run(app, scenario)


def test_a_request_waiting_for_its_job_does_not_hold_a_turn(
    settings: Settings, db: Database, customer: Customer, worker: Any
) -> None:
    app = app_with(
        settings, max_active_requests=1, max_waiting_requests=1, admission_wait_seconds=10
    )

    @app.post("/api/v1/test-sleep")
    async def sleep(db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep) -> Any:
        return await jobs.run(
            db, settings, principal, "test.sleep", stored({"seconds": 4.0}), credits_needed=0
        )

    def submitted() -> bool:
        with db.read_session() as session:
            return (
                session.scalar(select(Job.id).where(Job.account_id == customer.account_id))
                is not None
            )

    async def scenario(client: httpx.AsyncClient) -> None:
        sleeping = asyncio.create_task(client.post("/api/v1/test-sleep", headers=customer.auth()))
        deadline = time.monotonic() + 30
        while not await asyncio.to_thread(submitted):  # it holds the one turn meanwhile
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        began = time.monotonic()
        served = await client.get("/api/v1/credits", headers=customer.auth())
        # Served while the job sleeps (4 s), not once it is over: the waiting request
        # gave its turn back.
        assert served.status_code == 200
        assert not sleeping.done()
        assert time.monotonic() - began < 3
        assert (await sleeping).status_code == 200

    run(app, scenario)


def test_no_free_database_connection_is_503_overloaded_within_the_wait(
    settings: Settings, customer: Customer
) -> None:
    sizing = DatabaseSettings(pool_size=1, wait_seconds=0.5)
    app = create_app(settings.model_copy(update={"database": sizing}))
    db: Database = app.state.db

    async def scenario(client: httpx.AsyncClient) -> None:
        with db.engine.connect():  # the process's only connection, held elsewhere
            began = time.monotonic()
            response = await client.get("/api/v1/credits", headers=customer.auth())
            assert time.monotonic() - began < 10
            assert_overloaded(response)
        assert (await client.get("/api/v1/credits", headers=customer.auth())).status_code == 200

    run(app, scenario)


def test_a_write_lock_held_elsewhere_is_503_overloaded_within_the_wait(
    settings: Settings, customer: Customer
) -> None:
    sizing = DatabaseSettings(wait_seconds=0.5)
    app = create_app(settings.model_copy(update={"database": sizing}))
    url = make_url(settings.resolved_database_url)

    async def scenario(client: httpx.AsyncClient) -> None:
        top_up = {"amount": 7}
        if url.get_backend_name() == "sqlite":
            # Another process's write transaction: SQLite's one write lock.
            other = sqlite3.connect(str(url.database), isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            release = other.close
        else:
            # Another session's lock on the account's balance row.
            other_db = Database(settings)
            holder = other_db.engine.connect()
            holder.execute(
                text("SELECT * FROM credit_balance WHERE account_id = :a FOR UPDATE"),
                {"a": customer.account_id},
            )

            def release() -> None:
                holder.close()
                other_db.dispose()

        try:
            began = time.monotonic()
            response = await client.post(
                "/api/v1/sandbox/credits", json=top_up, headers=customer.auth()
            )
            assert time.monotonic() - began < 10
            assert_overloaded(response)
        finally:
            release()
        balance = await client.get("/api/v1/credits", headers=customer.auth())
        assert balance.json()["balance"] == 1000  # the refused top-up left nothing behind

    run(app, scenario)


@pytest.fixture
def server(settings: Settings) -> Iterator[str]:
    """A real `soundstage serve` with the default capacity and a rate limit out of the way."""
    yield from serve(settings, SOUNDSTAGE_RATE_LIMITS__SANDBOX="1000000/minute")


def test_a_burst_of_300_never_wedges_the_api(server: str, customer: Customer) -> None:
    """300 requests at once (one in ten a write) on a real server: each is answered, 200 or a
    quick 503 `overloaded`, never a 500 or a hang; the books hold what was answered 200; and
    the API answers promptly right after."""

    async def one(client: httpx.AsyncClient, index: int) -> httpx.Response:
        if index % 10 == 0:
            return await client.post("/api/v1/sandbox/credits", json={"amount": 1})
        return await client.get("/api/v1/credits")

    async def burst() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=300, max_keepalive_connections=300)
        async with httpx.AsyncClient(
            base_url=server, headers=customer.auth(), limits=limits, timeout=60
        ) as client:
            return await asyncio.gather(*(one(client, i) for i in range(300)))

    answers = asyncio.run(burst())
    statuses = Counter(response.status_code for response in answers)
    assert set(statuses) <= {200, 503}, statuses
    assert statuses[200] > 0
    for response in answers:
        if response.status_code == 503:
            assert_overloaded(response)
    with httpx.Client(base_url=server, headers=customer.auth(), timeout=10) as client:
        began = time.monotonic()
        after = client.get("/api/v1/credits")
        assert time.monotonic() - began < 5
        assert after.status_code == 200
        topped_up = sum(1 for response in answers[::10] if response.status_code == 200)
        assert after.json()["balance"] == 1000 + topped_up
        # Ready again once the burst has left the loop-lag window (the burst itself may
        # have lagged the event loop past the limit: readiness said so while it lasted).
        deadline = time.monotonic() + 30
        while (ready := client.get("/readyz")).status_code != 200 and time.monotonic() < deadline:
            assert set(ready.json()["checks"]) >= {"database", "event_loop"}
            time.sleep(0.5)
        assert ready.status_code == 200, ready.text
