"""Turns at the cores shared by the slot processes (realtime.turns): no more work at once than
the turns, urgent work (a final) served before optional work (a partial), which is skipped
rather than queued, and the turns of a slot process killed while it held one given back."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import threading
import time

import pytest

from soundstage.config import RealtimeSettings, Settings
from soundstage.realtime.slots import SlotPool, core_turns
from soundstage.realtime.turns import CoreTurns
from tests.support.realtime_handlers import open_shouter

pytestmark = pytest.mark.services


def turns_of(count: int, slots: int, want_lapses_seconds: float = 60.0) -> CoreTurns:
    """Turns whose wants lapse after a minute unless told: a test's slots keep their place
    in line however slowly the test runs."""
    context = multiprocessing.get_context("spawn")
    return CoreTurns(context, count=count, slots=slots, want_lapses_seconds=want_lapses_seconds)


def test_no_more_work_runs_at_once_than_the_turns() -> None:
    turns = turns_of(count=2, slots=3)
    first, second, third = (turns.of_slot(i) for i in range(3))
    with first.optional() as a, second.optional() as b:
        assert a
        assert b
        with third.optional() as c:
            assert not c  # both turns taken: skipped at once, not queued
        assert turns.held() == 2
    with third.optional() as c:
        assert c
    assert turns.held() == 0


def test_urgent_work_waits_for_a_turn_and_goes_before_optional_work() -> None:
    turns = turns_of(count=1, slots=3)
    partial, final, other = (turns.of_slot(i) for i in range(3))
    served: list[str] = []
    waiting = threading.Event()

    def finish() -> None:
        waiting.set()
        with final.urgent():
            served.append("final")

    with partial.optional() as granted:
        assert granted
        thread = threading.Thread(target=finish)
        thread.start()
        waiting.wait(5)
        time.sleep(0.2)  # the final is waiting by now (it polls every 5 ms)
        assert served == []  # the only turn is the partial's
        with other.optional() as granted_too:
            assert not granted_too  # a final waits: no partial goes before it
        served.append("partial")
    thread.join(5)
    assert served == ["partial", "final"]
    with other.optional() as granted:
        assert granted
    assert turns.held() == 0


def test_a_free_turn_goes_to_the_slot_that_has_wanted_one_longest() -> None:
    turns = turns_of(count=1, slots=3)
    holder, first, second = (turns.of_slot(i) for i in range(3))
    with holder.optional() as held:
        assert held
        with first.optional() as granted:
            assert not granted  # in line from now
        time.sleep(0.01)
        with second.optional() as granted:
            assert not granted  # in line after the first
    with second.optional() as granted:
        assert not granted  # the turn is free, but the first still wants it
    with first.optional() as granted:
        assert granted
    with second.optional() as granted:
        assert granted


def test_a_want_lapses_once_its_slot_stops_asking() -> None:
    turns = turns_of(count=1, slots=3, want_lapses_seconds=0.05)
    holder, first, second = (turns.of_slot(i) for i in range(3))
    with holder.optional() as held:
        assert held
        with first.optional() as granted:
            assert not granted
    time.sleep(0.2)  # the first asks no more (its utterance ended): it holds no place
    with second.optional() as granted:
        assert granted


def test_the_default_turns_are_the_cores_over_each_slots_threads() -> None:
    cores = os.cpu_count() or 1
    assert core_turns(Settings(realtime=RealtimeSettings(processes=cores))) == cores
    assert core_turns(Settings(realtime=RealtimeSettings(processes=3, core_turns=5))) == 5


def test_a_slot_process_killed_while_holding_a_turn_gives_it_back(settings: Settings) -> None:
    realtime = RealtimeSettings(processes=2, core_turns=1)
    pool = SlotPool(settings.model_copy(update={"realtime": realtime}))

    async def scenario() -> None:
        async with pool.hold(("acct_turns", "sandbox")) as slot:
            await slot.open(open_shouter, {})
            calls = slot.call("hold a turn")
            said = await anext(calls)
            assert said["holding"]
            assert pool.turns.held() == 1
            os.kill(said["pid"], signal.SIGKILL)
            deadline = time.monotonic() + 10
            while pool.turns.held() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert pool.turns.held() == 0

    try:
        asyncio.run(scenario())
    finally:
        pool.close()
