"""Speech DSP shared by the speech features and engines: time-stretch and formant-preserving
pitch shift (Rubber Band's R3 engine, an external program), resampling (soxr), and joining
clips with pauses and without clicks."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np
import soxr

from soundstage.engines.errors import EngineUnavailable, SynthesisFailed
from soundstage.media.audio import Audio, decode, encode

RUBBERBAND = "rubberband"
# Rubber Band's R3 engine runs at several times real time here; a run that takes longer than
# this (a fixed part plus so much per second of audio) is stuck.
RUBBERBAND_TIMEOUT_S = 30.0
RUBBERBAND_TIMEOUT_PER_SECOND_S = 10.0
_FADE_MS = 8


def stretch_and_shift(audio: Audio, *, time_ratio: float = 1.0, semitones: float = 0.0) -> Audio:
    """Stretch to `time_ratio` times the duration and raise the pitch by `semitones`,
    keeping the formants (so a shifted voice stays natural). Identity returns the input."""
    if time_ratio == 1.0 and semitones == 0:
        return audio
    with tempfile.TemporaryDirectory(prefix="rubberband-") as tmp:
        source, target = Path(tmp) / "in.wav", Path(tmp) / "out.wav"
        encode(audio, source, "wav", bit_depth=24)
        command = [
            RUBBERBAND,
            "--fine",
            "--formant",
            "--quiet",
            "--time",
            f"{time_ratio:.6f}",
            "--pitch",
            f"{semitones:.4f}",
            str(source),
            str(target),
        ]
        timeout = RUBBERBAND_TIMEOUT_S + RUBBERBAND_TIMEOUT_PER_SECOND_S * audio.duration_ms / 1000
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=timeout)
        except FileNotFoundError as exc:
            raise EngineUnavailable("The rubberband tool is not installed.") from exc
        except subprocess.TimeoutExpired as exc:
            raise EngineUnavailable(
                f"Time/pitch processing did not finish within {timeout:.0f} s."
            ) from exc
        except subprocess.CalledProcessError as exc:
            raise SynthesisFailed(f"Time/pitch processing failed: {exc.stderr[-200:]!r}") from exc
        result = decode(target, sample_rate=audio.sample_rate, channels=audio.channels)
    # Rubber Band rounds the length to its hop size: make it exactly what was asked.
    frames = round(audio.frames * time_ratio)
    return _exact_length(result, frames)


def _exact_length(audio: Audio, frames: int) -> Audio:
    samples = audio.samples[:frames]
    if samples.shape[0] < frames:
        pad = np.zeros((frames - samples.shape[0], audio.channels), dtype=np.float32)
        samples = np.concatenate([samples, pad])
    return Audio(np.ascontiguousarray(samples, dtype=np.float32), audio.sample_rate)


def join(clips: list[Audio], pauses_ms: list[int]) -> Audio:
    """Concatenate clips (same rate and channels) with `pauses_ms[i]` of silence after clip i,
    each clip faded in and out over a few milliseconds so that no joint clicks."""
    if not clips:
        raise ValueError("nothing to join")
    rate, channels = clips[0].sample_rate, clips[0].channels
    parts: list[np.ndarray] = []
    for clip, pause_ms in zip(clips, pauses_ms, strict=True):
        parts.append(_faded(clip.samples, rate))
        parts.append(np.zeros((round(rate * pause_ms / 1000), channels), dtype=np.float32))
    return Audio(np.ascontiguousarray(np.concatenate(parts), dtype=np.float32), rate)


def resample(audio: Audio, sample_rate: int) -> Audio:
    """The audio at `sample_rate` (soxr's high quality; the same clip when it is already)."""
    if audio.sample_rate == sample_rate:
        return audio
    samples = soxr.resample(audio.samples, audio.sample_rate, sample_rate, "HQ")
    return Audio(
        np.ascontiguousarray(samples, dtype=np.float32).reshape(-1, audio.channels), sample_rate
    )


def concatenate(parts: list[Audio]) -> Audio:
    """Clips of the same rate and channels end to end, as they are."""
    if not parts:
        raise ValueError("nothing to concatenate")
    samples = np.concatenate([part.samples for part in parts])
    return Audio(np.ascontiguousarray(samples, dtype=np.float32), parts[0].sample_rate)


def _faded(samples: np.ndarray, rate: int) -> np.ndarray:
    fade = min(round(rate * _FADE_MS / 1000), samples.shape[0] // 2)
    if fade == 0:
        return samples
    out = samples.copy()
    ramp = np.linspace(0.0, 1.0, fade, dtype=np.float32)[:, None]
    out[:fade] *= ramp
    out[-fade:] *= ramp[::-1]
    return out
