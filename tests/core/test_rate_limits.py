"""Rate limits per account and environment: headers, 429 with Retry-After, every key of an
account sharing one bucket, bad keys spending nothing, and one shared limit across four server
processes through Redis."""

from __future__ import annotations

import asyncio
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import RateLimitSettings, Settings
from soundstage.core.db import Database
from soundstage.core.ratelimit import RateLimiter
from tests.support.api import assert_error
from tests.support.factories import Customer, create_api_key, create_customer
from tests.support.processes import free_port, wait_for_port

pytestmark = pytest.mark.services

POLICY = re.compile(r'^"(?P<name>[a-z-]+)";q=(?P<q>\d+);w=(?P<w>\d+)$')
REMAINING = re.compile(r'^"(?P<name>[a-z-]+)";r=(?P<r>\d+);t=(?P<t>\d+)$')


@pytest.fixture(scope="module")
def limited(settings: Settings) -> Iterator[TestClient]:
    """The app with small limits: 5 an hour in sandbox, 8 in production, 4 without a key."""
    small = settings.model_copy(
        update={
            "rate_limits": RateLimitSettings(
                sandbox="5/hour", production="8/hour", anonymous="4/hour"
            )
        }
    )
    with TestClient(create_app(small)) as client:
        yield client


def test_headers_count_down_and_the_next_request_is_429(limited: TestClient, db: Database) -> None:
    customer = create_customer(db)
    remaining = []
    for _ in range(5):
        response = limited.get("/api/v1/credits", headers=customer.auth())
        assert response.status_code == 200
        policy = POLICY.match(response.headers["RateLimit-Policy"])
        assert policy is not None
        assert (policy["name"], policy["q"], policy["w"]) == ("account", "5", "3600")
        match = REMAINING.match(response.headers["RateLimit"])
        assert match is not None
        remaining.append(int(match["r"]))
    assert remaining == [4, 3, 2, 1, 0]

    refused = limited.get("/api/v1/credits", headers=customer.auth())
    error = assert_error(refused, 429, "rate_limited")
    assert error["type"] == "rate_limit_error"
    retry_after = int(refused.headers["Retry-After"])
    assert 0 < retry_after <= 3600
    assert "RateLimit" in refused.headers


def test_every_key_of_an_account_shares_its_limit(limited: TestClient, db: Database) -> None:
    """Keys are free to mint: a key minted by the first one gets no quota of its own."""
    customer = create_customer(db)
    minted = limited.post("/api/v1/keys", headers=customer.auth(), json={"name": "second"})
    assert minted.status_code == 201, minted.text
    second = {"Authorization": f"Bearer {minted.json()['secret']}"}
    third = {"Authorization": f"Bearer {create_api_key(db, customer)}"}
    for _ in range(3):
        assert limited.get("/api/v1/credits", headers=customer.auth()).status_code == 200
    spent = limited.get("/api/v1/credits", headers=second)  # the fifth of the account's five
    assert spent.status_code == 200
    assert REMAINING.match(spent.headers["RateLimit"])["r"] == "0"  # type: ignore[index]
    for key in (second, third, customer.auth()):
        refused = limited.get("/api/v1/credits", headers=key)
        assert assert_error(refused, 429, "rate_limited")["message"].startswith(
            "Too many requests: 5 per 3600 s for this account's keys in this environment."
        )
        assert POLICY.match(refused.headers["RateLimit-Policy"])["name"] == "account"  # type: ignore[index]


def test_other_accounts_and_the_other_environment_have_their_own_buckets(
    limited: TestClient, db: Database
) -> None:
    customer, other = create_customer(db), create_customer(db)
    keys = [customer.auth(), {"Authorization": f"Bearer {create_api_key(db, customer)}"}]
    for i in range(5):
        assert limited.get("/api/v1/credits", headers=keys[i % 2]).status_code == 200
    assert limited.get("/api/v1/credits", headers=keys[0]).status_code == 429
    assert limited.get("/api/v1/credits", headers=other.auth()).status_code == 200
    # The same account in production: its own bucket, at production's limit.
    production = [
        customer.auth("production"),
        {"Authorization": f"Bearer {create_api_key(db, customer, 'production')}"},
    ]
    statuses = [
        limited.get("/api/v1/credits", headers=production[i % 2]).status_code for i in range(9)
    ]
    assert statuses == [200] * 8 + [429]
    assert (
        POLICY.match(  # type: ignore[index]
            limited.get("/api/v1/credits", headers=production[0]).headers["RateLimit-Policy"]
        )["q"]
        == "8"
    )
    # Spending production took nothing more from sandbox: still refused there, other untouched.
    assert limited.get("/api/v1/credits", headers=keys[1]).status_code == 429
    assert limited.get("/api/v1/credits", headers=other.auth()).status_code == 200


def test_bad_keys_never_spend_a_real_keys_quota(limited: TestClient, db: Database) -> None:
    customer = create_customer(db)
    forged = customer.sandbox_key[:-1] + ("A" if customer.sandbox_key[-1] != "A" else "B")
    statuses = [
        limited.get("/api/v1/credits", headers={"Authorization": f"Bearer {forged}"}).status_code
        for _ in range(6)
    ]
    assert statuses[0] == 401
    assert 429 in statuses  # unauthenticated traffic has its own, separate bucket
    for _ in range(5):
        assert limited.get("/api/v1/credits", headers=customer.auth()).status_code == 200


