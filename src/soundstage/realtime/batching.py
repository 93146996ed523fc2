"""The batch process of a slot pool: work that many sessions ask at about the same time (a
realtime transcription's partials) done for all of them in one call, where it costs far less
than one call each (engines/transcribers/partials.py: 8 partials in half the time).

A slot's session sends its ask and goes on with its stream; the process takes every ask that
has come, waits for a turn at the cores (realtime.turns: as a partial would, after any final
that waits), runs the pool's batch function once on all of them (a top-level function, sent by
reference as the slots' factories are), and answers each. Asks that come while a batch runs
make the next one: the busier the machine, the larger the batches.

Slots reach it over a Unix socket in a directory of its own (a connection per slot process,
made on its first ask), so that a slot killed while it writes spoils only its own connection,
and a batch process that dies (killed, or a model that crashed it) is started again by the
next session that opens; the asks it had are lost, and their slots ask again."""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from multiprocessing.context import SpawnContext, SpawnProcess
from pathlib import Path
from typing import Any

from soundstage.config import Settings
from soundstage.realtime.threads import hold_to_share
from soundstage.realtime.turns import CoreTurns, SlotTurns

log = logging.getLogger("soundstage.realtime")

# The pool's batch function: (settings, asks) -> one answer per ask, in order. Called once
# with no asks as the process starts, to load what it needs before the first ask comes.
BatchFunction = Callable[[Settings, list[Any]], list[Any]]

# Asks one call takes at most (the rest make the next one): a bound on its memory.
MAX_ASKS = 64
# How often the process looks for a free turn while asks wait.
_POLL_SECONDS = 0.005
# A batch process that died is started again after this long (not at once: one that dies as
# it starts does not take the cores from the sessions).
_RESTART_SECONDS = 1.0
# An ask not answered this long after it was sent is given up (the process is stuck, or
# restarting): the slot asks again, on a new connection.
ANSWER_TIMEOUT_SECONDS = 10.0


class BatchLost(Exception):
    """The ask will get no answer (the batch process failed it, or is gone)."""


@dataclass(frozen=True)
class Answered:
    value: Any


class BatchClient:
    """A slot process's side: one ask in flight at a time; a new ask replaces the one in
    flight (a session that ended with one: the next session's first), whose answer is then
    skipped. Picklable (the socket's address and key); the connection is made in the slot
    process, on its first ask."""

    def __init__(self, address: str, authkey: bytes) -> None:
        self._address = address
        self._authkey = authkey
        self._conn: Connection | None = None
        self._number = 0  # of the last ask sent on the connection
        self._sent_at: float | None = None  # when the ask in flight was sent

    def __getstate__(self) -> dict[str, Any]:
        return {"_address": self._address, "_authkey": self._authkey}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["_address"], state["_authkey"])  # type: ignore[misc]

    def submit(self, ask: Any) -> bool:
        """Send the ask; False when the batch process cannot be reached now (not started yet,
        or gone): nothing was sent."""
        try:
            if self._conn is None:
                self._conn = Client(self._address, family="AF_UNIX", authkey=self._authkey)
            self._number += 1
            self._conn.send((self._number, ask))
        except (OSError, EOFError, AuthenticationError) as exc:
            log.debug("batch process not reached: %s", exc)
            self._drop()
            return False
        self._sent_at = time.monotonic()
        return True

    def answer(self, wait: bool = False) -> Answered | None:
        """The answer to the ask in flight once it has come (waited for, with `wait`), else
        None; BatchLost when it will not come (and no ask is in flight any more)."""
        if self._sent_at is None or self._conn is None:
            raise BatchLost("No ask is in flight.")
        deadline = self._sent_at + ANSWER_TIMEOUT_SECONDS
        try:
            while self._conn.poll(max(0.0, deadline - time.monotonic()) if wait else 0):
                number, failed, value = self._conn.recv()
                if number != self._number:
                    continue  # the answer to an ask replaced since
                self._sent_at = None
                if failed:
                    raise BatchLost(value)
                return Answered(value)
        except (OSError, EOFError) as exc:
            self._drop()
            raise BatchLost("The batch process is gone.") from exc
        if time.monotonic() - self._sent_at > ANSWER_TIMEOUT_SECONDS:
            self._drop()  # a late answer must not be taken for the next ask's
            raise BatchLost("The batch process did not answer in time.")
        return None

    def _drop(self) -> None:
        self._sent_at = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class BatchProcess:
    """The API process's side: the process, started by `ensure` and again a second after it
    dies (its turn at the cores given back then), and the socket's directory, removed by
    `stop`."""

    def __init__(
        self,
        settings: Settings,
        context: SpawnContext,
        function: BatchFunction,
        turns: CoreTurns,
        index: int,
    ) -> None:
        """`index`: its place among the turns' slots (realtime.turns), past the slots'."""
        self._settings = settings
        self._context = context
        self._function = function
        self._turns = turns
        self._index = index
        # Made by the first `ensure`, so that a pool no session reached leaves nothing.
        self._directory = Path(tempfile.gettempdir()) / f"soundstage-batch-{secrets.token_hex(8)}"
        self._address = str(self._directory / "socket")
        self._authkey = secrets.token_bytes(32)
        self._process: SpawnProcess | None = None
        self._lock = threading.Lock()
        self._stopped = threading.Event()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def client(self) -> BatchClient:
        return BatchClient(self._address, self._authkey)

    def ensure(self) -> None:
        """Start the process unless it runs (or is being started again)."""
        with self._lock:
            if self._process is None:
                self._stopped.clear()
                self._start()

    def _start(self) -> None:
        """Start a process (the lock held), and a thread that waits for its end."""
        self._directory.mkdir(mode=0o700, exist_ok=True)
        Path(self._address).unlink(missing_ok=True)
        process = self._context.Process(
            target=_serve,
            args=(
                self._address,
                self._authkey,
                self._settings,
                self._function,
                self._turns.of_slot(self._index),
            ),
            name="soundstage-realtime-batch",
            daemon=True,
        )
        process.start()
        self._process = process
        threading.Thread(
            target=self._watch, args=(process,), name="realtime-batch", daemon=True
        ).start()

    def _watch(self, process: SpawnProcess) -> None:
        process.join()
        with self._lock:
            if self._process is not process:  # stopped
                return
            self._turns.reclaim(self._index)  # what the dead process held
        log.warning("realtime batch process ended (exit code %s)", process.exitcode)
        if self._stopped.wait(_RESTART_SECONDS):
            return
        with self._lock:
            if self._process is process:
                self._start()

    def stop(self) -> None:
        with self._lock:
            self._stopped.set()
            process, self._process = self._process, None
            if process is not None:
                if process.is_alive():
                    process.kill()
                process.join(5)
                self._turns.reclaim(self._index)
        shutil.rmtree(self._directory, ignore_errors=True)


