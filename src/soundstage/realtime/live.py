"""A realtime session on the API side: its slot, its job record (processing under this
process's lease, renewed while it lasts), its credits (reserved in blocks as its use grows,
at least a minimum per started minute it is open, captured once when it ends, however it
ends), its key (checked while it lasts: revoking it ends the session), and the client's
messages read within the idle timeout and the session's longest length. A session's kind is
a live job's (`register_lost_kind`): a worker fails one whose API process died."""

from __future__ import annotations

import asyncio
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

import anyio
from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from soundstage.accounts import service as accounts
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import (
    AppError,
    AuthenticationError,
    InsufficientCredits,
    PayloadTooLarge,
)
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.jobs import live as live_jobs
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest, JobResult
from soundstage.models import Job
from soundstage.realtime.errors import SessionLost, SessionTimeout
from soundstage.realtime.slots import SessionHandler, Slot, SlotPool, SlotShare

log = logging.getLogger("soundstage.realtime")

# What a session's handler takes and gives (its SessionHandler's), and is opened with.
In = TypeVar("In")
Out = TypeVar("Out")
Params = TypeVar("Params")


@dataclass
class LiveSession(Generic[In, Out]):
    """What a feature drives once the session is open: `receive` the client's messages
    (read from the socket from then on by the session itself), `stream` each through the
    handler (`In` in, `Out`s back), `cover` the credits its use has reached before delivering
    it, and set `used` (what its use came to) and `result` (the job's result). At the end
    `captured` is what was charged: `used`, or the minimum for the minutes the session was
    open when that is more."""

    websocket: WebSocket
    job: Job
    slot: Slot
    settings: Settings
    db: Database
    owner: str
    started: float = field(default_factory=time.monotonic)
    used: int = 0
    result: dict[str, Any] = field(default_factory=dict)
    captured: int = 0
    # Set once the handler is open: the session's minutes count from then.
    opened_at: datetime | None = None
    _block: int = 0
    # The client's messages read ahead of the session, and their size (`_backlog`).
    _inbox: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    _backlog: int = 0
    _drained: asyncio.Event = field(default_factory=asyncio.Event)
    _gone: asyncio.Event = field(default_factory=asyncio.Event)
    # Set when the server ends the session (its key revoked), with the error to end it with.
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _stop_error: AppError | None = None

    @property
    def job_id(self) -> str:
        return self.job.id

    async def stream(self, message: In) -> AsyncIterator[Out]:
        """The handler's outputs for `message`, each as soon as it is ready; stops with
        WebSocketDisconnect as soon as the client leaves (the slot is then freed once this
        call is over, without waiting to deliver its outputs)."""
        async for output in self._unless_gone(self.slot.call(message)):
            yield output

    async def finish(self) -> AsyncIterator[Out]:
        """The handler's last outputs (what it still buffers) as the session ends."""
        async for output in self._unless_gone(self.slot.close_handler()):
            yield output

    async def _unless_gone(self, outputs: AsyncIterator[Any]) -> AsyncIterator[Out]:
        gone = asyncio.ensure_future(self._gone.wait())
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            while True:
                step = asyncio.ensure_future(anext(outputs))
                await asyncio.wait({step, gone, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if not step.done():
                    step.cancel()
                    if self._stop_error is not None:
                        raise self._stop_error
                    raise WebSocketDisconnect(1001, "the client left")
                try:
                    yield step.result()
                except StopAsyncIteration:
                    return
        finally:
            gone.cancel()
            stopped.cancel()

    def stop(self, error: AppError) -> None:
        """End the session from outside its endpoint (its key was revoked): what it waits
        for (the client's next message, the handler's next output) raises `error`."""
        self._stop_error = error
        self._stopped.set()

    def minimum(self) -> int:
        """What the session costs at least so far: the minimum per started minute since it
        opened (0 before its handler is open)."""
        if self.opened_at is None:
            return 0
        per_minute = self.settings.realtime.minimum_credits_per_minute
        seconds = (utcnow() - self.opened_at).total_seconds()
        return per_minute * max(1, math.ceil(seconds / 60))

    async def cover(self, credits: int) -> None:
        """Make sure `credits` (and the minimum of the minutes started so far) are held,
        reserving more blocks if needed (402 when the balance cannot cover them: end the
        session then)."""
        missing = max(credits, self.minimum()) - self.job.credits_reserved
        if missing <= 0:
            return
        more = -(-missing // self._block) * self._block if self._block else missing

        def grow() -> None:
            with self.db.session() as session:
                live_jobs.grow(session, self.settings, self.job, self.owner, more)

        await run_in_threadpool(grow)

    async def receive(self) -> dict[str, Any]:
        """The client's next message (`{"text": ...}` or `{"bytes": ...}`), within the idle
        timeout and the session's longest length (SessionTimeout), at most
        `realtime.max_message_bytes` (PayloadTooLarge); WebSocketDisconnect when it left."""
        limits = self.settings.realtime
        left = limits.max_session_seconds - (time.monotonic() - self.started)
        timeout = min(limits.idle_timeout_seconds, left)
        if timeout <= 0:
            raise SessionTimeout(
                f"The session reached its longest length, {limits.max_session_seconds:g} s."
            )
        # Each minute the session is open costs at least the minimum: held before it goes on
        # (a client keeping a session open with empty messages pays for it).
        await self.cover(self.used)
        try:
            message = await self._next_message(timeout)
        except TimeoutError:
            if timeout < limits.idle_timeout_seconds:
                raise SessionTimeout(
                    f"The session reached its longest length, {limits.max_session_seconds:g} s."
                ) from None
            raise SessionTimeout(
                f"No message for {limits.idle_timeout_seconds:g} s: the session was closed."
            ) from None
        return self._checked(message)

    def received(self) -> dict[str, Any] | None:
        """The client's next message if it is already read (checked as `receive` checks it),
        else None at once: a session behind its client takes what is waiting together."""
        if self._inbox.empty():
            return None
        return self._checked(self._taken(self._inbox.get_nowait()))

    def _checked(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
        size = _size(message)
        limit = self.settings.realtime.max_message_bytes
        if size > limit:
            raise PayloadTooLarge(
                f"A message may hold at most {limit} bytes; this one held {size}."
            )
        return message

    def _taken(self, message: dict[str, Any]) -> dict[str, Any]:
        self._backlog -= _weight(message)
        self._drained.set()
        return message

    async def _next_message(self, timeout: float) -> dict[str, Any]:
        """The next message read (queued ones first), unless the session is stopped first
        (its error raised) or `timeout` passes (TimeoutError)."""
        if not self._inbox.empty():
            return self._taken(self._inbox.get_nowait())
        got = asyncio.ensure_future(self._inbox.get())
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            await asyncio.wait({got, stopped}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
        if got.done():
            return self._taken(got.result())
        got.cancel()
        if self._stop_error is not None:
            raise self._stop_error
        raise TimeoutError

    async def _read(self) -> None:
        """Reads the client's messages as they come, up to `realtime.max_backlog_bytes` ahead
        of the session, and notices at once when the client leaves. A client sending faster
        than the session works (a file sent whole) is read on, so its pings are answered and
        its sends never block while it has messages to read; only past the backlog is it held
        back by TCP."""
        limit = self.settings.realtime.max_backlog_bytes
        while True:
            while self._backlog >= limit:
                self._drained.clear()
                await self._drained.wait()
            message = dict(await self.websocket.receive())
            self._backlog += _weight(message)
            self._inbox.put_nowait(message)
            if message["type"] == "websocket.disconnect":
                self._gone.set()
                return


def _size(message: dict[str, Any]) -> int:
    return len(message.get("bytes") or b"") + len((message.get("text") or "").encode())


def _weight(message: dict[str, Any]) -> int:
    """What a message read ahead counts against the backlog: its size, and at least a
    kilobyte, so that a flood of empty messages is bounded too."""
    return max(_size(message), 1024)


def _owner() -> str:
    return f"realtime:{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@asynccontextmanager
async def session(
    websocket: WebSocket,
    principal: Principal,
    *,
    kind: str,
    factory: Callable[[Settings, Params, SlotShare], SessionHandler[In, Out]],
    params: Params,
    request: dict[str, Any],
    block_credits: int,
) -> AsyncIterator[LiveSession[In, Out]]:
    """Open a session: a free slot (else RealtimeBusy / TooManySessions), its job recorded
    with `block_credits` reserved (else 402, nothing charged), the handler made by `factory`
    with `params` in the slot (the opening's model as the endpoint validated it, pickled as
    it is). On exit, whatever ended it (the client leaving included), `used` is captured,
    the job ends (failed when an AppError ended it) and the slot is freed."""
    db: Database = websocket.app.state.db
    settings: Settings = websocket.app.state.settings
    pool: SlotPool = websocket.app.state.realtime_pool
    owner = _owner()
    lease = settings.jobs.lease_seconds

    async with pool.hold((principal.account_id, principal.environment)) as slot:

        def start() -> Job:
            with db.session() as unit:
                return live_jobs.start(
                    unit,
                    settings,
                    principal,
                    kind,
                    request,
                    # The first block, and at least the first minute's minimum.
                    credits_needed=max(block_credits, settings.realtime.minimum_credits_per_minute),
                    owner=owner,
                    lease_seconds=lease,
                )

        job = await run_in_threadpool(start)
        live: LiveSession[In, Out] = LiveSession(
            websocket, job, slot, settings, db, owner, _block=block_credits
        )
        loop = asyncio.get_running_loop()
        tasks = [
            loop.create_task(_renew(db, job.id, owner, settings)),
            loop.create_task(live._read()),
            loop.create_task(_watch_key(live, principal)),
        ]
        error: AppError | None = None
        try:
            await slot.open(factory, params)
            live.opened_at = utcnow()
            yield live
        except AppError as exc:
            error = exc
            raise
        finally:
            for task in tasks:
                task.cancel()
            # Charged and ended even when the endpoint is being cancelled (the server
            # stopping, the client gone): what was delivered is always captured.
            with anyio.CancelScope(shield=True):
                await asyncio.gather(*tasks, return_exceptions=True)
                await run_in_threadpool(_end, live, error)


def _end(live: LiveSession[Any, Any], error: AppError | None) -> None:
    used = live.used
    if used > live.job.credits_reserved:
        held = live.job.credits_reserved
        log.error("realtime job %s used %d credits, held %d", live.job.id, used, held)
        used = held
    live.captured = _with_minimum(live, used, error)
    with live.db.session() as unit:
        live_jobs.finish(
            unit,
            live.settings,
            live.job,
            live.owner,
            credits_used=live.captured,
            result=live.result,
            error=error,
        )


def _with_minimum(live: LiveSession[Any, Any], used: int, error: AppError | None) -> int:
    """What the session is charged: its use, or the minimum for the minutes it was open when
    that is more (held first; what the balance cannot hold is not charged). A session that
    failed on the server's side (5xx) is charged its use only."""
    if error is not None and error.status >= 500:
        return used
    charged = max(used, live.minimum())
    shortfall = charged - live.job.credits_reserved
    if shortfall > 0:
        try:
            with live.db.session() as unit:
                live_jobs.grow(unit, live.settings, live.job, live.owner, shortfall)
        except InsufficientCredits:
            return live.job.credits_reserved
    return charged


async def _watch_key(live: LiveSession[Any, Any], principal: Principal) -> None:
    """Ends the session (401 `api_key_revoked`) once its key is revoked."""

    def check() -> None:
        with live.db.read_session() as unit:
            accounts.principal_of_key(unit, principal.api_key_id)

    while True:
        await asyncio.sleep(live.settings.realtime.key_check_seconds)
        try:
            await run_in_threadpool(check)
        except AuthenticationError as exc:
            live.stop(exc)
            return
        except Exception:  # the database is down: the next check tries again
            log.warning("realtime job %s: key not checked", live.job.id, exc_info=True)


async def _renew(db: Database, job_id: str, owner: str, settings: Settings) -> None:
    def renew() -> None:
        with db.session() as unit:
            live_jobs.renew(unit, job_id, owner, settings.jobs.lease_seconds)

    while True:
        await asyncio.sleep(settings.jobs.heartbeat_seconds)
        try:
            await run_in_threadpool(renew)
        except Exception:  # the database is down: the next beat tries again
            log.warning("realtime job %s: lease not renewed", job_id, exc_info=True)


def register_lost_kind(kind: str) -> None:
    """Declare `kind` a realtime session's job kind (a live job's, jobs.live): a worker given
    one (the API process running its session died) fails it, `session_lost`, uncharged."""
    live_jobs.declare(kind, _lost)


def _lost(ctx: JobContext[JobRequest]) -> JobOutcome[JobResult]:
    raise SessionLost(
        "The process serving this session stopped before the session ended; nothing was charged."
    )
