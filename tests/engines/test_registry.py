"""The engine registry: one instance per process, created once under concurrent first calls,
typed errors for unknown names and engines that cannot run here."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from soundstage.core.errors import AppError
from soundstage.engines.cache import ModelCache
from soundstage.engines.registry import Registry


class Unknown(AppError):
    status = 422
    code = "unknown"


class Unavailable(AppError):
    status = 503
    code = "unavailable"


def _registry(**factories: Callable[[], object]) -> Registry[object]:
    # A cache of its own: the registries of these tests share names.
    return Registry(
        "test engine", factories, unknown=Unknown, unavailable=Unavailable, cache=ModelCache()
    )


def test_concurrent_first_calls_create_one_instance() -> None:
    made: list[object] = []

    def slow() -> object:
        time.sleep(0.05)
        made.append(object())
        return made[-1]

    registry = _registry(slow=slow)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(registry.get("slow"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert all(instance is made[0] for instance in got)


def test_an_unknown_name_and_a_missing_package_raise_their_errors() -> None:
    def missing() -> object:
        raise ImportError("No module named 'gpu_model'")

    def unreadable() -> object:
        raise OSError("model.bin: permission denied")

    registry = _registry(missing=missing, unreadable=unreadable)
    with pytest.raises(Unknown, match="no test engine named 'nope'"):
        registry.get("nope")
    with pytest.raises(Unavailable, match="missing test engine is not installed"):
        registry.get("missing")
    with pytest.raises(Unavailable, match="could not be loaded"):
        registry.get("unreadable")


def test_a_failure_is_not_remembered_and_register_replaces() -> None:
    attempts: list[int] = []

    def flaky() -> object:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("busy")
        return "loaded"

    registry = _registry(a=lambda: "a", flaky=flaky)
    with pytest.raises(Unavailable):
        registry.get("flaky")
    assert registry.get("flaky") == "loaded"
    # Replacing keeps the place (the order is the order of preference); first moves ahead.
    registry.register("a", lambda: "a2")
    assert registry.names() == ["a", "flaky"]
    assert registry.get("a") == "a2"
    registry.register("b", lambda: "b", first=True)
    registry.register("c", lambda: "c")
    assert registry.names() == ["b", "a", "flaky", "c"]
    registry.unregister("b")
    assert registry.names() == ["a", "flaky", "c"]
