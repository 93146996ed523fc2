"""Audio kept in the work directory instead of memory: raw float32 samples, frames after
frames, channels interleaved, read and written a block at a time. What a dub holds at the
input's rate and channels (the decoded input, the background, the dub track) lives here, so
that its memory does not grow with them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Final

import numpy as np
import soxr

from soundstage.media.audio import Audio, Samples

# 64 Ki frames: 2 MiB a block at 8 channels.
BLOCK_FRAMES: Final = 1 << 16
_BYTES: Final = 4


@dataclass(frozen=True)
class RawAudio:
    """`frames` x `channels` float32 samples at `sample_rate` in the raw file at `path`."""

    path: Path
    sample_rate: int
    channels: int
    frames: int

    @property
    def duration_ms(self) -> int:
        return round(self.frames * 1000 / self.sample_rate)

    def read(self, start: int, count: int) -> Samples:
        """The frames [start, start + count) (fewer at the end), shape (frames, channels)."""
        start = max(0, min(start, self.frames))
        count = max(0, min(count, self.frames - start))
        with self.path.open("rb") as file:
            file.seek(start * self.channels * _BYTES)
            samples = np.fromfile(file, dtype=np.float32, count=count * self.channels)
        return samples.reshape(-1, self.channels)

    def blocks(
        self, block_frames: int = BLOCK_FRAMES, *, backwards: bool = False
    ) -> Iterator[Audio]:
        """The audio in consecutive blocks of block_frames (the last may be shorter); with
        `backwards`, the audio played backwards (every block reversed, from the end)."""
        with self.path.open("rb") as file:
            starts = range(0, self.frames, block_frames)
            for start in reversed(starts) if backwards else starts:
                count = min(block_frames, self.frames - start)
                file.seek(start * self.channels * _BYTES)
                samples = np.fromfile(file, dtype=np.float32, count=count * self.channels)
                samples = samples.reshape(-1, self.channels)
                if backwards:
                    samples = np.ascontiguousarray(samples[::-1])
                yield Audio(samples, self.sample_rate)

    def add(self, samples: Samples, start: int) -> None:
        """Mix samples (frames, channels) into the file from frame `start` (cut at its end)."""
        count = min(samples.shape[0], self.frames - start)
        if count <= 0:
            return
        mixed = self.read(start, count) + samples[:count].reshape(count, self.channels)
        self.write_at(mixed, start)

    def write_at(self, samples: Samples, start: int) -> None:
        with self.path.open("r+b") as file:
            file.seek(start * self.channels * _BYTES)
            file.write(np.ascontiguousarray(samples, dtype=np.float32).tobytes())

    def unlink(self) -> None:
        self.path.unlink(missing_ok=True)


def silent(path: Path, sample_rate: int, channels: int, frames: int) -> RawAudio:
    """A file of silence (sparse: the disk holds only what is written into it)."""
    with path.open("wb") as file:
        file.truncate(frames * channels * _BYTES)
    return RawAudio(path, sample_rate, channels, frames)


class RawWriter:
    """Writes blocks one after the other to a raw file; `audio` is what was written."""

    def __init__(self, path: Path, sample_rate: int, channels: int) -> None:
        self._path, self._rate, self._channels = path, sample_rate, channels
        self._file: BinaryIO = path.open("wb")
        self._frames = 0

    def __enter__(self) -> RawWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._file.close()

    def write(self, samples: Samples) -> None:
        block = samples.reshape(-1, self._channels)
        self._file.write(np.ascontiguousarray(block, dtype=np.float32).tobytes())
        self._frames += block.shape[0]

    @property
    def audio(self) -> RawAudio:
        if not self._file.closed:
            self._file.flush()
        return RawAudio(self._path, self._rate, self._channels, self._frames)


def mono_at(raw: RawAudio, rate: int) -> Audio:
    """The whole audio mono (channels averaged) at `rate`, read block by block and resampled
    as it goes into one array of its final length (never a list of parts and their copy)."""
    frames = (2 * raw.frames * rate + raw.sample_rate) // (2 * raw.sample_rate)
    out = np.zeros(frames, dtype=np.float32)
    stream = None
    if raw.sample_rate != rate:
        stream = soxr.ResampleStream(raw.sample_rate, rate, 1, dtype="float32", quality="HQ")
    filled = 0

    def put(part: Samples) -> None:
        nonlocal filled
        count = min(part.size, frames - filled)
        out[filled : filled + count] = part[:count]
        filled += count

    for block in raw.blocks():
        mono = block.samples.mean(axis=1, dtype=np.float32)
        put(mono if stream is None else stream.resample_chunk(mono, last=False))
    if stream is not None:
        put(stream.resample_chunk(np.zeros(0, dtype=np.float32), last=True))
    return Audio(out.reshape(-1, 1), rate)
