"""Mixing and mastering without the API: loudness and true peak on material with sharp
transients (where a limiter overshoots between samples), and a master that holds one stem at a
time, not the band twice."""

from __future__ import annotations

import tracemalloc
import weakref

import numpy as np
import pyloudnorm

from soundstage.engines.music.mastering import (
    PEAK_CEILING_DB,
    TARGET_LUFS,
    loudness_master,
    master,
    true_peak,
)
from soundstage.media.audio import Audio

RATE = 44_100
ROLES = ("drums", "bass", "chords", "pad", "lead")


def test_master_is_on_target_loudness_with_true_peaks_under_the_ceiling() -> None:
    rng = np.random.default_rng(3)
    t = np.arange(RATE * 12) / RATE
    tone = 0.2 * np.sin(2 * np.pi * 220 * t) * (1 + 0.5 * np.sin(2 * np.pi * 0.5 * t))
    clicks = np.zeros_like(t)
    for start in rng.integers(0, t.size - 400, 60):
        clicks[start : start + 400] += rng.uniform(-1, 1, 400) * np.exp(-np.arange(400) / 60)
    mix = np.stack([tone + clicks, tone - 0.8 * clicks], axis=1).astype(np.float32)
    meter = pyloudnorm.Meter(RATE)
    mastered, _gain, measured = loudness_master(mix, RATE, meter)
    assert mastered.shape == mix.shape
    assert true_peak(mastered) <= 10 ** (PEAK_CEILING_DB / 20) * 1.001
    assert abs(float(meter.integrated_loudness(mastered)) - TARGET_LUFS) <= 0.5
    assert abs(measured - TARGET_LUFS) <= 0.5


def test_true_peak_sees_the_peak_between_samples() -> None:
    # A sine at a quarter of the rate, sampled 45 degrees off its crests: every sample is at
    # 0.707 of the amplitude, the wave itself reaches 1.
    n = np.arange(4096)
    wave = np.sin(np.pi / 2 * n + np.pi / 4).astype(np.float32)
    stereo = np.stack([wave, wave], axis=1)
    assert float(np.max(np.abs(stereo))) < 0.71
    assert true_peak(stereo) > 0.95


def test_each_stem_is_dropped_once_mixed_and_only_the_vocals_are_kept() -> None:
    frames = 4 * RATE
    rng = np.random.default_rng(0)
    stems = {
        f"part {i}": (ROLES[i % 5], Audio(rng.normal(0, 0.1, (frames, 2)).astype(np.float32), RATE))
        for i in range(16)
    }
    stems["vocals"] = ("vocals", Audio(rng.normal(0, 0.1, (frames, 1)).astype(np.float32), RATE))
    inputs = [weakref.ref(audio) for _, audio in stems.values()]
    stem_bytes = frames * 2 * 4
    tracemalloc.start()
    try:
        mastered = master(stems, reverb=0.3, room=0.5, fade_s=1.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The inputs are consumed: none is held once the master is made.
    assert stems == {}
    assert all(ref() is None for ref in inputs)
    assert list(mastered.stems) == ["vocals"]
    assert mastered.mix.frames == frames
    # Working memory is a few stems (mix, reverb send, the stem in hand, the bus's copies),
    # however many parts there are: 6.5 stems here, 23.5 when every processed stem was kept.
    assert peak < 10 * stem_bytes, peak / stem_bytes
