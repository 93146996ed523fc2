"""The DeepFilterNet separator's loader thread (which keeps spare models ready) outlives a
failed load: the real model and runtime, with two loads made to fail as one can (out of
memory, say)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from soundstage.engines.separators import deepfilter
from soundstage.engines.separators.base import SeparatorUnavailable
from soundstage.engines.separators.deepfilter import DeepFilterSeparator

pytestmark = pytest.mark.slow


def spares_of(separator: DeepFilterSeparator, count: int, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while len(separator._ready) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(separator._ready)


def test_the_loader_thread_survives_failed_loads(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    separator = DeepFilterSeparator.load()
    assert spares_of(separator, 2) == 2
    # The next two loads fail (as a load can: out of memory, say), the ones after work.
    failures = [SeparatorUnavailable("no memory for a model (test)")] * 2
    real_model = deepfilter._Model

    def flaky_model(runtime: Any) -> Any:
        if failures:
            raise failures.pop()
        return real_model(runtime)

    monkeypatch.setattr(deepfilter, "_Model", flaky_model)
    separator._fresh_model()
    separator._fresh_model()  # both spares taken: the loader refills
    assert spares_of(separator, 2) == 2
    assert failures == []
    assert "loading a spare DeepFilterNet model failed" in caplog.text
