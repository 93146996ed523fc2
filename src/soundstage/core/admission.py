"""Admission control: an API process works on at most `server.max_active_requests` requests
at once. One more waits for a turn, in order of arrival, at most `admission_wait_seconds`
(and at most `max_waiting_requests` of them wait); past that it is refused at once with 503
`overloaded` and `Retry-After`, before anything is done for it. A burst therefore costs the
clients beyond capacity a quick refusal, never a hang, and the process never takes on more
than it can finish promptly.

A request stops counting once it only waits: when its response starts (a download, a stream
relayed) or when it waits for its job or for other servers (`step_aside`, called by
jobs.service.wait and jobs.inputs.in_fetch_thread). It never
waits for a turn again, so work already done is never refused. WebSockets (realtime slots
bound those) and the probes (which must answer whatever the load) are not admitted here.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from soundstage.config import ServerSettings
from soundstage.core.errors import Overloaded
from soundstage.core.responses import error_response


class _Turns:
    """The turns of one event loop: `active` requests at work, the rest waiting in order."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self.waiters: deque[asyncio.Future[None]] = deque()

    async def take(self, max_waiting: int, wait_seconds: float) -> bool:
        if self.active < self.limit and not self.waiters:
            self.active += 1
            return True
        if len(self.waiters) >= max_waiting:
            return False
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(turn)
        try:
            async with asyncio.timeout(wait_seconds):
                await turn
        except TimeoutError:
            self._withdraw(turn)
            return False
        except asyncio.CancelledError:  # the client went away while it waited
            self._withdraw(turn)
            raise
        return True

    def _withdraw(self, turn: asyncio.Future[None]) -> None:
        if turn.done() and not turn.cancelled():
            self.give_back()  # handed over just as the wait ended: passed on, unused
        elif turn in self.waiters:  # (a turn given back meanwhile skipped it already)
            self.waiters.remove(turn)

    def give_back(self) -> None:
        """End a turn: hand it to the first request still waiting, or free it."""
        while self.waiters:
            turn = self.waiters.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.active -= 1


class Ticket:
    """A request's turn; given back once (at the response's start, when the request steps
    aside, or at its end)."""

    def __init__(self, turns: _Turns) -> None:
        self._turns: _Turns | None = turns

    def give_back(self) -> None:
        if self._turns is not None:
            self._turns.give_back()
            self._turns = None


_ticket: ContextVar[Ticket | None] = ContextVar("soundstage_admission_ticket", default=None)


def step_aside() -> None:
    """The current request now only waits (for its job): it stops counting against the
    process's active requests. Nothing happens outside an admitted request."""
    ticket = _ticket.get()
    if ticket is not None:
        ticket.give_back()


class AdmissionMiddleware:
    """Admits HTTP requests (paths in `exempt` excepted) per the `server` settings."""

    def __init__(self, app: ASGIApp, *, settings: ServerSettings, exempt: frozenset[str]) -> None:
        self.app = app
        self.settings = settings
        self.exempt = exempt
        # Futures belong to the loop that made them: one set of turns per event loop (a
        # server has one; tests may run several apps' loops in one process).
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Turns] = (
            weakref.WeakKeyDictionary()
        )

    def turns(self) -> _Turns:
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None:
            turns = self._turns[loop] = _Turns(self.settings.max_active_requests)
        return turns

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return
        turns = self.turns()
        settings = self.settings
        if not await turns.take(settings.max_waiting_requests, settings.admission_wait_seconds):
            error = Overloaded(
                "The service is at capacity; retry after the Retry-After delay.",
                retry_after_seconds=settings.retry_after_seconds,
            )
            await error_response(error, scope)(scope, receive, send)
            return
        ticket = Ticket(turns)
        token = _ticket.set(ticket)

        async def send_and_step_aside(message: Message) -> None:
            if message["type"] == "http.response.start":
                ticket.give_back()
            await send(message)

        try:
            await self.app(scope, receive, send_and_step_aside)
        finally:
            ticket.give_back()
            _ticket.reset(token)
