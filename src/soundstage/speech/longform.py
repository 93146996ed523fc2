"""Long recordings in bounded memory: decoded blocks regrouped into windows of at most a few
minutes, each cut at the quietest moment near its end so that no word is split."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from soundstage.media.audio import Audio

# The quietest 50 ms within the last SEARCH seconds of a full window is where it is cut.
_FRAME_SECONDS = 0.05


@dataclass(frozen=True)
class Window:
    audio: Audio
    # Where the window starts in the whole recording.
    offset_ms: int
    # Whether it is the recording's last.
    last: bool


def windows(
    blocks: Iterable[Audio], *, max_seconds: float, search_seconds: float = 15.0
) -> Iterator[Window]:
    """Regroup consecutive blocks (same rate and channels) into windows of at most
    `max_seconds`; at most one window plus one block is held at a time."""
    if not 0 < search_seconds < max_seconds:
        raise ValueError("search_seconds must be positive and below max_seconds")
    pending: list[np.ndarray] = []
    pending_frames = 0
    offset = 0
    rate = 0
    for block in blocks:
        rate = block.sample_rate
        pending.append(block.samples)
        pending_frames += block.frames
        limit = int(max_seconds * rate)
        while pending_frames > limit:
            samples = np.concatenate(pending)
            cut = _quiet_cut(samples[:limit], rate, int(search_seconds * rate))
            yield Window(Audio(np.ascontiguousarray(samples[:cut]), rate), _ms(offset, rate), False)
            offset += cut
            pending, pending_frames = [samples[cut:]], samples.shape[0] - cut
    if pending_frames or offset == 0:
        samples = np.concatenate(pending) if pending else np.zeros((0, 1), dtype=np.float32)
        yield Window(Audio(np.ascontiguousarray(samples), rate or 16_000), _ms(offset, rate), True)


def _quiet_cut(samples: np.ndarray, rate: int, search: int) -> int:
    frame = max(1, int(_FRAME_SECONDS * rate))
    start = samples.shape[0] - search
    region = samples[start:].mean(axis=1)
    frames = region[: (region.shape[0] // frame) * frame].reshape(-1, frame)
    energy = np.square(frames).mean(axis=1)
    quietest = int(np.argmin(energy))
    return int(start + quietest * frame + frame // 2)


def _ms(frames: int, rate: int) -> int:
    return round(frames * 1000 / rate) if rate else 0
