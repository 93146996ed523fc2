"""Slot processes: each realtime session holds one process for its whole life, and its
handler (a feature's SessionHandler) lives there with its state (buffers, VAD state,
models loaded once per process). Messages go to the handler one at a time; its outputs come
back as soon as each is ready. The pool knows no feature: a session is opened with its
feature's factory, a top-level function (sent to the slot process by reference, as pickle
sends functions), and the opening's typed model (a pydantic model, pickled as it is:
validated once, on the API side). Messages and outputs cross as the feature's own types.
Beside the slots, a pool given a batch function runs a batch process (realtime.batching) for
the work its sessions ask at about the same time."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any, Protocol, TypeVar

from soundstage.config import Settings
from soundstage.core.errors import AppError, InternalError
from soundstage.realtime.batching import BatchClient, BatchFunction, BatchProcess
from soundstage.realtime.errors import RealtimeBusy, SessionLost, TooManySessions
from soundstage.realtime.threads import hold_to_share
from soundstage.realtime.turns import CoreTurns, SlotTurns

log = logging.getLogger("soundstage.realtime")

# A slot whose handler does not give its last call back within this long after its session
# ended (a runaway synthesis) is killed and replaced, so it cannot hold the slot.
_RECYCLE_TIMEOUT_SECONDS = 30.0
# How long a new session waits for a slot whose session just ended (its last call running),
# and for one of its account's sessions to end when the account holds as many as it may: a
# client that drops a session and opens the next at once (a reconnect) comes while the server
# still ends the first (a transcription's last final decoded), and is served, not refused.
_RECYCLE_WAIT_SECONDS = 5.0


In = TypeVar("In", contravariant=True)
Out = TypeVar("Out", covariant=True)
Params = TypeVar("Params")


class SessionHandler(Protocol[In, Out]):
    """A session's work, in its slot process: it takes `In` messages and gives `Out`s."""

    def handle(self, message: In) -> Iterator[Out]:
        """Take one client message; yield what to send back, each as soon as it is ready."""

    def close(self) -> Iterator[Out]:
        """The session ends: finish what is buffered; yield the rest."""


@dataclass(frozen=True)
class SlotShare:
    """What a slot's session shares with the other slots: turns at the cores, which its own
    audio work asks before it runs (realtime.turns), and the pool's batch process, which
    does work for several sessions at once (realtime.batching; None: the pool has none)."""

    turns: SlotTurns
    batch: BatchClient | None


# What a slot opens a session with: a top-level function (pickled by reference) of the
# settings, the session's parameters (a typed model, pickled as it is) and the slot's share.
SessionFactory = Callable[[Settings, Params, SlotShare], SessionHandler[Any, Any]]


def _serve(conn: Connection, settings: Settings, share: SlotShare) -> None:
    """A slot process: one handler at a time, each request answered by its items then
    `done` (or `error`), tagged with the request's number so the parent can skip the
    answers of a session that has gone."""
    # Ctrl-C at a terminal reaches every process of its group: a slot ends when its API
    # process stops it (or is gone: end of file), never with a KeyboardInterrupt of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A spawned process makes its multiprocessing locks as named semaphores, each handed to
    # the resource tracker to unlink at the process's exit, which a slot stopped by SIGKILL
    # never reaches: tqdm's lock (made by faster-whisper's decode) was reported leaked once per
    # transcription session when the server stopped. A slot starts no process, so a lock a
    # library makes here is only ever this process's: fork's kind, unlinked as it is made.
    multiprocessing.set_start_method("fork", force=True)
    hold_to_share(settings)
    handler: SessionHandler[Any, Any] | None = None
    while True:
        try:
            number, op, argument = conn.recv()
        except (EOFError, OSError):  # the API process is gone
            return
        try:
            if op == "open":
                factory, params = argument
                handler = factory(settings, params, share)
            elif op in ("call", "close") and handler is not None:
                outputs = handler.handle(argument) if op == "call" else handler.close()
                for output in outputs:
                    conn.send((number, "item", output))
                if op == "close":
                    handler = None
            elif op == "reset":
                handler = None
            conn.send((number, "done", None))
        except AppError as exc:
            _send_error(conn, number, exc)
        except Exception:
            log.exception("realtime handler failed (%s)", op)
            _send_error(conn, number, InternalError("The session failed; it was logged."))


