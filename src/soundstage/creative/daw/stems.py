"""Stems: each track decoded block by block, resampled with soxr (very high quality), gain
and pan printed, quantised (TPDF-dithered at 16 bit) and written as a broadcast WAVE that
starts at the session start; all stems are then padded to the session's length."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
import soxr

from soundstage.core.errors import InvalidField
from soundstage.creative.daw.errors import ExportTooLarge, StemTooLarge
from soundstage.formats.bwf import BroadcastInfo, BwfWriter, max_frames
from soundstage.media.audio import Samples, iter_decode
from soundstage.media.input_limits import within_duration

_BLOCK_FRAMES: Final = 1 << 17
OPERATION: Final = "a DAW track"
# What the stems of one export may weigh together. The job's disk holds them about three
# times (the stems, the ZIP, an embedded session's copy) and the ZIP is kept as its output.
MAX_EXPORT_BYTES: Final = 32 * 1024**3
# Output held back so that the last block can be trimmed or padded to the exact length.
_RESERVE_FRAMES: Final = 1 << 12


@dataclass(frozen=True)
class StemSpec:
    index: int
    name: str
    source: Path
    source_rate: int
    source_channels: int
    offset_frames: int
    gain_db: float
    pan: float
    # The longest the track's decoded audio may run (422 media_too_long past it); None: any.
    max_duration_ms: int | None = None

    @property
    def param(self) -> str:
        return f"tracks[{self.index}]"

    @property
    def channels(self) -> int:
        """A panned mono track needs two channels to hold its pan."""
        return 2 if self.source_channels == 1 and self.pan != 0 else self.source_channels


@dataclass(frozen=True)
class RenderedStem:
    spec: StemSpec
    path: Path
    channels: int
    audio_frames: int  # the track's own audio, without the offset


def check_sizes(specs: Sequence[StemSpec], total_frames: int, bit_depth: int) -> None:
    """Every stem lasts the whole session: refuse a stem past what a WAVE file holds (4 GiB)
    and an export whose stems together pass MAX_EXPORT_BYTES, whatever the session format."""
    for spec in specs:
        if total_frames > max_frames(spec.channels, bit_depth):
            size = total_frames * spec.channels * bit_depth // 8
            raise StemTooLarge(
                f"{spec.param}.audio_url: its stem ({spec.channels} channels of {bit_depth}-bit "
                f"audio for the whole session) would be {size / 1024**3:.2f} GiB; a WAVE file "
                "holds at most 4 GiB. Ask for bit_depth 16, make the session shorter or split "
                "the channels into several tracks.",
                param=f"{spec.param}.audio_url",
            )
    total = sum(total_frames * spec.channels * bit_depth // 8 for spec in specs)
    if total > MAX_EXPORT_BYTES:
        raise ExportTooLarge(
            f"tracks: the stems would weigh {total / 1024**3:.1f} GiB together (every stem "
            f"lasts the whole session); an export holds at most "
            f"{MAX_EXPORT_BYTES // 1024**3} GiB. Export fewer tracks or a shorter session.",
            param="tracks",
        )


def check_pannable(spec: StemSpec) -> None:
    if spec.pan != 0 and spec.source_channels > 2:
        raise InvalidField(
            f"{spec.param}.pan: only mono and stereo tracks can be panned; this one has "
            f"{spec.source_channels} channels.",
            param=f"{spec.param}.pan",
        )


def expected_frames(source_frames: int, source_rate: int, rate: int) -> int:
    """The length at the new rate, rounded half up, as media.audio counts it."""
    return int(Fraction(source_frames * rate, source_rate) + Fraction(1, 2))


def render_stem(
    spec: StemSpec,
    path: Path,
    *,
    sample_rate: int,
    bit_depth: int,
    info: BroadcastInfo,
    progress: Callable[[int], None] | None = None,
) -> tuple[BwfWriter, RenderedStem]:
    """Write the stem up to its audio's end; the caller finishes it at the session length."""
    check_pannable(spec)
    writer = BwfWriter(path, sample_rate, spec.channels, bit_depth, info)
    try:
        writer.write_silence(spec.offset_frames)
        quantiser = Quantiser(bit_depth, seed=spec.index)
        mix = _mix_matrix(spec)
        frames = 0
        for block in _resampled(spec, sample_rate, progress):
            writer.write(quantiser(block @ mix if mix is not None else block))
            frames += block.shape[0]
    except BaseException:
        writer.abandon()
        raise
    return writer, RenderedStem(spec, path, spec.channels, frames)


