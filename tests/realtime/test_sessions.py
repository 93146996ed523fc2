"""The realtime core end to end through a WebSocket route of its own (tests only): keys and
single-use tokens, slots held and freed, credits reserved in blocks and captured as used (at
least a minimum per started minute), errors as close codes, a slot process killed
mid-session, a revoked key's session ended, keys in URLs refused and failed openings rate
limited."""

from __future__ import annotations

import os
import secrets
import signal
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI, WebSocket
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from soundstage.app import create_app
from soundstage.config import RealtimeSettings, Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError
from soundstage.core.timeutil import travel
from soundstage.jobs import live as live_jobs
from soundstage.realtime import gate, live, messages
from soundstage.realtime.slots import SlotPool
from tests.support.credits import wallet_sums
from tests.support.factories import Customer, create_api_key, create_customer, principal_of
from tests.support.realtime import job_of, wallets
from tests.support.realtime_handlers import open_shouter

pytestmark = pytest.mark.services

KIND = "shout_realtime"
BLOCK = 10
MINIMUM = RealtimeSettings().minimum_credits_per_minute
PATH = "/api/v1/test/shout"
live.register_lost_kind(KIND)


async def shout(websocket: WebSocket) -> None:
    """A minimal realtime protocol: {"text"} in, one {"word"} per word out, 1 credit each."""
    try:
        principal = await gate.authenticate(websocket, "shout")
        await websocket.accept()
        opening = messages.read_json(dict(await websocket.receive()))
        async with live.session(
            websocket,
            principal,
            kind=KIND,
            factory=open_shouter,
            params={"delay": opening.get("delay", 0.0)},
            request=opening,
            block_credits=BLOCK,
        ) as session:
            await websocket.send_json({"type": "opened", "job_id": session.job_id})
            while True:
                body = messages.read_json(await session.receive())
                if body.get("close"):
                    async for out in session.finish():
                        await websocket.send_json(out)
                    break
                async for out in session.stream(body["text"]):
                    await session.cover(session.used + 1)
                    await websocket.send_json(out)
                    session.used += 1
            session.result = {"words": session.used}
        await websocket.send_json({"type": "closed", "job_id": session.job_id})
        await websocket.close()
    except WebSocketDisconnect:
        pass
    except AppError as exc:
        await gate.refuse(websocket, exc)


def realtime_app(settings: Settings, **realtime: Any) -> FastAPI:
    app = create_app(settings.model_copy(update={"realtime": RealtimeSettings(**realtime)}))
    app.add_api_websocket_route(PATH, shout)
    return app


@pytest.fixture(scope="module")
def one_slot(settings: Settings) -> Iterator[TestClient]:
    """One slot, a short idle timeout, no minimum charge (its own tests below set it)."""
    app = realtime_app(settings, processes=1, idle_timeout_seconds=2, minimum_credits_per_minute=0)
    with TestClient(app) as client:
        yield client


@pytest.fixture(scope="module")
def guarded(settings: Settings) -> Iterator[TestClient]:
    """One slot, the default minimum charge, an idle timeout (30 s) longer than any test
    here waits, and a key checked every half second."""
    app = realtime_app(settings, processes=1, idle_timeout_seconds=30, key_check_seconds=0.5)
    with TestClient(app) as client:
        yield client


def connect(client: TestClient, customer: Customer, query: str = "") -> Any:
    return client.websocket_connect(f"{PATH}{query}", headers=customer.auth())


def closed_with(ws: Any) -> tuple[dict[str, Any], int]:
    """The error message and the close code that follows it."""
    error = ws.receive_json()
    closing = ws.receive()
    assert closing["type"] == "websocket.close"
    return error, int(closing["code"])


def test_a_session_is_charged_what_it_used_in_blocks(one_slot: TestClient, db: Database) -> None:
    customer = create_customer(db, credits_each=100)
    words = " ".join(f"w{i}" for i in range(25))
    with connect(one_slot, customer) as ws:
        ws.send_json({"delay": 0})
        job_id = ws.receive_json()["job_id"]
        ws.send_json({"text": words})
        got = [ws.receive_json()["word"] for _ in range(25)]
        ws.send_json({"close": True})
        assert ws.receive_json() == {"words": 25}
        assert ws.receive_json() == {"type": "closed", "job_id": job_id}
    assert got == [f"W{i}" for i in range(25)]
    job = job_of(db, job_id)
    # Reserved in blocks of 10 as the use grew, 25 captured, the rest returned.
    assert (job.status, job.credits_reserved, job.credits_used) == ("completed", 30, 25)
    assert job.result == {"words": 25}
    assert wallets(db, customer) == {"available": 75, "reserved": 0, "consumed": 25}


