"""The batch process beside the slots (realtime.batching): asks from several slot processes
answered together, each its own answer; its turn at the cores taken as a partial takes one;
a batch that fails, an ask replaced, and the process killed (SIGKILL) and started again."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from soundstage.config import Settings
from soundstage.realtime.batching import Answered, BatchClient, BatchLost, BatchProcess
from soundstage.realtime.turns import CoreTurns
from tests.support.realtime_handlers import echo_batch

pytestmark = pytest.mark.services


@pytest.fixture
def turns() -> CoreTurns:
    """One turn at the cores, two slots (0: a slot of the test's; 1: the batch process)."""
    return CoreTurns(multiprocessing.get_context("spawn"), count=1, slots=2)


@pytest.fixture
def batch(settings: Settings, turns: CoreTurns) -> Iterator[BatchProcess]:
    process = BatchProcess(settings, multiprocessing.get_context("spawn"), echo_batch, turns, 1)
    process.ensure()
    yield process
    process.stop()


def asked(client: BatchClient, ask: Any) -> Any:
    """The answer to `ask`, sent once the process listens (it starts in a second or two)."""
    deadline = time.monotonic() + 60
    while not client.submit(ask):
        assert time.monotonic() < deadline, "the batch process never listened"
        time.sleep(0.05)
    answered = client.answer(wait=True)
    assert isinstance(answered, Answered)
    return answered.value


def test_asks_sent_together_are_answered_together_each_its_own(
    batch: BatchProcess, turns: CoreTurns
) -> None:
    first = batch.client()
    asked(first, "warm")  # listening
    assert first.submit({"delay": 2.0})  # a batch runs 2 s: the asks below come meanwhile
    deadline = time.monotonic() + 30
    while turns.held() == 0:  # that batch under way, alone
        assert time.monotonic() < deadline
        time.sleep(0.01)
    clients = [batch.client() for _ in range(4)]  # as 4 slot processes: 4 connections
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(asked, clients, [f"ask {i}" for i in range(4)]))
    assert [a["ask"] for a in answers] == [f"ask {i}" for i in range(4)]
    assert max(a["batch"] for a in answers) >= 2, answers
    assert {a["pid"] for a in answers} == {batch.pid}
    assert first.answer(wait=True) == Answered(
        {"ask": {"delay": 2.0}, "batch": 1, "pid": batch.pid}
    )


def test_a_batch_waits_for_a_turn_at_the_cores(batch: BatchProcess, turns: CoreTurns) -> None:
    client = batch.client()
    asked(client, "warm")
    assert turns.take(0, urgent=True)  # a final in slot 0 holds the only turn
    try:
        assert client.submit("after the final")
        time.sleep(1.0)
        assert client.answer() is None
    finally:
        turns.give_back(0)
    assert client.answer(wait=True) == Answered(
        {"ask": "after the final", "batch": 1, "pid": batch.pid}
    )
    assert turns.held() == 0


def test_a_failed_batch_loses_its_asks_and_the_next_is_served(batch: BatchProcess) -> None:
    client = batch.client()
    asked(client, "warm")
    assert client.submit("fail")
    with pytest.raises(BatchLost, match="asked to fail"):
        client.answer(wait=True)
    assert asked(client, "next")["ask"] == "next"


def test_an_ask_replaced_by_the_next_is_not_taken_for_its_answer(batch: BatchProcess) -> None:
    """A session that ended with an ask in flight: its slot's next session asks anew."""
    client = batch.client()
    asked(client, "warm")
    assert client.submit({"delay": 0.5, "n": 1})
    assert asked(client, {"delay": 0.0, "n": 2})["ask"] == {"delay": 0.0, "n": 2}


def test_a_killed_batch_process_loses_its_asks_and_is_started_again(
    batch: BatchProcess, turns: CoreTurns
) -> None:
    client = batch.client()
    asked(client, "warm")
    first = batch.pid
    assert first is not None
    assert client.submit({"delay": 30})
    deadline = time.monotonic() + 30
    while turns.held() == 0:  # it takes the turn, and runs the batch
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(first, signal.SIGKILL)
    began = time.monotonic()
    with pytest.raises(BatchLost):
        client.answer(wait=True)
    assert time.monotonic() - began < 5  # at once, not after the answer's timeout
    deadline = time.monotonic() + 30
    while turns.held():  # the dead process's turn given back
        assert time.monotonic() < deadline
        time.sleep(0.02)
    again = asked(client, "after")  # refused until it is started again (a second later)
    assert again["ask"] == "after"
    assert again["pid"] == batch.pid != first


def test_its_socket_is_its_own_and_goes_with_it(settings: Settings, turns: CoreTurns) -> None:
    process = BatchProcess(settings, multiprocessing.get_context("spawn"), echo_batch, turns, 1)
    client = process.client()
    socket = Path(client.__getstate__()["_address"])
    assert not socket.parent.exists()  # nothing until it is started
    process.ensure()
    try:
        asked(client, "warm")
        assert socket.parent.stat().st_mode & 0o777 == 0o700
        assert socket.stat().st_mode & 0o777 == 0o600
        # A client without the key is refused; the process goes on serving.
        assert not BatchClient(str(socket), b"not the key").submit("intruder")
        assert asked(client, "still")["ask"] == "still"
    finally:
        process.stop()
    assert not socket.parent.exists()


def test_its_blas_threads_are_a_slots_share(
    settings: Settings, turns: CoreTurns, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a slot's (realtime.threads): one thread, whatever numpy would start (here: 4, as the
    environment the process is spawned with says)."""
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    stt = settings.stt.model_copy(update={"cpu_threads": 1})
    tts = settings.tts.model_copy(update={"cpu_threads": 1})
    settings = settings.model_copy(update={"stt": stt, "tts": tts})
    process = BatchProcess(settings, multiprocessing.get_context("spawn"), echo_batch, turns, 1)
    process.ensure()
    try:
        assert asked(process.client(), "blas threads") == [1]
    finally:
        process.stop()
