"""Audio as Whisper takes it: 16 kHz mono float32, in windows cut at pauses so that hours of
audio are transcribed in bounded memory."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import numpy as np
import soxr

from soundstage.media.audio import Audio, Samples

SAMPLE_RATE: Final = 16_000
# Input read per step of the resampler, in seconds.
_BLOCK_SECONDS: Final = 30
# Energy is measured on 20 ms frames, averaged over 300 ms: a pause between words or
# sentences, not the closure of a stop consonant.
_FRAME: Final = SAMPLE_RATE // 50
_QUIET_FRAMES: Final = 15


@dataclass(frozen=True)
class Chunking:
    """How audio too long for one pass is cut. faster-whisper computes the spectrogram of all
    the audio it is given at once (more than a gigabyte of arrays per hour of audio; figures
    in docs/calibration.md, "Whisper windows"), so long audio goes through in windows, each
    cut at the quietest moment of its last `search_ms` so that no word is cut in two."""

    # Audio up to this long is transcribed in one pass.
    single_ms: int = 3 * 60_000
    # Longer audio: windows of at most this long ...
    window_ms: int = 2 * 60_000
    # ... ending at the quietest moment of their last search_ms.
    search_ms: int = 30_000

    def __post_init__(self) -> None:
        if not 0 < self.search_ms < self.window_ms <= self.single_ms:
            raise ValueError("need 0 < search_ms < window_ms <= single_ms")


@dataclass(frozen=True)
class Window:
    # Where the window starts in the audio, in samples at SAMPLE_RATE.
    offset: int
    samples: Samples

    @property
    def offset_ms(self) -> int:
        return self.offset * 1000 // SAMPLE_RATE

    @property
    def end_ms(self) -> int:
        return (self.offset + int(self.samples.shape[0])) * 1000 // SAMPLE_RATE


def windows(audio: Audio, chunking: Chunking) -> Iterator[Window]:
    """The audio at 16 kHz mono in consecutive windows: one if it is at most
    chunking.single_ms long, else windows of at most window_ms, the last at most single_ms.
    Only the window being handed out (and the next one's start) is held in memory."""
    total = round(audio.frames * SAMPLE_RATE / audio.sample_rate)
    single, window, search = (
        ms * SAMPLE_RATE // 1000
        for ms in (chunking.single_ms, chunking.window_ms, chunking.search_ms)
    )
    pending: list[Samples] = []
    pending_frames = offset = 0
    for block in _mono_16k(audio):
        pending.append(block)
        pending_frames += block.shape[0]
        while total - offset > single and pending_frames >= window:
            joined = np.concatenate(pending)
            cut = _quiet_cut(joined, window - search, window)
            yield Window(offset, joined[:cut])
            offset += cut
            # A copy, so that the window handed out can be freed.
            pending = [joined[cut:].copy()]
            pending_frames = pending[0].shape[0]
    if pending_frames:
        yield Window(offset, pending[0] if len(pending) == 1 else np.concatenate(pending))


def _mono_16k(audio: Audio) -> Iterator[Samples]:
    """The channels mixed and resampled by soxr (its high quality setting), block by block."""
    step = audio.sample_rate * _BLOCK_SECONDS
    resampler = (
        None
        if audio.sample_rate == SAMPLE_RATE
        else soxr.ResampleStream(audio.sample_rate, SAMPLE_RATE, 1, dtype="float32")
    )
    for start in range(0, audio.frames, step):
        block = audio.samples[start : start + step]
        mono = block[:, 0] if audio.channels == 1 else block.mean(axis=1, dtype=np.float32)
        mono = np.ascontiguousarray(mono, dtype=np.float32)
        if resampler is not None:
            mono = resampler.resample_chunk(mono, last=start + step >= audio.frames)
        if mono.shape[0]:
            yield mono


def _quiet_cut(samples: Samples, low: int, high: int) -> int:
    """Where in samples[low:high] to cut: the middle of its quietest 300 ms."""
    frames = (high - low) // _FRAME
    if frames == 0:
        return high
    region = samples[low : low + frames * _FRAME].astype(np.float64)
    energy = np.square(region).reshape(frames, _FRAME).mean(axis=1)
    width = min(_QUIET_FRAMES, frames)
    smoothed = np.convolve(energy, np.ones(width) / width, mode="valid")
    return low + (int(np.argmin(smoothed)) + width // 2) * _FRAME
