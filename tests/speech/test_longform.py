"""Long recordings in windows: bounded memory for hours of audio, nothing lost or repeated,
cuts at pauses."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from soundstage.media.audio import Audio
from soundstage.speech.longform import windows

RATE = 16_000


def two_hours_of_blocks(block_seconds: int = 16) -> Iterator[Audio]:
    """Two hours as decoded blocks: a tone with a short pause every 7 s, made block by block."""
    rng = np.random.default_rng(7)
    t = np.arange(block_seconds * RATE)
    for index in range(2 * 3600 // block_seconds):
        start = index * block_seconds * RATE
        samples = (0.3 * np.sin(2 * np.pi * 220 * (t + start) / RATE)).astype(np.float32)
        samples += rng.normal(0, 0.01, samples.shape).astype(np.float32)
        position = (t + start) % (7 * RATE)
        samples[position < RATE // 5] *= 0.01  # 200 ms pauses
        yield Audio(samples.reshape(-1, 1), RATE)


def test_two_hours_pass_in_windows_of_bounded_size_cut_at_pauses() -> None:
    total = 0
    count = 0
    for window in windows(two_hours_of_blocks(), max_seconds=600):
        assert window.offset_ms == round(total * 1000 / RATE)
        assert window.audio.frames <= 600 * RATE
        if not window.last:
            # Cut inside a pause: the last 25 ms before the cut are quiet.
            tail = window.audio.samples[-400:, 0]
            assert float(np.sqrt(np.mean(np.square(tail)))) < 0.05
            assert window.audio.frames >= (600 - 15) * RATE
        total += window.audio.frames
        count += 1
    assert total == 2 * 3600 * RATE
    assert 12 <= count <= 13


def test_short_and_empty_inputs_are_one_window() -> None:
    short = Audio(np.zeros((RATE, 1), dtype=np.float32), RATE)
    (only,) = list(windows(iter([short]), max_seconds=600))
    assert (only.offset_ms, only.audio.frames, only.last) == (0, RATE, True)
    (empty,) = list(windows(iter([]), max_seconds=600))
    assert (empty.audio.frames, empty.last) == (0, True)
