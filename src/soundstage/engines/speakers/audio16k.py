"""The speaker models' input: mono float32 at 16 kHz, resampled with soxr, either whole or in
blocks streamed from the source so that hours of audio never exist twice in memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import numpy as np
import numpy.typing as npt
import soxr

from soundstage.media.audio import Audio

SAMPLE_RATE: Final = 16_000
# Seconds of source audio converted at a time.
_BLOCK_S: Final = 30

Mono = npt.NDArray[np.float32]


def mono_blocks(audio: Audio) -> Iterator[Mono]:
    """The audio as consecutive mono 16 kHz blocks (channels averaged). One resampler runs
    across the blocks, so together they equal a one-piece conversion: no seams."""
    block_frames = _BLOCK_S * audio.sample_rate
    resampler = None
    if audio.sample_rate != SAMPLE_RATE:
        resampler = soxr.ResampleStream(
            audio.sample_rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ"
        )
    for start in range(0, audio.frames, block_frames):
        mono = audio.samples[start : start + block_frames].mean(axis=1, dtype=np.float32)
        if resampler is None:
            yield mono
            continue
        last = start + block_frames >= audio.frames
        converted = np.asarray(resampler.resample_chunk(mono, last=last), dtype=np.float32)
        if converted.size:
            yield converted


def mono_16k_audio(audio: Audio) -> Audio:
    """The whole audio as mono 16 kHz Audio (for short clips)."""
    return Audio(mono_16k(audio).reshape(-1, 1), SAMPLE_RATE)


def mono_16k(audio: Audio) -> Mono:
    """The whole audio as one mono 16 kHz array, filled block by block into one allocation
    (minutes of audio are never held twice, as a list of blocks and their joined copy)."""
    # soxr's stream ends within a sample or two of the exact ratio; the slack covers it.
    out = np.empty(-(-audio.frames * SAMPLE_RATE // audio.sample_rate) + 16, dtype=np.float32)
    filled = 0
    for block in mono_blocks(audio):
        if filled + block.shape[0] > out.shape[0]:
            out = np.concatenate([out[:filled], block])
        else:
            out[filled : filled + block.shape[0]] = block
        filled += block.shape[0]
    return out[:filled]