def test_a_balance_too_small_is_refused_before_anything_runs(
    one_slot: TestClient, db: Database
) -> None:
    customer = create_customer(db, credits_each=BLOCK - 1)
    with connect(one_slot, customer) as ws:
        ws.send_json({})
        error, code = closed_with(ws)
    assert (code, error["error"]["code"]) == (4402, "insufficient_credits")
    assert wallet_sums(db, customer.account_id, "sandbox")["available"] == BLOCK - 1


def test_running_out_of_credits_mid_session_ends_it_charging_what_was_sent(
    one_slot: TestClient, db: Database
) -> None:
    customer = create_customer(db, credits_each=15)
    with connect(one_slot, customer) as ws:
        ws.send_json({})
        job_id = ws.receive_json()["job_id"]
        ws.send_json({"text": " ".join(["la"] * 12)})
        sent = [ws.receive_json() for _ in range(BLOCK)]
        error, code = closed_with(ws)
    assert len(sent) == BLOCK
    assert (code, error["error"]["code"]) == (4402, "insufficient_credits")
    job = job_of(db, job_id)
    assert (job.status, job.credits_used) == ("failed", BLOCK)
    assert wallets(db, customer) == {"available": 5, "reserved": 0, "consumed": BLOCK}


def test_every_slot_taken_is_4503_and_a_leaving_client_frees_its_slot_at_once(
    one_slot: TestClient, db: Database
) -> None:
    first, second = create_customer(db, 100), create_customer(db, 100)
    with connect(one_slot, first) as ws:
        ws.send_json({"delay": 1.0})
        job_id = ws.receive_json()["job_id"]
        ws.send_json({"text": "one two"})
        with connect(one_slot, second) as refused:
            refused.send_json({})
            error, code = closed_with(refused)
        assert (code, error["error"]["code"]) == (4503, "realtime_busy")
        # The client leaves while its message is being handled.
    began = time.monotonic()
    with connect(one_slot, second) as ws:
        ws.send_json({})
        assert ws.receive_json()["type"] == "opened"
        waited = time.monotonic() - began
    # Free once the call that was running (1 s) ended, never held until a timeout.
    assert waited < 2.5
    job = job_of(db, job_id)
    assert (job.status, job.credits_used) == ("completed", 0)


def test_one_account_cannot_take_every_slot(settings: Settings, db: Database) -> None:
    # Two slots, and the default of two sessions per account: one account gets one.
    app = realtime_app(settings, processes=2)
    customer = create_customer(db, 100)
    with TestClient(app) as client, connect(client, customer) as ws:
        ws.send_json({})
        assert ws.receive_json()["type"] == "opened"
        with connect(client, customer) as second:
            second.send_json({})
            error, code = closed_with(second)
        assert (code, error["error"]["code"]) == (4429, "too_many_sessions")
        with connect(client, create_customer(db, 100)) as other:
            other.send_json({})
            assert other.receive_json()["type"] == "opened"


def test_a_handler_error_closes_with_its_status_and_field(
    one_slot: TestClient, db: Database
) -> None:
    customer = create_customer(db, 100)
    with connect(one_slot, customer) as ws:
        ws.send_json({})
        ws.receive_json()
        ws.send_json({"text": "invalid"})
        error, code = closed_with(ws)
    assert code == 4422
    assert error["error"] | {"message": ""} == {
        "status": 422,
        "type": "invalid_request_error",
        "code": "parameter_invalid",
        "message": "",
        "param": "text",
    }


def test_a_killed_slot_process_ends_its_session_uncharged_and_is_replaced(
    one_slot: TestClient, db: Database
) -> None:
    customer = create_customer(db, 100)
    with connect(one_slot, customer) as ws:
        ws.send_json({})
        job_id = ws.receive_json()["job_id"]
        ws.send_json({"text": "hello"})
        pid = ws.receive_json()["pid"]
        os.kill(pid, signal.SIGKILL)
        ws.send_json({"text": "again"})
        error, code = closed_with(ws)
    assert (code, error["error"]["code"]) == (4500, "session_lost")
    assert job_of(db, job_id).status == "failed"
    with connect(one_slot, customer) as ws:
        ws.send_json({})
        ws.receive_json()
        ws.send_json({"text": "back"})
        answer = ws.receive_json()
    assert answer["word"] == "BACK"
    assert answer["pid"] != pid


