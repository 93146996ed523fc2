"""The master's loudness and true peak on material with sharp transients (drum-like clicks over
a tone), where a limiter overshoots between samples."""

from __future__ import annotations

import numpy as np
import pyloudnorm

from soundstage.creative.music.mastering import (
    PEAK_CEILING_DB,
    TARGET_LUFS,
    loudness_master,
    true_peak,
)

RATE = 44_100


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