def _serve(
    address: str, authkey: bytes, settings: Settings, function: BatchFunction, turns: SlotTurns
) -> None:
    """The batch process: connections accepted and read on threads of their own, asks run in
    batches on this one."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # stopped by its API process only
    hold_to_share(settings)
    listener = Listener(address, family="AF_UNIX", authkey=authkey)
    os.chmod(address, 0o600)
    inbox: queue.Queue[tuple[Connection, Any]] = queue.Queue()
    threading.Thread(target=_accept, args=(listener, inbox), daemon=True).start()
    _run(function, settings, [])
    while True:
        asks = [inbox.get()]
        _drain(inbox, asks)
        while True:
            with turns.optional() as granted:
                if granted:
                    answers = _run(function, settings, [ask for _, (_, ask) in asks])
                    break
            time.sleep(_POLL_SECONDS)
            _drain(inbox, asks)
        for (conn, (number, _)), (failed, value) in zip(asks, answers, strict=True):
            with contextlib.suppress(OSError):  # its slot is gone
                conn.send((number, failed, value))


def _run(function: BatchFunction, settings: Settings, asks: list[Any]) -> list[tuple[bool, Any]]:
    """(failed, value) for each ask."""
    try:
        values = function(settings, asks)
    except Exception as exc:
        log.exception("realtime batch failed")
        return [(True, f"The batch failed: {exc}")] * len(asks)
    return [(False, value) for value in values]


def _drain(inbox: queue.Queue[tuple[Connection, Any]], asks: list[tuple[Connection, Any]]) -> None:
    while len(asks) < MAX_ASKS:
        try:
            asks.append(inbox.get_nowait())
        except queue.Empty:
            return


def _accept(listener: Listener, inbox: queue.Queue[tuple[Connection, Any]]) -> None:
    while True:
        try:
            conn = listener.accept()
        except (OSError, EOFError, AuthenticationError):  # a client that failed the handshake
            continue
        threading.Thread(target=_read, args=(conn, inbox), daemon=True).start()


def _read(conn: Connection, inbox: queue.Queue[tuple[Connection, Any]]) -> None:
    """One slot's asks, in order, until its process closes the connection (or dies)."""
    while True:
        try:
            ask = conn.recv()
        except (EOFError, OSError):
            conn.close()
            return
        inbox.put((conn, ask))