def _send_error(conn: Connection, number: int, error: AppError) -> None:
    """The error itself goes back (pickled: its class, status, code, message, param)."""
    try:
        conn.send((number, "error", error))
    except Exception:  # an error a feature made unpicklable
        log.exception("realtime handler error could not be sent")
        conn.send((number, "error", InternalError("The session failed; it was logged.")))


class Slot:
    """One slot process, started on first use and again after it dies."""

    def __init__(
        self,
        index: int,
        settings: Settings,
        context: SpawnContext,
        turns: CoreTurns,
        batch: BatchClient | None,
    ) -> None:
        self.index = index
        self._settings = settings
        self._context = context
        self._turns = turns
        self._batch = batch
        self._process: SpawnProcess | None = None
        self._conn: Connection | None = None
        self._reader: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: asyncio.Queue[tuple[int, str, Any]] | None = None
        self._number = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _start(self) -> None:
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return
        self.stop()
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_serve,
            args=(child, self._settings, SlotShare(self._turns.of_slot(self.index), self._batch)),
            name=f"soundstage-realtime-{self.index}",
            daemon=True,
        )
        process.start()
        child.close()
        self._process, self._conn = process, parent
        self._reader = threading.Thread(
            target=self._read, args=(parent,), name=f"realtime-slot-{self.index}", daemon=True
        )
        self._reader.start()

    def _read(self, conn: Connection) -> None:
        """Hands each answer to the event loop of the session holding the slot."""
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                # The process is gone (killed, crashed or stopped): the turns at the cores it
                # held are free at once, not when the slot next starts a process.
                self._turns.reclaim(self.index)
                self._deliver((0, "lost", None))
                return
            self._deliver(message)

    def _deliver(self, message: tuple[int, str, Any]) -> None:
        loop, inbox = self._loop, self._inbox
        if loop is None or inbox is None:
            return
        with suppress(RuntimeError):  # that loop has closed
            loop.call_soon_threadsafe(inbox.put_nowait, message)

    async def bind(self) -> None:
        """Make the slot answer to the running event loop, starting its process if needed."""
        if self._process is None or not self._process.is_alive():
            await asyncio.to_thread(self._start)
        # A fresh inbox once the process is up: nothing a dead process's reader said reaches
        # this session.
        self._loop = asyncio.get_running_loop()
        self._inbox = asyncio.Queue()

    async def _request(self, op: str, argument: Any) -> AsyncIterator[Any]:
        assert self._conn is not None
        assert self._inbox is not None
        self._number += 1
        number = self._number
        try:
            self._conn.send((number, op, argument))
        except (OSError, ValueError) as exc:
            raise SessionLost("The process serving this session stopped.") from exc
        while True:
            got, kind, payload = await self._inbox.get()
            if kind == "lost":
                raise SessionLost("The process serving this session stopped.")
            if got != number:
                continue  # an answer to a request of a session that has gone
            if kind == "item":
                yield payload
            elif kind == "done":
                return
            else:
                raise payload

    async def open(self, factory: SessionFactory[Params], params: Params) -> None:
        async for _ in self._request("open", (factory, params)):
            pass

    def call(self, message: Any) -> AsyncIterator[Any]:
        return self._request("call", message)

    def close_handler(self) -> AsyncIterator[Any]:
        return self._request("close", None)

    async def reset(self) -> None:
        """Drop the session's handler once its last call is over."""
        async for _ in self._request("reset", None):
            pass

    def stop(self) -> None:
        # The process first: its end of the pipe closes, so the reader thread gets EOF and
        # ends before this end is closed (a descriptor closed under a blocked reader could be
        # reused by another file while it still reads it).
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(5)
            self._process = None
            self._turns.reclaim(self.index)  # the turns a killed (or dead) process held
        if self._reader is not None:
            self._reader.join(5)
            self._reader = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def sharing_cores(settings: Settings) -> Settings:
    """The settings of the slots: the speech models of each get an equal share of the cores
    (at least one thread) where no thread count is set. Every slot running a session at once
    then runs as fast as the cores allow, where a thread per core in each slot would have
    them all contend (measured by bench/stt_realtime_capacity.py)."""
    share = max(1, (os.cpu_count() or 1) // settings.realtime.processes)
    stt, tts = settings.stt, settings.tts
    return settings.model_copy(
        update={
            "stt": stt.model_copy(update={"cpu_threads": stt.cpu_threads or share}),
            "tts": tts.model_copy(update={"cpu_threads": tts.cpu_threads or share}),
        }
    )


def core_turns(settings: Settings) -> int:
    """How many pieces of the slots' audio work run at once: `realtime.core_turns`, by
    default as many as the cores the slots' models share between them."""
    if settings.realtime.core_turns is not None:
        return settings.realtime.core_turns
    threads = sharing_cores(settings).stt.cpu_threads or 1
    return max(1, (os.cpu_count() or 1) // threads)


class SlotPool:
    """The slots of one API process. A session takes a free one or is refused (never
    queued), and an account may hold at most `max_sessions_per_account` of them, and never
    every slot (the slots minus one, when there are several). With a batch function, a batch
    process beside them (realtime.batching), taking turns at the cores as a slot does."""

    def __init__(self, settings: Settings, batch: BatchFunction | None = None) -> None:
        context = multiprocessing.get_context("spawn")
        self._settings = settings
        shared = sharing_cores(settings)
        count = settings.realtime.processes
        self.turns = CoreTurns(context, core_turns(settings), count + 1)
        self.batch = (
            None if batch is None else BatchProcess(shared, context, batch, self.turns, count)
        )
        client = None if self.batch is None else self.batch.client()
        self._slots = [Slot(i, shared, context, self.turns, client) for i in range(count)]
        self._free = list(reversed(self._slots))
        self._held: Counter[tuple[str, str]] = Counter()
        self._recycling: set[asyncio.Task[None]] = set()

    @property
    def free(self) -> int:
        return len(self._free)

    @property
    def per_account(self) -> int:
        """The sessions one account may hold at once here."""
        limit = self._settings.realtime.max_sessions_per_account
        return min(limit, max(1, len(self._slots) - 1))

    def pids(self) -> list[int]:
        """The slot processes' (the batch process's apart)."""
        return [slot.pid for slot in self._slots if slot.pid is not None]

    @asynccontextmanager
    async def hold(self, account: tuple[str, str]) -> AsyncIterator[Slot]:
        """A slot for one session; freed when the session ends, whatever ended it."""
        limit = self.per_account
        deadline = time.monotonic() + _RECYCLE_WAIT_SECONDS
        while self._held[account] >= limit and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if self._held[account] >= limit:
            sessions = "session" if limit == 1 else "sessions"
            raise TooManySessions(
                f"This account already holds {limit} realtime {sessions} on this server, "
                "as many as it may; close one first."
            )
        if not self._free:
            await self._wait_for_recycling()
        if not self._free:
            raise RealtimeBusy(
                "Every realtime slot is taken; retry in a few seconds.",
                headers={"Retry-After": "5"},
            )
        slot = self._free.pop()
        self._held[account] += 1
        try:
            await slot.bind()
            if self.batch is not None:  # started with the first session, again if it died
                await asyncio.to_thread(self.batch.ensure)
            yield slot
        finally:
            self._held[account] -= 1
            task = asyncio.get_running_loop().create_task(self._recycle(slot))
            self._recycling.add(task)
            task.add_done_callback(self._recycling.discard)

    async def _wait_for_recycling(self) -> None:
        """A slot whose session has just ended is free as soon as its last call is over:
        wait for that (at most a few seconds) rather than refuse."""
        deadline = time.monotonic() + _RECYCLE_WAIT_SECONDS
        while not self._free and self._recycling and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    async def _recycle(self, slot: Slot) -> None:
        """The slot is free as soon as its handler is dropped: at once when no call is
        running, else when the running one ends (or the process is replaced)."""
        try:
            await asyncio.wait_for(slot.reset(), _RECYCLE_TIMEOUT_SECONDS)
        except (TimeoutError, AppError):
            log.warning("realtime slot %d replaced: its last call did not end", slot.index)
            await asyncio.to_thread(slot.stop)
        finally:
            self._free.append(slot)

    def close(self) -> None:
        """Stop the slot processes (and the batch process) and give back the turns'
        semaphore (realtime.turns)."""
        for slot in self._slots:
            slot.stop()
        if self.batch is not None:
            self.batch.stop()
        self.turns.close()
