"""Double booking is impossible under concurrency: 50 simultaneous attempts at one slot over
real HTTP against four `soundstage serve` processes give one booking and 49 409s, on SQLite
and (in CI's second pass) PostgreSQL; overlapping but different slots race the same way."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any

import httpx
import pytest

from soundstage.config import Settings
from soundstage.core.db import Database
from tests.support.factories import Customer, MakeStudio, create_customer
from tests.support.processes import REPO_ROOT, free_port, settings_env, wait_for_port
from tests.support.studios import days_ahead, rows_of_room

pytestmark = pytest.mark.services

SERVERS = 4
ATTEMPTS = 50


@pytest.fixture(scope="module")
def servers(settings: Settings) -> Iterator[list[str]]:
    """Base URLs of four `soundstage serve --no-worker` processes on the test database."""
    env = settings_env(settings)
    env["SOUNDSTAGE_RATE_LIMITS__SANDBOX"] = "100000/minute"
    ports = [free_port() for _ in range(SERVERS)]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "soundstage.cli", "serve", "--no-worker", "--port", str(port)],
            env=env,
            cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        for port in ports:
            wait_for_port(port, timeout=60)
        yield [f"http://127.0.0.1:{port}" for port in ports]
    finally:
        for process in processes:
            process.send_signal(signal.SIGINT)
        for process in processes:
            process.wait(30)


def race(
    servers: list[str], customers: list[Customer], studio_id: str, bodies: list[dict[str, Any]]
) -> list[httpx.Response]:
    """Send every body at once (a barrier releases them together), spread over the servers
    and customers."""
    barrier = threading.Barrier(len(bodies))

    def attempt(index: int) -> httpx.Response:
        url = f"{servers[index % len(servers)]}/api/v1/studios/{studio_id}/book"
        with httpx.Client(timeout=120) as client:
            barrier.wait()
            return client.post(
                url, json=bodies[index], headers=customers[index % len(customers)].auth()
            )

    with ThreadPoolExecutor(max_workers=len(bodies)) as pool:
        return list(pool.map(attempt, range(len(bodies))))


def body(day: date, start: str, end: str, room_id: str) -> dict[str, Any]:
    return {"date": str(day), "start_time": start, "end_time": end, "room_id": room_id}


def test_50_attempts_at_one_slot_make_one_booking(
    servers: list[str], db: Database, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    room = spec.rooms[0]  # 30-minute buffer
    customers = [create_customer(db) for _ in range(5)]
    day = days_ahead("America/New_York", 10)
    responses = race(servers, customers, spec.id, [body(day, "10:00", "12:00", room.id)] * ATTEMPTS)
    statuses = [r.status_code for r in responses]
    assert statuses.count(200) == 1, statuses
    assert statuses.count(409) == ATTEMPTS - 1, statuses
    assert {r.json()["error"]["code"] for r in responses if r.status_code == 409} == {
        "slot_unavailable"
    }
    assert rows_of_room(db, room.id) == (1, 10)  # 8 quarter hours and 2 of buffer
    winner = next(r.json() for r in responses if r.status_code == 200)
    assert (winner["status"], winner["total_cents"]) == ("confirmed", 10_250)


def test_overlapping_slots_race_to_one_booking(
    servers: list[str], db: Database, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    room = spec.rooms[0]
    customers = [create_customer(db) for _ in range(5)]
    day = days_ahead("America/New_York", 11)
    # Every pair of these overlaps (with the 30-minute buffer): 10:00-12:00 ... 11:45-13:45.
    starts = [f"{10 + q // 4:02d}:{15 * (q % 4):02d}" for q in range(8)]
    bodies = [
        body(day, start, f"{int(start[:2]) + 2:02d}:{start[3:]}", room.id) for start in starts * 4
    ]
    responses = race(servers, customers, spec.id, bodies)
    statuses = [r.status_code for r in responses]
    assert statuses.count(200) == 1, statuses
    assert statuses.count(409) == len(bodies) - 1, statuses
    assert rows_of_room(db, room.id) == (1, 10)