def test_no_window_edge_lets_more_than_the_limit_through(settings: Settings, db: Database) -> None:
    """10 per 4 s is never more than 10 in any 4 s: right after the edge of a fixed window
    (which would start counting afresh) only the slot of the request that left is free."""
    small = settings.model_copy(
        update={"rate_limits": RateLimitSettings(sandbox="10/4 seconds", anonymous="4/hour")}
    )
    customer = create_customer(db)
    with TestClient(create_app(small)) as client:

        def status_at(offset: float) -> int:
            time.sleep(max(0.0, first + offset - time.monotonic()))
            return client.get("/api/v1/credits", headers=customer.auth()).status_code

        assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200
        # The first request took its slot before this instant, however slow it was to answer
        # (the app's first request warms it up): measuring from here keeps the edge exact.
        first = time.monotonic()
        nine_from = first + 1.0  # the earliest the first of the nine is sent
        assert [status_at(1.0) for _ in range(9)] == [200] * 9  # the tenth within 4 s
        nine_to = time.monotonic()
        assert status_at(1.0) == 429  # the eleventh
        # The first request has left the window; the nine others stay in it until 5.0 s.
        assert status_at(4.1) == 200  # its slot, and only that one
        refused_from = time.monotonic()
        refused = client.get("/api/v1/credits", headers=customer.auth())
        refused_to = time.monotonic()
        assert refused_to - first < 5.0, "too slow to test the edge"
    assert_error(refused, 429, "rate_limited")
    # Retry-After is when the oldest of the nine leaves the 4 s window (under a second from
    # the refusal), rounded up, at least 1; a store that keeps whole seconds may add one.
    soonest = max(1, math.ceil(nine_from + 4 - refused_to))
    latest = max(1, math.ceil(nine_to + 4 - refused_from)) + 1
    retry_after = int(refused.headers["Retry-After"])
    assert soonest <= retry_after <= latest, (retry_after, soonest, latest)
    match = REMAINING.match(refused.headers["RateLimit"])
    assert match is not None
    assert match["r"] == "0"


def test_the_in_memory_window_starts_no_thread_and_forgets_what_left_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`limits`' memory storage started a timer thread every 10 ms of traffic (a GIL-taking
    scan each time, 0.3 to 1.4 ms a request); here its expired entries are swept on the
    caller's thread, at most once a second, and still swept."""
    local = settings.model_copy(
        update={"redis_url": None, "rate_limits": RateLimitSettings(anonymous="1000/second")}
    )
    limiter = RateLimiter(local)
    storage = limiter.memory_storage
    # Threads this test's own thread starts (not those other tests left behind in the worker
    # process, which may start theirs at any moment): `limits` would start a Timer here.
    caller = threading.current_thread()
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def recording_start(thread: threading.Thread) -> None:
        if threading.current_thread() is caller:
            started.append(thread)
        start(thread)

    async def hits(client: str, count: int) -> None:
        for _ in range(count):
            assert (await limiter.hit_anonymous(client)).allowed

    monkeypatch.setattr(threading.Thread, "start", recording_start)
    asyncio.run(hits("10.0.0.1", 50))
    assert started == []
    assert sum(len(entries) for entries in storage.events.values()) == 50
    time.sleep(storage.SWEEP_SECONDS + 1.1)  # the 50 have left the 1 s window
    asyncio.run(hits("10.0.0.2", 1))  # a later hit sweeps them
    assert sum(len(entries) for entries in storage.events.values()) == 1
    assert started == []


def test_redis_down_is_503_with_retry_after(settings: Settings, db: Database) -> None:
    port = free_port()  # nothing listens there
    broken = settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{port}/0"})
    customer = create_customer(db)
    with TestClient(create_app(broken)) as client:
        response = client.get("/api/v1/credits", headers=customer.auth())
    assert_error(response, 503, "service_unavailable")
    assert response.headers["Retry-After"] == "5"


def test_four_processes_share_one_limit_through_redis(
    settings: Settings, db: Database, redis_url: str, tmp_path: Path
) -> None:
    customer: Customer = create_customer(db, credits_each=10)
    # Two keys of one account, taking turns: one bucket for both, in every process.
    keys = [customer.auth(), {"Authorization": f"Bearer {create_api_key(db, customer)}"}]
    env = {
        **os.environ,
        "SOUNDSTAGE_DATA_DIR": str(tmp_path),
        "SOUNDSTAGE_DATABASE_URL": settings.resolved_database_url,
        "SOUNDSTAGE_REDIS_URL": redis_url,
        "SOUNDSTAGE_REDIS_NAMESPACE": settings.redis_namespace,
        "SOUNDSTAGE_RATE_LIMITS__SANDBOX": "10/hour",
        "SOUNDSTAGE_LOG_LEVEL": "warning",
    }
    ports = [free_port() for _ in range(4)]
    servers = [
        subprocess.Popen(
            [sys.executable, "-m", "soundstage.cli", "serve", "--no-worker", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for port in ports
    ]
    try:
        for port in ports:
            wait_for_port(port, timeout=60)

        def call(i: int) -> int:
            url = f"http://127.0.0.1:{ports[i % 4]}/api/v1/credits"
            return httpx.get(url, headers=keys[i // 4 % 2], timeout=30).status_code

        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = list(pool.map(call, range(40)))
    finally:
        for server in servers:
            server.send_signal(signal.SIGINT)
        for server in servers:
            server.wait(20)
    assert statuses.count(200) == 10, statuses
    assert statuses.count(429) == 30, statuses
