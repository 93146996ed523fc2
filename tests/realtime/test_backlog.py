"""A session reads its client's messages ahead of itself up to `realtime.max_backlog_bytes`
(each counted as at least 1 KiB), and no further until the session takes some: a client that
sends a recording faster than real time is read on (its pings answered, its sends not
blocked), and what a session holds for its client stays bounded. The socket here is a
stand-in that hands out messages as fast as they are asked for."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import pytest

from soundstage.config import RealtimeSettings, Settings
from soundstage.core.errors import PayloadTooLarge
from soundstage.realtime.live import LiveSession

LIMIT = 64 * 1024


class Sender:
    """A client with `messages` to send, then silent."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages
        self.taken = 0

    async def receive(self) -> dict[str, Any]:
        if self.taken == len(self.messages):
            await asyncio.Event().wait()
        self.taken += 1
        return self.messages[self.taken - 1]


def session_of(sender: Sender, settings: Settings) -> LiveSession[Any, Any]:
    limited = settings.model_copy(update={"realtime": RealtimeSettings(max_backlog_bytes=LIMIT)})
    # Its job's credits are held in full: only the reading is exercised.
    job = SimpleNamespace(credits_reserved=10**9)
    none = cast(Any, None)
    return LiveSession(cast(Any, sender), cast(Any, job), none, limited, none, "test")


async def settle() -> None:
    for _ in range(50):
        await asyncio.sleep(0)


def test_messages_are_read_ahead_up_to_the_backlog_and_no_further(settings: Settings) -> None:
    frame = {"type": "websocket.receive", "bytes": b"\0" * (16 * 1024)}
    sender = Sender([frame] * 10)

    async def run() -> None:
        session = session_of(sender, settings)
        reading = asyncio.ensure_future(session._read())
        try:
            await settle()
            # Four frames fill the 64 KiB: the fifth is not read until the session takes one.
            assert sender.taken == 4
            assert session.received() == frame
            await settle()
            assert sender.taken == 5
            message = await session.receive()
            assert message == frame
            await settle()
            assert sender.taken == 6
            # Taking everything read lets the reader go on to the end of what was sent.
            while session.received() is not None:
                await settle()
            assert sender.taken == 10
            assert session.received() is None
        finally:
            reading.cancel()

    asyncio.run(run())


def test_small_messages_count_as_a_kilobyte_each(settings: Settings) -> None:
    empty = {"type": "websocket.receive", "text": "{}"}
    sender = Sender([empty] * 100)

    async def run() -> None:
        session = session_of(sender, settings)
        reading = asyncio.ensure_future(session._read())
        try:
            await settle()
            assert sender.taken == LIMIT // 1024
        finally:
            reading.cancel()

    asyncio.run(run())


def test_a_message_over_the_message_bound_is_refused_when_taken(settings: Settings) -> None:
    over = {
        "type": "websocket.receive",
        "bytes": b"\0" * (RealtimeSettings().max_message_bytes + 1),
    }
    sender = Sender([over])

    async def run() -> None:
        session = session_of(sender, settings)
        reading = asyncio.ensure_future(session._read())
        try:
            await settle()
            with pytest.raises(PayloadTooLarge):
                session.received()
        finally:
            reading.cancel()

    asyncio.run(run())
