"""Turns at the cores, shared by the slot processes of one API process and its batch process
(realtime.batching, which counts as one more slot): at most `count` pieces of the sessions'
audio work run at once across them. Eight sessions on two cores that all
decode at once each take four times as long, and the final a caller waits for at the end of
its utterance waits behind the others' partials (bench/stt_realtime_capacity.py: end of
utterance to final p50 3.3 s with 8 sessions on 2 cores, against 0.74 s with 3).

Two kinds of work ask for a turn:
- urgent work (a final transcript) waits for one, and is served before optional work;
- optional work (partial transcripts, soon replaced by the next: the batch process's batch
  of them, or a slot's own where the pool has no batch process) takes a turn only when one
  is free that no urgent work waits for; otherwise it is skipped (the batch process asks
  again 5 ms later, a slot with its next audio, every frame, 40 ms). Free turns go to those
  that have wanted one longest first, so that no slot's partials starve while others' come.

The counts live in shared memory the pool makes when it starts its first slot; each slot
counts the turns it holds, so that the pool gives back those of a slot process it killed (or
that died) holding one. Their lock is a named semaphore (spawned processes open it by name):
made only then, so that an API process no session reached holds none, and given back by
`close` when the API process stops. A uvicorn worker process ends by the signal that stopped
it, past the interpreter's exit handlers: a semaphore still open then is one the resource
tracker reports leaked."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.context import SpawnContext
from typing import Any

# How often urgent work looks for a free turn while it waits: a decode lasts 50 ms or more.
_POLL_SECONDS = 0.005
# A slot that wants optional work asks again with each audio frame (40 ms): a want not renewed
# for this long is over (its utterance ended, its session closed) and holds no place in line.
_WANT_LAPSES_SECONDS = 0.25


class CoreTurns:
    """The turns of one pool's slots; pickled to each slot process when it starts."""

    def __init__(
        self,
        context: SpawnContext,
        count: int,
        slots: int,
        want_lapses_seconds: float = _WANT_LAPSES_SECONDS,
    ) -> None:
        self.count = count
        self._context = context
        self._slots = slots
        self._want_lapses = want_lapses_seconds
        self._opening = threading.Lock()  # this process's: guards making the shared state
        self._lock: Any = None
        # Per slot: turns held, urgent asks waiting, and since when (and when last) it has
        # asked for optional work in vain (monotonic seconds, the same clock in every process).
        self._held: Any = None
        self._waiting: Any = None
        self._wanting_since: Any = None
        self._asked: Any = None

    def of_slot(self, index: int) -> SlotTurns:
        """The slot's side, handed to its process as it starts (the shared state made now)."""
        with self._opening:
            if self._lock is None:
                context, slots = self._context, self._slots
                self._lock = context.Lock()
                self._held = context.Array("i", slots, lock=False)
                self._waiting = context.Array("i", slots, lock=False)
                self._wanting_since = context.Array("d", slots, lock=False)
                self._asked = context.Array("d", slots, lock=False)
        return SlotTurns(self, index)

    def close(self) -> None:
        """Give the semaphore back now (no slot process runs any more); the next `of_slot`
        makes the shared state again."""
        with self._opening:
            # The last reference: its finalizer unlinks it and tells the resource tracker.
            self._lock = self._held = self._waiting = self._wanting_since = self._asked = None

    def __getstate__(self) -> dict[str, Any]:
        # To a slot process (spawn): the shared state, not this process's own lock.
        return {k: v for k, v in self.__dict__.items() if k not in ("_opening", "_context")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._opening = threading.Lock()

    def held(self) -> int:
        if self._lock is None:
            return 0
        with self._lock:
            return sum(self._held)

    def take(self, index: int, *, urgent: bool) -> bool:
        with self._lock:
            if urgent:
                if sum(self._held) >= self.count:
                    return False
                self._held[index] += 1
                return True
            return self._take_optional(index, time.monotonic())

    def _take_optional(self, index: int, now: float) -> bool:
        """A free turn that no urgent ask waits for, unless as many slots that have wanted
        one longer are still asking (the lock held)."""
        if now - self._asked[index] > self._want_lapses:
            self._wanting_since[index] = now  # a new want: in line from now
        self._asked[index] = now
        free = self.count - sum(self._held) - sum(self._waiting)
        mine = self._wanting_since[index]
        before = sum(
            1
            for other in range(len(self._held))
            if other != index
            and now - self._asked[other] <= self._want_lapses
            and self._wanting_since[other] < mine
        )
        if before >= free:
            return False
        self._held[index] += 1
        self._asked[index] = 0.0  # served: its next want starts a new place in line
        return True

    def give_back(self, index: int) -> None:
        with self._lock:
            self._held[index] = max(0, self._held[index] - 1)

    def note_waiting(self, index: int, delta: int) -> None:
        with self._lock:
            self._waiting[index] = max(0, self._waiting[index] + delta)

    def reclaim(self, index: int) -> None:
        """The slot's process is gone: what it held or waited for is free."""
        with self._opening:
            if self._lock is None:  # closed: nothing is held
                return
            with self._lock:
                self._held[index] = 0
                self._waiting[index] = 0
                self._asked[index] = 0.0


class SlotTurns:
    """One slot's side of the turns: what its session's work asks (engines.transcribers'
    DecodeTurns)."""

    def __init__(self, turns: CoreTurns, index: int) -> None:
        self._turns = turns
        self._index = index

    @contextmanager
    def urgent(self) -> Iterator[None]:
        """Wait for a turn (before any optional work), hold it for the block."""
        turns, index = self._turns, self._index
        if not turns.take(index, urgent=True):
            turns.note_waiting(index, +1)
            try:
                while not turns.take(index, urgent=True):
                    time.sleep(_POLL_SECONDS)
            finally:
                turns.note_waiting(index, -1)
        try:
            yield
        finally:
            turns.give_back(index)

    @contextmanager
    def optional(self) -> Iterator[bool]:
        """A turn for the block if one is free, no urgent work waits for it and no slot that
        has wanted one longer is still asking: True; else False at once (the work is
        skipped, and the slot keeps its place in line while it asks again)."""
        turns, index = self._turns, self._index
        if not turns.take(index, urgent=False):
            yield False
            return
        try:
            yield True
        finally:
            turns.give_back(index)