def test_each_message_restarts_the_idle_timeout_and_silence_ends_it_with_4408(
    one_slot: TestClient, db: Database
) -> None:
    customer = create_customer(db, 100)
    with connect(one_slot, customer) as ws:
        ws.send_json({})
        job_id = ws.receive_json()["job_id"]
        # A message every 1.2 s keeps a session with a 2 s idle timeout open past 3.6 s.
        answers = []
        for word in ("one", "two", "three"):
            time.sleep(1.2)
            ws.send_json({"text": word})
            answers.append(ws.receive_json()["word"])
        error, code = closed_with(ws)  # then silence
    assert answers == ["ONE", "TWO", "THREE"]
    assert (code, error["error"]["code"]) == (4408, "session_timeout")
    job = job_of(db, job_id)
    assert (job.status, job.credits_used) == ("failed", 3)  # what was delivered is charged


def test_a_token_opens_one_session_once(
    one_slot: TestClient, settings: Settings, db: Database
) -> None:
    customer = create_customer(db, 100)
    minted = gate.mint_token(db, settings, principal_of(customer), "shout")
    with one_slot.websocket_connect(f"/api/v1/test/shout?token={minted.token}") as ws:
        ws.send_json({})
        assert ws.receive_json()["type"] == "opened"
    for query in (f"?token={minted.token}", "?token=rt_unknown"):
        with one_slot.websocket_connect(f"/api/v1/test/shout{query}") as ws:
            error, code = closed_with(ws)
        assert (code, error["error"]["code"]) == (4401, "invalid_realtime_token")
    other = gate.mint_token(db, settings, principal_of(customer), "another-endpoint")
    with one_slot.websocket_connect(f"/api/v1/test/shout?token={other.token}") as ws:
        _, code = closed_with(ws)
    assert code == 4401


def test_an_expired_token_and_a_key_in_the_url_are_refused(
    one_slot: TestClient, settings: Settings, db: Database
) -> None:
    customer = create_customer(db, 100)
    brief = settings.model_copy(update={"realtime": RealtimeSettings(token_ttl_seconds=1)})
    minted = gate.mint_token(db, brief, principal_of(customer), "shout")
    time.sleep(1.1)
    with one_slot.websocket_connect(f"/api/v1/test/shout?token={minted.token}") as ws:
        _, code = closed_with(ws)
    assert code == 4401
    with one_slot.websocket_connect(f"/api/v1/test/shout?api_key={customer.sandbox_key}") as ws:
        error, code = closed_with(ws)
    assert (code, error["error"]["code"]) == (4400, "malformed_request")
    with one_slot.websocket_connect("/api/v1/test/shout") as ws:
        error, code = closed_with(ws)
    assert (code, error["error"]["code"]) == (4401, "missing_api_key")


def test_a_session_whose_api_process_died_is_failed_by_a_worker_uncharged(
    settings: Settings, db: Database, worker: Any
) -> None:
    customer = create_customer(db, 100)
    with db.session() as session:
        job = live_jobs.start(
            session,
            settings,
            principal_of(customer),
            KIND,
            {},
            credits_needed=BLOCK,
            owner="realtime:gone",
            lease_seconds=0.1,
        )
    deadline = time.monotonic() + 30
    while job_of(db, job.id).status == "processing":
        assert time.monotonic() < deadline, "the sweeper never took the dead session's job"
        time.sleep(0.2)
    ended = job_of(db, job.id)
    assert (ended.status, ended.credits_used) == ("failed", 0)
    assert ended.error is not None
    assert ended.error["code"] == "session_lost"
    assert wallet_sums(db, customer.account_id, "sandbox")["available"] == 100


def test_the_pool_starts_no_process_until_a_session_needs_one(settings: Settings) -> None:
    pool = SlotPool(settings)
    assert (pool.free, pool.pids()) == (settings.realtime.processes, [])
    assert timedelta(seconds=settings.realtime.token_ttl_seconds) <= timedelta(hours=1)


