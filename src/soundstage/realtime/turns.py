"""Turns at the cores, shared by the slot processes of one API process: at most `count` pieces
of a session's audio work run at once across every slot. Eight sessions on two cores that all
decode at once each take four times as long, and the final a caller waits for at the end of
its utterance waits behind the others' partials (bench/stt_realtime_capacity.py: end of
utterance to final p50 3.3 s with 8 sessions on 2 cores, against 0.74 s with 3).

Two kinds of work ask for a turn:
- urgent work (a final transcript) waits for one, and is served before optional work;
- optional work (a partial transcript, soon replaced by the next) takes a turn only when one
  is free and no urgent work waits; otherwise it is skipped, and its session asks again with
  its next audio.

The counts live in shared memory the pool makes before it starts its slots; each slot counts
the turns it holds, so that the pool gives back those of a slot process it killed (or that
died) holding one."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.context import SpawnContext
from typing import Any

# How often urgent work looks for a free turn while it waits: a decode lasts 50 ms or more.
_POLL_SECONDS = 0.005


class CoreTurns:
    """The turns of one pool's slots; pickled to each slot process when it starts."""

    def __init__(self, context: SpawnContext, count: int, slots: int) -> None:
        self.count = count
        self._lock: Any = context.Lock()
        # Per slot: turns held, and urgent asks waiting.
        self._held: Any = context.Array("i", slots, lock=False)
        self._waiting: Any = context.Array("i", slots, lock=False)

    def of_slot(self, index: int) -> SlotTurns:
        return SlotTurns(self, index)

    def held(self) -> int:
        with self._lock:
            return sum(self._held)

    def take(self, index: int, *, urgent: bool) -> bool:
        with self._lock:
            if sum(self._held) >= self.count:
                return False
            if not urgent and any(self._waiting):
                return False
            self._held[index] += 1
            return True

    def give_back(self, index: int) -> None:
        with self._lock:
            self._held[index] = max(0, self._held[index] - 1)

    def note_waiting(self, index: int, delta: int) -> None:
        with self._lock:
            self._waiting[index] = max(0, self._waiting[index] + delta)

    def reclaim(self, index: int) -> None:
        """The slot's process is gone: what it held or waited for is free."""
        with self._lock:
            self._held[index] = 0
            self._waiting[index] = 0


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
        """A turn for the block if one is free and no urgent work waits: True; else False
        at once (the work is skipped)."""
        turns, index = self._turns, self._index
        if not turns.take(index, urgent=False):
            yield False
            return
        try:
            yield True
        finally:
            turns.give_back(index)
