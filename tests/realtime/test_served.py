"""Realtime sessions against a real `soundstage serve` (uvicorn) on loopback, through raw
sockets whose reading the test controls: a client that stops reading frees its slot (the
server's sends have a deadline, its pings a timeout), and a frame over the message bound is
refused from its header (close 1009), before its payload is read."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import select
from websockets.asyncio.client import connect
from websockets.frames import Opcode

from soundstage.config import RealtimeSettings, Settings
from soundstage.core.db import Database
from soundstage.models import Job
from soundstage.voices.service import CatalogCounts
from tests.support.audio_fixtures import librivox_clips
from tests.support.factories import Customer, create_customer
from tests.support.processes import serve
from tests.support.realtime import LIGHTHOUSE, RawClient
from tests.support.realtime_audio import librivox_session

pytestmark = pytest.mark.services

PATH = "/api/v1/speech/tts/realtime"
# Read at half speed at 24 kHz: more than 6 MB of audio, twice what loopback buffers hold
# between a server and a client that reads nothing (flite: synthesized in seconds).
TEXT = LIGHTHOUSE
MINIMUM = RealtimeSettings().minimum_credits_per_minute
TCP_ESTABLISHED = 1


@pytest.fixture(scope="module")
def ws_url(settings: Settings, db: Database, demo_catalog: CatalogCounts) -> Iterator[str]:
    """A server with one realtime slot (its voice loaded by a first session), a short send
    timeout, pings every 5 s (the stalled client's buffers fill well before the first ping
    goes unanswered, so the send timeout is what frees it) and an idle timeout (60 s) longer
    than any test waits: only the pings and the send timeout free a slot."""
    for base in serve(
        settings,
        SOUNDSTAGE_REALTIME__PROCESSES="1",
        SOUNDSTAGE_REALTIME__IDLE_TIMEOUT_SECONDS="60",
        SOUNDSTAGE_REALTIME__SEND_TIMEOUT_SECONDS="2",
        SOUNDSTAGE_REALTIME__PING_INTERVAL_SECONDS="5",
        SOUNDSTAGE_REALTIME__PING_TIMEOUT_SECONDS="2",
    ):
        url = base.replace("http://", "ws://") + PATH
        asyncio.run(open_when_free(url, create_customer(db, 1_000), within=30))
        yield url


async def open_when_free(url: str, customer: Customer, within: float) -> float:
    """Opens a session as soon as the only slot is free (4503 until then) and speaks a few
    words in it; how long that took."""
    began = time.monotonic()
    while True:
        async with connect(url, additional_headers=customer.auth(), max_size=None) as ws:
            opening = {"voice_id": "voice_sarah", "format": "pcm_16000", "text": "Free again. "}
            await ws.send(json.dumps(opening | {"flush": True}))
            first = await asyncio.wait_for(ws.recv(), 30)
            if isinstance(first, bytes):
                await ws.send(json.dumps({"text": ""}))
                async for _ in ws:
                    pass
                return time.monotonic() - began
            assert json.loads(first)["error"]["code"] == "realtime_busy", first
        assert time.monotonic() - began < within, f"the slot was still held after {within} s"
        await asyncio.sleep(0.5)


def test_a_session_opened_as_soon_as_the_last_is_dropped_is_served(
    ws_url: str, db: Database
) -> None:
    """A client that drops its transcription mid-utterance and opens the next session at once
    (a reconnect) comes while the server still decodes the first one's final: the account's
    one session (and the one slot) is waited for, briefly, rather than refused (4429, 4503)."""
    customer = create_customer(db, 1_000)
    url = ws_url.replace(PATH, "/api/v1/speech/stt/realtime")
    speech = librivox_session(librivox_clips()[:1]).pcm_frames()[:100]  # 4 s, speech in it

    async def reconnects() -> None:
        for _ in range(3):
            async with connect(url, additional_headers=customer.auth(), max_size=None) as ws:
                await ws.send(json.dumps({"language": "en"}))
                started = json.loads(await asyncio.wait_for(ws.recv(), 30))
                assert started["type"] == "session.started", started
                for frame in speech:
                    await ws.send(frame)

    asyncio.run(reconnects())


def job_once(db: Database, customer: Customer, *, ended: bool) -> Job:
    """The customer's one session's job, once it is recorded (and has `ended`, if asked)."""
    deadline = time.monotonic() + 30
    while True:
        with db.session() as session:
            job = session.scalars(
                select(Job).where(Job.account_id == customer.account_id)
            ).one_or_none()
            if job is not None:
                session.expunge(job)
        if job is not None and not (ended and job.status == "processing"):
            return job
        assert time.monotonic() < deadline, "the session's job was not recorded, or not ended"
        time.sleep(0.1)


def test_a_client_that_stops_reading_frees_its_slot_and_is_charged(
    ws_url: str, db: Database
) -> None:
    holder, other = create_customer(db, 5_000), create_customer(db, 5_000)
    # The slot is free first: the test before may have left it decoding its dropped session's
    # final (seconds on a loaded machine), and a stalled client would never read its 4503.
    asyncio.run(open_when_free(ws_url, create_customer(db, 1_000), within=60))
    # The client's window stays small: the server's audio fills the buffers between them.
    stalled = RawClient(ws_url, holder.auth(), receive_buffer=4096)
    try:
        opening = {"voice_id": "voice_sarah", "format": "pcm_24000", "speed": 0.5, "text": TEXT}
        stalled.send_text(json.dumps(opening | {"flush": True}))
        job_once(db, holder, ended=False)  # the session holds the slot
        # From now on the client reads nothing, answers no ping.
        waited = asyncio.run(open_when_free(ws_url, other, within=30))
        assert waited < 30
        # The server dropped the connection without the client reading a byte more.
        deadline = time.monotonic() + 10
        while stalled.tcp_state() == TCP_ESTABLISHED:
            assert time.monotonic() < deadline, "the stalled connection is still open"
            time.sleep(0.2)
    finally:
        stalled.close()
    job = job_once(db, holder, ended=True)
    assert job.status == "completed"
    assert job.result is not None
    # Charged the audio handed to it (at least the first piece), or the minute's minimum.
    assert job.result["characters"] > 0
    assert job.credits_used == max(job.result["characters"], MINIMUM)


def test_a_client_that_vanishes_silently_is_dropped_by_the_pings(ws_url: str, db: Database) -> None:
    holder, other = create_customer(db, 5_000), create_customer(db, 5_000)
    silent = RawClient(ws_url, holder.auth())
    try:
        opening = {"voice_id": "voice_sarah", "format": "pcm_16000", "text": "Hi. "}
        silent.send_text(json.dumps(opening | {"flush": True}))
        assert silent.next_frame(timeout=30).opcode == Opcode.BINARY  # the session is open
        # Then never a byte read nor a ping answered, and nothing more to send: only the
        # pings can tell the client is gone.
        waited = asyncio.run(open_when_free(ws_url, other, within=30))
        assert waited < 30
    finally:
        silent.close()
    job = job_once(db, holder, ended=True)
    assert (job.status, job.credits_used) == ("completed", MINIMUM)


def test_a_frame_over_the_bound_is_refused_from_its_header_with_1009(
    ws_url: str, db: Database
) -> None:
    customer = create_customer(db, 5_000)
    over = RawClient(ws_url, customer.auth())
    try:
        # A 1 MiB frame of which only the first KiB is ever sent: refused all the same.
        over.send_frame_start(declared=1024 * 1024, sent=1024)
        assert over.close_code(timeout=10) == 1009
    finally:
        over.close()
    # A frame of the bound itself is read: the app answers it (not an opening: 4400).
    within = RawClient(ws_url, customer.auth())
    try:
        within.send_text("x" * RealtimeSettings().max_message_bytes)
        assert within.close_code(timeout=10) == 4400
    finally:
        within.close()