def _resampled(
    spec: StemSpec, rate: int, progress: Callable[[int], None] | None
) -> Iterator[Samples]:
    """The track's samples at `rate`, in blocks, exactly expected_frames() long."""
    blocks = iter_decode(
        spec.source,
        channels=spec.source_channels,
        block_frames=_BLOCK_FRAMES,
        param=f"{spec.param}.audio_url",
    )
    if spec.max_duration_ms is not None:
        blocks = within_duration(
            blocks, spec.max_duration_ms, param=f"{spec.param}.audio_url", operation=OPERATION
        )
    stream = None
    if spec.source_rate != rate:
        stream = soxr.ResampleStream(
            spec.source_rate, rate, spec.source_channels, dtype="float32", quality="VHQ"
        )
    consumed = produced = 0
    held = np.zeros((0, spec.source_channels), dtype=np.float32)
    for block in blocks:
        consumed += block.frames
        out = (
            block.samples
            if stream is None
            else _as_frames(stream.resample_chunk(block.samples), spec.source_channels)
        )
        held = np.concatenate([held, out]) if held.shape[0] else out
        if held.shape[0] > _RESERVE_FRAMES:
            ready, held = held[:-_RESERVE_FRAMES], held[-_RESERVE_FRAMES:]
            produced += ready.shape[0]
            yield ready
        if progress is not None:
            progress(block.frames)
    if stream is not None:
        empty = np.zeros((0, spec.source_channels), dtype=np.float32)
        tail = _as_frames(stream.resample_chunk(empty, last=True), spec.source_channels)
        held = np.concatenate([held, tail])
    wanted = expected_frames(consumed, spec.source_rate, rate) - produced
    if wanted < held.shape[0]:
        held = held[: max(wanted, 0)]
    elif wanted > held.shape[0]:
        pad = np.zeros((wanted - held.shape[0], spec.source_channels), dtype=np.float32)
        held = np.concatenate([held, pad])
    if held.shape[0]:
        yield held


def _as_frames(samples: npt.NDArray[np.float32], channels: int) -> Samples:
    return np.asarray(samples, dtype=np.float32).reshape(-1, channels)


def _mix_matrix(spec: StemSpec) -> npt.NDArray[np.float32] | None:
    """Gain and pan as one (source channels x stem channels) matrix; None for unity."""
    gain = 10 ** (spec.gain_db / 20)
    if spec.source_channels == 1 and spec.pan != 0:
        # Constant power: -3 dB each side at the centre, the whole signal on one side at ±1.
        angle = (spec.pan + 1) * math.pi / 4
        return np.array([[gain * math.cos(angle), gain * math.sin(angle)]], dtype=np.float32)
    if spec.source_channels == 2 and spec.pan != 0:
        left, right = min(1.0, 1 - spec.pan), min(1.0, 1 + spec.pan)
        return np.diag([gain * left, gain * right]).astype(np.float32)
    if gain == 1.0:
        return None
    return np.eye(spec.source_channels, dtype=np.float32) * np.float32(gain)


class Quantiser:
    """Float samples to integers at 16 or 24 bit, clipped to full scale. 16-bit output gets
    TPDF dither (two uniform variables, ±1 LSB peak), except blocks that already lie on the
    16-bit grid (a 16-bit source at unity gain and its own rate passes bit-exact). 24-bit
    output is rounded: float32's 24-bit mantissa puts its own error at that level."""

    def __init__(self, bit_depth: int, seed: int) -> None:
        if bit_depth not in (16, 24):
            raise ValueError("bit_depth must be 16 or 24")
        self.bit_depth = bit_depth
        self.scale = float(1 << (bit_depth - 1))
        self._rng = np.random.default_rng(seed)

    def __call__(self, samples: Samples) -> npt.NDArray[np.int32]:
        # float32 is exact here: scaling by a power of two, and integers up to 2**24.
        scaled: Samples = samples * np.float32(self.scale)
        # A float input may hold NaN or infinities; they must not become random integers.
        np.nan_to_num(scaled, copy=False, nan=0.0, posinf=self.scale, neginf=-self.scale)
        rounded: Samples = np.rint(scaled)
        if self.bit_depth == 16 and not np.array_equal(rounded, scaled):
            shape = scaled.shape
            scaled += self._rng.random(shape, dtype=np.float32)
            scaled -= self._rng.random(shape, dtype=np.float32)
            rounded = np.rint(scaled)
        np.clip(rounded, -self.scale, self.scale - 1, out=rounded)
        return rounded.astype(np.int32)
