"""Fitting a synthesized phrase onto the source's timing: trimming its silences, and warping
it with Rubber Band's time map so that each word starts where the source's word started."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import soxr

from soundstage.engines.dsp import RUBBERBAND
from soundstage.engines.errors import EngineUnavailable
from soundstage.media.audio import Audio, Samples, decode, encode

# Frames quieter than this below the loudest 10 ms frame are silence at a clip's edges.
_SILENCE_DB: Final = -40.0
_FRAME_MS: Final = 10
# Kept around the sound, so that soft onsets and releases are not clipped.
_EDGE_MS: Final = 15
# Bounds of the stretch between two word starts (output / synthesized duration): wide, as
# readers hold single words far longer than a synthesizer does; a word needing more lands a
# little early or late (docs/calibration.md, "Voice conversion").
MIN_LOCAL_RATIO: Final = 0.25
MAX_LOCAL_RATIO: Final = 6.0
# A phrase takes Rubber Band well under a second; a minute means it hangs.
_TIMEOUT_SECONDS: Final = 60
# Level matching never raises a phrase by more than this (a whisper stays soft) nor lets it
# peak above _PEAK.
_MAX_GAIN: Final = 10.0
_PEAK: Final = 0.97
# Fades at a placed clip's edges, against clicks where it starts or is cut.
_FADE_MS: Final = 10
# Key frames closer than this (in the synthesized clip) are not worth a stretch change.
_MIN_KEY_GAP_MS: Final = 40


@dataclass(frozen=True)
class KeyFrame:
    """A moment of the synthesized clip (source_ms) and where it must land (target_ms)."""

    source_ms: float
    target_ms: float


def trim_silence(audio: Audio) -> Audio:
    """The audio without its leading and trailing silence (engines pad their speech)."""
    frame = max(1, audio.sample_rate * _FRAME_MS // 1000)
    mono = audio.samples.mean(axis=1)
    count = mono.size // frame
    if count == 0:
        return audio
    rms = np.sqrt(np.mean(np.square(mono[: count * frame].reshape(count, frame)), axis=1))
    loud = np.nonzero(rms > rms.max() * 10 ** (_SILENCE_DB / 20))[0]
    if loud.size == 0:
        return audio
    edge = audio.sample_rate * _EDGE_MS // 1000
    start = max(0, int(loud[0]) * frame - edge)
    end = min(audio.frames, (int(loud[-1]) + 1) * frame + edge)
    return Audio(np.ascontiguousarray(audio.samples[start:end]), audio.sample_rate)


def bounded_key_frames(
    keys: Sequence[KeyFrame], source_ms: float, target_ms: float
) -> list[KeyFrame]:
    """The key frames moved as little as they must for every stretch between two of them to
    lie within MIN_LOCAL_RATIO..MAX_LOCAL_RATIO: a word the source holds longer than that
    lands a little early (or late) rather than being stretched further. The span's ends are
    the fixed key frames (0, 0) and (source_ms, target_ms) and stay implicit; keys closer than
    _MIN_KEY_GAP_MS (in the clip) to each other or to the ends are left out."""
    sources: list[float] = []
    targets: list[float] = []
    for key in sorted(keys, key=lambda k: k.source_ms):
        previous = sources[-1] if sources else 0.0
        if key.source_ms - previous >= _MIN_KEY_GAP_MS and (
            source_ms - key.source_ms >= _MIN_KEY_GAP_MS
        ):
            sources.append(key.source_ms)
            targets.append(key.target_ms)
    xs = [0.0, *sources, source_ms]
    ys = [0.0, *targets, target_ms]
    # Alternating passes clamp each key frame between what its neighbours allow; when the
    # whole span is within bounds they settle on a feasible path near the wanted one.
    for _ in range(4):
        for index in range(1, len(xs) - 1):
            ys[index] = _clamped(ys[index], xs, ys, index, index - 1)
        for index in range(len(xs) - 2, 0, -1):
            ys[index] = _clamped(ys[index], xs, ys, index, index + 1)
    kept = [
        KeyFrame(x, y)
        for index, (x, y) in enumerate(zip(xs, ys, strict=True))
        if 0 < index < len(xs) - 1
    ]
    return [key for key in kept if 0 < key.target_ms < target_ms]


def _clamped(y: float, xs: list[float], ys: list[float], index: int, neighbour: int) -> float:
    """y held within the ratio bounds from the neighbouring key frame."""
    gap = abs(xs[index] - xs[neighbour])
    low, high = gap * MIN_LOCAL_RATIO, gap * MAX_LOCAL_RATIO
    if neighbour < index:
        return min(max(y, ys[neighbour] + low), ys[neighbour] + high)
    return min(max(y, ys[neighbour] - high), ys[neighbour] - low)


def warp(audio: Audio, frames: int, keys: Sequence[KeyFrame] = ()) -> Audio:
    """The audio stretched to exactly `frames` frames (formants kept), each key frame's
    source moment moved to its target moment, the stretch varying smoothly between them.
    keys come from bounded_key_frames().

    dsp.stretch_and_shift runs the same Rubber Band (R3, formants kept) with one ratio;
    this adds its key-frame map."""
    if frames == audio.frames and not keys:
        return audio
    rate = audio.sample_rate
    with tempfile.TemporaryDirectory(prefix="rubberband-") as tmp:
        source, target, timemap = Path(tmp) / "in.wav", Path(tmp) / "out.wav", Path(tmp) / "map"
        encode(audio, source, "wav", bit_depth=24)
        command = [RUBBERBAND, "--fine", "--formant", "--quiet"]
        command += ["--time", f"{frames / audio.frames:.8f}"]
        if keys:
            # Rubber Band's key-frame map: "source-frame target-frame" per line; a key frame
            # at 0 makes it compute a NaN ratio, so the ends stay implicit.
            timemap.write_text(
                "".join(
                    f"{round(key.source_ms * rate / 1000)} {round(key.target_ms * rate / 1000)}\n"
                    for key in keys
                )
            )
            command += ["--timemap", str(timemap)]
        command += [str(source), str(target)]
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=_TIMEOUT_SECONDS)
        except FileNotFoundError as exc:
            raise EngineUnavailable("The rubberband tool is not installed.") from exc
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            # Its input is our own synthesized phrase: a failure is ours, never the user's.
            detail = (exc.stderr or b"")[-200:].decode("utf-8", errors="replace")
            raise EngineUnavailable(f"Time-stretching failed: {detail or exc}") from exc
        result = decode(target, sample_rate=rate, channels=audio.channels)
    return exact_length(result, frames)


def exact_length(audio: Audio, frames: int) -> Audio:
    """The audio cut or padded with silence to exactly `frames` frames."""
    samples = audio.samples[:frames]
    if samples.shape[0] < frames:
        pad = np.zeros((frames - samples.shape[0], audio.channels), dtype=np.float32)
        samples = np.concatenate([samples, pad])
    return Audio(np.ascontiguousarray(samples, dtype=np.float32), audio.sample_rate)


def resampled_mono(clip: Audio, rate: int) -> Samples:
    """The clip's first channel at `rate`, exactly as long (in time) as the clip."""
    mono = clip.samples[:, 0]
    if clip.sample_rate == rate:
        return np.ascontiguousarray(mono)
    frames = round(clip.frames * rate / clip.sample_rate)
    converted = np.asarray(soxr.resample(mono, clip.sample_rate, rate, "HQ"), dtype=np.float32)
    return exact_length(Audio(converted.reshape(-1, 1), rate), frames).samples[:, 0]


def match_level(samples: Samples, source: Samples) -> Samples:
    """The phrase as loud (RMS) as the source's, never clipping."""
    power = float(np.mean(np.square(samples, dtype=np.float64)))
    wanted = float(np.mean(np.square(source, dtype=np.float64)))
    peak = float(np.max(np.abs(samples))) if samples.size else 0.0
    if power <= 0 or wanted <= 0 or peak <= 0:
        return samples
    gain = min(float(np.sqrt(wanted / power)), _MAX_GAIN, _PEAK / peak)
    return samples * np.float32(gain)


def place(output: Samples, samples: Samples, start: int, limit: int, rate: int) -> None:
    """Mix samples into output from start, faded in and out, cut at limit."""
    piece = samples[: max(0, limit - start)].copy()
    if piece.size == 0:
        return
    fade = min(rate * _FADE_MS // 1000, piece.size // 2)
    if fade:
        ramp = np.linspace(0.0, 1.0, fade, dtype=np.float32)
        piece[:fade] *= ramp
        piece[-fade:] *= ramp[::-1]
    output[start : start + piece.size] += piece