def test_a_session_kept_open_with_empty_messages_is_charged_the_minimum_per_started_minute(
    guarded: TestClient, db: Database
) -> None:
    customer = create_customer(db, 100)
    with connect(guarded, customer) as ws:
        ws.send_json({})
        job_id = ws.receive_json()["job_id"]
        ws.send_json({"text": ""})  # a keep-alive: nothing to say
        with travel(timedelta(seconds=61)):  # its second minute has begun
            ws.send_json({"text": ""})
            ws.send_json({"close": True})
            assert ws.receive_json() == {"words": 0}
            assert ws.receive_json()["type"] == "closed"
    job = job_of(db, job_id)
    assert (job.status, job.credits_used) == ("completed", 2 * MINIMUM)
    assert wallets(db, customer) == {
        "available": 100 - 2 * MINIMUM,
        "reserved": 0,
        "consumed": 2 * MINIMUM,
    }


def key_id_of(client: TestClient, secret: str) -> str:
    listed = client.get("/api/v1/keys", headers={"Authorization": f"Bearer {secret}"})
    return str(next(key["id"] for key in listed.json()["data"] if key["current"]))


def test_revoking_its_key_ends_an_open_session_within_5_s(
    guarded: TestClient, db: Database
) -> None:
    customer = create_customer(db, 100)
    secret = create_api_key(db, customer)
    with guarded.websocket_connect(PATH, headers={"Authorization": f"Bearer {secret}"}) as ws:
        ws.send_json({})
        job_id = ws.receive_json()["job_id"]
        ws.send_json({"text": "still here"})
        assert [ws.receive_json()["word"] for _ in range(2)] == ["STILL", "HERE"]
        revoked = guarded.post(
            f"/api/v1/keys/{key_id_of(guarded, secret)}/revoke", headers=customer.auth()
        )
        assert revoked.status_code == 200, revoked.text
        began = time.monotonic()
        error, code = closed_with(ws)
        ended_in = time.monotonic() - began
    assert (code, error["error"]["code"]) == (4401, "api_key_revoked")
    assert ended_in < 5
    job = job_of(db, job_id)
    assert (job.status, job.credits_used) == ("failed", max(2, MINIMUM))


@pytest.mark.parametrize(
    "query",
    [
        "?token={key}&token=rt_x",  # a repeated parameter
        "?token=Bearer%20{key}",  # behind a prefix
        "?authorization=Bearer+{key}",  # any parameter's name
        "?{key}",  # a parameter's name
        "?token=%2573{rest}",  # percent-encoded twice
    ],
)
def test_an_api_key_anywhere_in_the_url_is_refused(
    guarded: TestClient, db: Database, query: str
) -> None:
    customer = create_customer(db, 100)
    key = customer.sandbox_key
    url = PATH + query.format(key=key, rest=key.removeprefix("s"))
    # Sent with a valid header too: the key in the URL alone refuses the opening.
    with guarded.websocket_connect(url, headers=customer.auth()) as ws:
        ws.send_json({})  # the opening message, were the session let in
        error = ws.receive_json()
        assert error["type"] == "error", error
        assert error["error"]["code"] == "malformed_request"
        assert ws.receive()["code"] == 4400


def test_failed_openings_spend_the_address_anonymous_rate_limit(
    settings: Settings, db: Database
) -> None:
    limited = settings.model_copy(
        update={
            "rate_limits": settings.rate_limits.model_copy(update={"anonymous": "3/minute"}),
            "redis_namespace": f"{settings.redis_namespace}-{secrets.token_hex(4)}",
        }
    )
    customer = create_customer(db, 100)
    failures = [
        ({"Authorization": "Bearer sk_sandbox_not_a_key"}, ""),
        ({}, "?token=rt_unknown"),
        (customer.auth(), f"?token={customer.sandbox_key}"),
    ]
    with TestClient(realtime_app(limited, processes=1, minimum_credits_per_minute=0)) as client:
        codes = []
        for headers, query in failures + failures[:1]:
            with client.websocket_connect(PATH + query, headers=headers) as ws:
                codes.append(closed_with(ws)[1])
        # The fourth failure in a minute from this address is over its bucket.
        assert codes == [4401, 4401, 4400, 4429]
        # A valid key from the same address still opens (it spends its own bucket).
        with connect(client, customer) as ws:
            ws.send_json({})
            assert ws.receive_json()["type"] == "opened"
