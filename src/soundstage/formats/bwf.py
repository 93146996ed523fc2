"""Broadcast WAVE (EBU Tech 3285 v2) files written block by block: a `bext` chunk with the
time reference, then `fmt ` and `data`, sizes patched when the file is finished."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO, Final

import numpy as np
import numpy.typing as npt

_PCM: Final = 1
_EXTENSIBLE: Final = 0xFFFE
# KSDATAFORMAT_SUBTYPE_PCM, as WAVE_FORMAT_EXTENSIBLE stores it.
_PCM_GUID: Final = bytes.fromhex("0100000000001000800000aa00389b71")
_BEXT_FIXED: Final = 602
_ZEROS: Final = bytes(1 << 20)
# RIFF sizes are 32-bit: a WAVE file holds at most this many bytes after its first eight.
MAX_RIFF_BYTES: Final = 0xFFFFFFFF
# More than any header this module writes (RIFF, `bext` with its coding history, `fmt `, the
# data chunk's header): the room left to the samples is counted without it.
HEADER_ALLOWANCE: Final = 4096


def max_frames(channels: int, bit_depth: int) -> int:
    """The most frames a stem of this shape can hold."""
    return (MAX_RIFF_BYTES - HEADER_ALLOWANCE) // (channels * bit_depth // 8)


@dataclass(frozen=True)
class BroadcastInfo:
    """What the `bext` chunk says about a stem."""

    description: str
    originator: str
    originator_reference: str
    origination: datetime
    time_reference: int  # samples since midnight of the file's first sample
    coding_history: str


@dataclass(frozen=True)
class WaveLayout:
    """Where the parts of a written file are: enough to read its samples back raw."""

    data_offset: int
    data_bytes: int
    frames: int


def _ascii(value: str, size: int) -> bytes:
    return value.encode("ascii", "replace")[:size].ljust(size, b"\0")


def bext_chunk(info: BroadcastInfo) -> bytes:
    history = info.coding_history.encode("ascii", "replace")
    body = b"".join(
        (
            _ascii(info.description, 256),
            _ascii(info.originator, 32),
            _ascii(info.originator_reference, 32),
            _ascii(info.origination.strftime("%Y-%m-%d"), 10),
            _ascii(info.origination.strftime("%H:%M:%S"), 8),
            struct.pack("<QH", info.time_reference, 2),  # TimeReference, Version 2
            bytes(64),  # UMID: none
            struct.pack("<5h", 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF),  # loudness: unknown
            bytes(180),
            history,
        )
    )
    assert len(body) == _BEXT_FIXED + len(history)
    if len(body) % 2:
        body += b"\0"
    return b"bext" + struct.pack("<I", len(body)) + body


def fmt_chunk(sample_rate: int, channels: int, bit_depth: int) -> bytes:
    """PCM for mono and stereo (what every DAW reads), WAVE_FORMAT_EXTENSIBLE above."""
    block_align = channels * bit_depth // 8
    base = struct.pack(
        "<HHIIHH",
        _EXTENSIBLE if channels > 2 else _PCM,
        channels,
        sample_rate,
        sample_rate * block_align,
        block_align,
        bit_depth,
    )
    if channels <= 2:
        return b"fmt " + struct.pack("<I", len(base)) + base
    mask = (1 << channels) - 1 if channels <= 18 else 0
    extension = struct.pack("<HHI", 22, bit_depth, mask) + _PCM_GUID
    return b"fmt " + struct.pack("<I", len(base) + len(extension)) + base + extension


class BwfWriter:
    """Writes integer PCM frames as they come; `finish(total_frames)` pads with silence to
    the session's length and patches the RIFF and data sizes."""

    def __init__(
        self, path: Path, sample_rate: int, channels: int, bit_depth: int, info: BroadcastInfo
    ) -> None:
        self.path = path
        self.sample_rate, self.channels, self.bit_depth = sample_rate, channels, bit_depth
        self.frame_bytes = channels * bit_depth // 8
        self.frames = 0
        self._out: BinaryIO = path.open("wb")
        header = b"RIFF" + bytes(4) + b"WAVE" + bext_chunk(info)
        header += fmt_chunk(sample_rate, channels, bit_depth) + b"data" + bytes(4)
        self._out.write(header)
        self.data_offset = len(header)

    def write(self, samples: npt.NDArray[np.int32]) -> None:
        """Frames of integers in the bit depth's range, shape (frames, channels)."""
        if samples.ndim != 2 or samples.shape[1] != self.channels:
            raise ValueError("samples must have shape (frames, channels)")
        self._out.write(pcm_bytes(samples, self.bit_depth))
        self.frames += int(samples.shape[0])

    def write_silence(self, frames: int) -> None:
        remaining = frames * self.frame_bytes
        while remaining > 0:
            chunk = min(remaining, len(_ZEROS))
            self._out.write(_ZEROS[:chunk])
            remaining -= chunk
        self.frames += frames

    def finish(self, total_frames: int) -> WaveLayout:
        if total_frames < self.frames:
            raise ValueError("a stem cannot be shortened")
        self.write_silence(total_frames - self.frames)
        data_bytes = self.frames * self.frame_bytes
        if data_bytes % 2:
            self._out.write(b"\0")  # RIFF chunks have even sizes
        if self.data_offset + data_bytes > MAX_RIFF_BYTES:
            # Callers check max_frames() before writing (stems.check_sizes).
            raise ValueError("a WAVE file holds at most 4 GiB")
        riff_size = self._out.tell() - 8
        self._out.seek(4)
        self._out.write(struct.pack("<I", riff_size))
        self._out.seek(self.data_offset - 4)
        self._out.write(struct.pack("<I", data_bytes))
        self._out.close()
        return WaveLayout(self.data_offset, data_bytes, self.frames)

    def abandon(self) -> None:
        self._out.close()
        self.path.unlink(missing_ok=True)


def pcm_bytes(samples: npt.NDArray[np.int32], bit_depth: int) -> bytes:
    """Little-endian PCM bytes of integer samples (16 or 24 bit), interleaved."""
    if bit_depth == 16:
        return samples.astype("<i2").tobytes()
    # The three low bytes of each sample, little-endian, one column at a time (faster than
    # slicing a byte view).
    wide = np.ascontiguousarray(samples, dtype="<i4").reshape(-1).view(np.uint32)
    packed = np.empty((wide.size, 3), dtype=np.uint8)
    packed[:, 0] = wide
    packed[:, 1] = wide >> 8
    packed[:, 2] = wide >> 16
    return packed.tobytes()


def plain_wave_header(sample_rate: int, channels: int, bit_depth: int, data_bytes: int) -> bytes:
    """RIFF, `fmt ` and the data chunk's header of a plain WAVE file (no `bext`)."""
    fmt = fmt_chunk(sample_rate, channels, bit_depth)
    pad = data_bytes % 2
    riff_size = 4 + len(fmt) + 8 + data_bytes + pad
    return (
        b"RIFF"
        + struct.pack("<I", riff_size)
        + b"WAVE"
        + fmt
        + b"data"
        + struct.pack("<I", data_bytes)
    )
