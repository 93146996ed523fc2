"""The model cache: one load per process however many threads ask first, failures not kept,
clearing and warming, and a forked child that never uses its parent's models."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import soundstage
from soundstage.engines.cache import MODELS, ModelCache, warm


class Loads:
    """A loader that counts its calls and takes a while, as a model does."""

    def __init__(self, seconds: float = 0.05) -> None:
        self.seconds = seconds
        self.calls = 0

    def __call__(self) -> object:
        self.calls += 1
        time.sleep(self.seconds)
        return object()


def test_concurrent_first_calls_load_once_and_share_the_model() -> None:
    cache = ModelCache()
    load = Loads()
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(cache.get("test model", "m", load)))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert load.calls == 1
    assert len(got) == 8
    assert all(model is got[0] for model in got)
    assert cache.get("test model", "m", load) is got[0]
    assert cache.loaded() == [("test model", "m")]


def test_different_models_load_side_by_side() -> None:
    cache = ModelCache()
    loads = [Loads(0.3) for _ in range(4)]
    threads = [
        threading.Thread(target=cache.get, args=("test model", str(i), load))
        for i, load in enumerate(loads)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [load.calls for load in loads] == [1, 1, 1, 1]
    assert time.monotonic() - started < 1.0  # not 4 x 0.3 s one after the other


def test_a_failed_load_is_not_kept() -> None:
    cache = ModelCache()
    attempts: list[int] = []

    def flaky() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("model.bin: busy")
        return "loaded"

    with pytest.raises(OSError, match="busy"):
        cache.get("test model", "flaky", flaky)
    assert cache.loaded() == []
    assert cache.get("test model", "flaky", flaky) == "loaded"


def test_clear_and_discard_make_the_next_call_load_again() -> None:
    cache = ModelCache()
    a, b = Loads(0), Loads(0)
    first = cache.get("kind a", "m", a)
    cache.get("kind b", "m", b)
    cache.clear("kind a")
    assert cache.loaded() == [("kind b", "m")]
    assert cache.get("kind a", "m", a) is not first
    cache.discard("kind b", "m")
    cache.get("kind b", "m", b)
    cache.clear()
    assert cache.loaded() == []
    assert (a.calls, b.calls) == (2, 2)


def test_warm_loads_through_the_getters() -> None:
    load = Loads(0)
    key = ("test model", f"warm-{os.getpid()}-{time.monotonic_ns()}")

    def getter() -> object:
        return MODELS.get(*key, load)

    try:
        warm(getter, getter)
        assert load.calls == 1
        assert key in MODELS.loaded()
        getter()
        assert load.calls == 1
    finally:
        MODELS.discard(*key)


# Run in a fresh interpreter: forking the test process (its xdist and monitor threads, every
# library's at-fork handlers) can hang the child, which is what the cache guards against.
_FORK_SCRIPT = """
import multiprocessing
from soundstage.engines.cache import ModelCache

cache = ModelCache()
parents = cache.get("test model", "m", object)


def child(answers):
    kept = cache.loaded() != [] or cache.get("test model", "m", object) is parents
    answers.put("kept" if kept else "fresh")


context = multiprocessing.get_context("fork")  # as Huey forks its job processes
answers = context.Queue()
process = context.Process(target=child, args=(answers,))
process.start()
print(answers.get(timeout=60))
process.join(60)
print("parent kept" if cache.get("test model", "m", object) is parents else "parent lost")
"""


def test_a_forked_child_loads_its_own_model() -> None:
    src = Path(soundstage.__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", _FORK_SCRIPT],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.split("\n")[:2] == ["fresh", "parent kept"], done.stderr


def test_names_asked_for_once_leave_nothing_behind() -> None:
    cache = ModelCache()

    def unknown() -> object:
        raise LookupError("no such model")

    for index in range(100):
        with pytest.raises(LookupError):
            cache.get("test model", f"nope-{index}", unknown)
    cache.get("test model", "m", object)
    cache.discard("test model", "m")
    assert cache._loading == {}
