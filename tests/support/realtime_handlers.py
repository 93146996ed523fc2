"""A session handler for the realtime core's tests, run in a slot process: it upper-cases
each word of a message, one output per word, after an optional delay."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from typing import Any

from threadpoolctl import threadpool_info

from soundstage.config import Settings
from soundstage.core.errors import InvalidField
from soundstage.realtime.slots import SlotShare
from soundstage.realtime.turns import SlotTurns

# Locks made as a library makes them (tqdm, in faster-whisper's decode): kept for the life of
# the process.
_LIBRARY_LOCKS: list[Any] = []


class Shouter:
    def __init__(self, delay: float, turns: SlotTurns) -> None:
        self.delay = delay
        self.turns = turns
        self.words = 0

    def handle(self, message: Any) -> Iterator[Any]:
        if message == "hold a turn":  # says so once it holds it, and keeps it a minute
            with self.turns.urgent():
                yield {"holding": True, "pid": os.getpid()}
                time.sleep(60)
            return
        if message == "invalid":
            raise InvalidField("That word is not allowed.", param="text")
        if message == "make a lock":  # as tqdm does: multiprocessing's default context
            _LIBRARY_LOCKS.append(multiprocessing.RLock())
            yield {"locks": len(_LIBRARY_LOCKS)}
            return
        if message == "blas threads":  # the threads of each BLAS pool loaded here
            yield {"blas": blas_threads()}
            return
        if message == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(self.delay)
        for word in str(message).split():
            self.words += 1
            yield {"word": word.upper(), "pid": os.getpid()}

    def close(self) -> Iterator[Any]:
        yield {"words": self.words}


def open_shouter(settings: Settings, params: dict[str, Any], share: SlotShare) -> Shouter:
    return Shouter(float(params.get("delay", 0.0)), share.turns)


def echo_batch(settings: Settings, asks: list[Any]) -> list[Any]:
    """A batch process's function for the tests (realtime.batching): each ask back with the
    size of its batch and the process's id, after `delay` seconds (the ask's, if a dict says
    so; else 0.3 s, so that asks sent meanwhile make the next batch). "fail" fails the
    batch; "blas threads" has each answer be the threads of this process's BLAS pools."""
    if not asks:
        return []
    if "fail" in asks:
        raise RuntimeError("asked to fail")
    delays = [ask.get("delay", 0.3) for ask in asks if isinstance(ask, dict)]
    time.sleep(max(delays, default=0.3))
    if "blas threads" in asks:  # the threads of each BLAS pool loaded here
        return [blas_threads() for _ in asks]
    return [{"ask": ask, "batch": len(asks), "pid": os.getpid()} for ask in asks]


def blas_threads() -> list[int]:
    """The threads of each BLAS pool loaded in this process (numpy's OpenBLAS at least)."""
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
