"""A stem's channels one by one, as AAF and OMF want multichannel audio: one mono media object
per channel.

Read from the written stem block by block (memory bounded by the block, whatever the stem's
length): an embedded session streams each channel into its own media object, and a linked
session gets one mono WAVE file per channel of each multichannel stem, next to the stem in
`stems/`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Final

import numpy as np
import numpy.typing as npt

from soundstage.formats.bwf import WaveLayout, plain_wave_header
from soundstage.formats.session import SessionTrack

# Frames read at once: at most 8 channels of 24-bit audio, 1.5 MiB a block.
_BLOCK_FRAMES: Final = 1 << 16
# Channel names of a stereo pair, as Pro Tools and Nuendo name (and pair) split stereo files.
_STEREO: Final = ("L", "R")


def channel_suffix(channel: int, channels: int) -> str:
    """`L`/`R` for a stereo stem, `A1`..`An` for any other multichannel one (their order is the
    input's: no speaker is implied); `channel` counts from 1."""
    return _STEREO[channel - 1] if channels == 2 else f"A{channel}"


def channel_file_name(stem_name: str, channel: int, channels: int) -> str:
    """`02_Music.wav` -> `02_Music.L.wav`: unique per stem (stem names are) and per channel."""
    stem = stem_name.removesuffix(".wav")
    return f"{stem}.{channel_suffix(channel, channels)}.wav"


def linked_ref(track: SessionTrack, channel: int) -> str:
    """The file (relative to the project folder) holding one channel of the track: the mono
    stem itself, or the channel's file split from a multichannel stem."""
    if track.channels == 1:
        return track.stem_ref
    ref = PurePosixPath(track.stem_ref)
    return str(ref.with_name(channel_file_name(ref.name, channel, track.channels)))


def deinterleaved(
    path: Path, layout: WaveLayout, channels: int, sample_bytes: int
) -> Iterator[npt.NDArray[np.uint8]]:
    """The stem's samples in blocks of shape (frames, channels, sample_bytes), raw bytes."""
    frame_bytes = channels * sample_bytes
    with path.open("rb") as stem:
        stem.seek(layout.data_offset)
        remaining = layout.frames
        while remaining > 0:
            frames = min(remaining, _BLOCK_FRAMES)
            data = stem.read(frames * frame_bytes)
            if len(data) != frames * frame_bytes:
                raise ValueError(f"{path.name}: the stem ends before its data chunk does")
            yield np.frombuffer(data, dtype=np.uint8).reshape(frames, channels, sample_bytes)
            remaining -= frames


def channel_bytes(
    path: Path, layout: WaveLayout, channels: int, sample_bytes: int, channel: int
) -> Iterator[bytes]:
    """One channel (from 1) of the stem as mono PCM bytes, block by block."""
    for block in deinterleaved(path, layout, channels, sample_bytes):
        yield block[:, channel - 1].tobytes()


def mono_wave_header(sample_rate: int, bit_depth: int, frames: int) -> bytes:
    """The 44-byte header (RIFF, `fmt `, `data`) of a mono PCM WAVE file of `frames` samples:
    the per-channel files start with it, and the AAF's WAVEDescriptor Summary is it."""
    return plain_wave_header(sample_rate, 1, bit_depth, frames * bit_depth // 8)


def split_channels(
    path: Path, layout: WaveLayout, channels: int, sample_rate: int, bit_depth: int
) -> list[Path]:
    """One plain mono WAVE file per channel of the stem, next to it; their paths in channel
    order. Each file is `mono_wave_header` and the channel's samples (padded to even size)."""
    sample_bytes = bit_depth // 8
    targets = [
        path.with_name(channel_file_name(path.name, channel, channels))
        for channel in range(1, channels + 1)
    ]
    header = mono_wave_header(sample_rate, bit_depth, layout.frames)
    outs = [target.open("wb") for target in targets]
    try:
        for out in outs:
            out.write(header)
        for block in deinterleaved(path, layout, channels, sample_bytes):
            for channel, out in enumerate(outs):
                out.write(block[:, channel].tobytes())
        if layout.frames * sample_bytes % 2:
            for out in outs:
                out.write(b"\0")
    except BaseException:
        for out, target in zip(outs, targets, strict=True):
            out.close()
            target.unlink(missing_ok=True)
        raise
    for out in outs:
        out.close()
    return targets
