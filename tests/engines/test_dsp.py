"""engines.dsp's Rubber Band call: real time-stretching, and a stuck run ended in its time."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from soundstage.engines import dsp
from soundstage.engines.errors import EngineUnavailable
from soundstage.media.audio import Audio
from tests.support.processes import stand_in_program


def tone(seconds: float, rate: int = 16_000) -> Audio:
    t = np.arange(round(seconds * rate)) / rate
    return Audio((0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32).reshape(-1, 1), rate)


def test_a_stretch_is_exactly_as_long_as_asked() -> None:
    stretched = dsp.stretch_and_shift(tone(1.0), time_ratio=1.2, semitones=2)
    assert stretched.frames == round(16_000 * 1.2)
    assert float(np.sqrt(np.mean(np.square(stretched.samples)))) > 0.1


def test_a_stuck_rubber_band_is_engine_unavailable_in_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stuck = stand_in_program(tmp_path, "rubberband", "exec sleep 60")
    monkeypatch.setattr(dsp, "RUBBERBAND", os.fspath(stuck))
    monkeypatch.setattr(dsp, "RUBBERBAND_TIMEOUT_S", 0.5)
    monkeypatch.setattr(dsp, "RUBBERBAND_TIMEOUT_PER_SECOND_S", 1.0)
    started = time.monotonic()
    with pytest.raises(EngineUnavailable, match="did not finish within"):
        dsp.stretch_and_shift(tone(0.5), time_ratio=1.1)
    assert time.monotonic() - started < 30
