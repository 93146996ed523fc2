"""What every voice-isolation engine offers: the Separator protocol, its two stems and errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from soundstage.core.errors import AppError
from soundstage.media.audio import Audio, Samples

Progress = Callable[[float], None]
# The input read from its start, block by block: every call starts a new reading, so that an
# engine may read it more than once (a decoder over a file, see media.audio.iter_decode).
BlockSource = Callable[[], Iterator[Audio]]


@dataclass(frozen=True, eq=False)
class Separation:
    """The voice and everything else. Both have the input's sample rate, channels and frames,
    sample-aligned, and vocals + background is the input (up to float32 rounding)."""

    vocals: Audio
    background: Audio


class Separator(Protocol):
    """A voice-isolation engine. Instances are long-lived (one per worker process, see
    registry.get_separator) and safe to call from several threads."""

    name: str

    def separate(self, audio: Audio, *, progress: Progress | None = None) -> Separation:
        """Split audio of any length, sample rate and channel count into the voice and the
        rest; memory grows with the input and the stems only. Each channel is separated on its
        own. progress, if given, is called with the fraction done, 0..1, ending with 1.0.

        Raises SeparatorUnavailable if the engine fails.
        """
        ...

    def separate_blocks(
        self, blocks: BlockSource, *, progress: Progress | None = None
    ) -> Iterator[Separation]:
        """separate() for input of any length in bounded memory: the stems of what blocks()
        reads, as consecutive separations which together are separate()'s of the whole
        (the same frames, bit for bit for the same blocks). It may read the input more than
        once; memory depends on the channel count and the blocks' size, never on the length.
        """
        ...


class SeparatorUnavailable(AppError):
    """The voice-isolation engine (its library or model) is missing or failed: not the user's
    fault."""

    status = 503
    type = "api_error"
    code = "separator_unavailable"


def with_residual(audio: Audio, vocals: Samples) -> Separation:
    """The separation whose background is what the vocals leave of the input, so that the two
    always add up to it whatever the engine's vocals are."""
    if vocals.shape != audio.samples.shape:
        raise ValueError("vocals must have the input's frames and channels")
    vocals = np.ascontiguousarray(vocals, dtype=np.float32)
    background = np.subtract(audio.samples, vocals, dtype=np.float32)
    return Separation(Audio(vocals, audio.sample_rate), Audio(background, audio.sample_rate))
