"""Intonation: F0 tracks (Praat's autocorrelation pitch, through parselmouth) and carrying the
source's pitch movement over to a synthesized phrase with Praat's PSOLA.

PSOLA was chosen by measurement over Rubber Band (LibriVox clips re-voiced by Festival slt
and flite rms/awb): following the source's contour with a Rubber Band pitch map correlated
0.58-0.89 with the source's contour, lowered the harmonics-to-noise ratio by 0.6-1 dB more
and raised whisper-base's word error rate; PSOLA followed it at 0.96-0.99. A single
Rubber Band shift per phrase leaves the engine's own contour (correlation about 0).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
import parselmouth
from parselmouth.praat import call

from soundstage.media.audio import Audio

Floats = npt.NDArray[np.float64]

# An English text a voice's pitch (and its sound) is measured on, once per process.
REFERENCE_TEXT: Final = (
    "It was a bright cold day in April, and the clocks were striking thirteen. "
    "She opened the window and looked out over the quiet town."
)
TIME_STEP_S: Final = 0.01
# The first pass looks for any human or synthetic voice; the second narrows the range around
# what the first found (De Looze & Hirst's quantile rule), which removes most octave errors.
_FIRST_FLOOR_HZ: Final = 60.0
_FIRST_CEILING_HZ: Final = 700.0
_SMOOTH_FRAMES: Final = 5
# Long audio is tracked in chunks of about this length, each with this much context either
# side (Praat's path finder needs some to settle; the frames kept are the same to within a
# frame or two at the joins).
_CHUNK_S: Final = 60.0
_MARGIN_S: Final = 2.0
# Praat's default silence threshold (of a frame's peak against the sound's).
_SILENCE: Final = 0.03
# Source movements beyond this (semitones from the speaker's median) are tracking errors or
# shouts the target voice should not copy.
MAX_EXCURSION_ST: Final = 12.0
# The share of the source's movement (in semitones) the target voice makes: more moves the
# synthetic voices further than they are built for (docs/calibration.md, "Voice conversion").
RANGE_FACTOR: Final = 0.75


@dataclass(frozen=True)
class PitchTrack:
    """F0 every TIME_STEP_S: times in seconds from the start of the audio, Hz (0 unvoiced)."""

    times_s: Floats
    f0_hz: Floats

    @property
    def voiced(self) -> npt.NDArray[np.bool_]:
        return self.f0_hz > 0

    def median_hz(self) -> float | None:
        voiced = self.f0_hz[self.voiced]
        return float(np.median(voiced)) if voiced.size else None


def pitch_track(audio: Audio) -> PitchTrack:
    """The F0 of the audio (channels mixed), median-smoothed over 50 ms. Audio longer than
    _CHUNK_S is tracked a chunk at a time (each with _MARGIN_S of context either side, of
    which only the chunk's own frames are kept), so that Praat's float64 copies are of a
    minute at most, never of the whole audio (77 MB for 10 minutes at 16 kHz)."""
    from scipy.ndimage import median_filter  # imported where used: not by an API process

    first = _chunked_track(audio, _FIRST_FLOOR_HZ, _FIRST_CEILING_HZ)
    voiced = first.f0_hz[first.voiced]
    if voiced.size < 10:
        return first
    floor = max(40.0, 0.72 * float(np.quantile(voiced, 0.35)))
    ceiling = min(1000.0, 1.9 * float(np.quantile(voiced, 0.65)))
    track = _chunked_track(audio, floor, ceiling)
    smoothed = median_filter(track.f0_hz, size=_SMOOTH_FRAMES, mode="nearest")
    # Smoothing must neither voice an unvoiced frame nor unvoice a voiced one.
    f0 = np.where(track.voiced & (smoothed > 0), smoothed, np.where(track.voiced, track.f0_hz, 0))
    return PitchTrack(track.times_s, f0)


def _chunked_track(audio: Audio, floor: float, ceiling: float) -> PitchTrack:
    rate = audio.sample_rate
    chunk, margin = round(_CHUNK_S * rate), round(_MARGIN_S * rate)
    if audio.frames <= chunk + 2 * margin:
        return _track(_sound(audio, 0, audio.frames), floor, ceiling)
    count = -(-audio.frames // chunk)
    bounds = [round(index * audio.frames / count) for index in range(count + 1)]
    # Praat calls a frame silent by its peak against the whole sound's: each chunk's
    # threshold is scaled from its own peak to the whole audio's.
    peak = max(_peak(audio, begin, end) for begin, end in itertools.pairwise(bounds))
    times: list[Floats] = []
    f0: list[Floats] = []
    for begin, end in itertools.pairwise(bounds):
        start = max(0, begin - margin)
        sound = _sound(audio, start, min(audio.frames, end + margin))
        own = float(np.max(np.abs(sound.values))) if sound.n_samples else 0.0
        threshold = _SILENCE * peak / own if own > 0 else _SILENCE
        part = _track(sound, floor, ceiling, threshold)
        at = part.times_s + start / rate
        keep = (at >= begin / rate) & (at < end / rate)
        times.append(at[keep])
        f0.append(part.f0_hz[keep])
    return PitchTrack(np.concatenate(times), np.concatenate(f0))


def _peak(audio: Audio, start: int, end: int) -> float:
    mono = audio.samples[start:end].mean(axis=1, dtype=np.float64)
    return float(np.max(np.abs(mono))) if mono.size else 0.0


def _sound(audio: Audio, start: int, end: int) -> parselmouth.Sound:
    """The frames [start, end), channels mixed, as a Praat sound starting at 0."""
    mono = audio.samples[start:end].mean(axis=1, dtype=np.float64)
    return parselmouth.Sound(mono, audio.sample_rate)


def _track(
    sound: parselmouth.Sound, floor: float, ceiling: float, silence: float = _SILENCE
) -> PitchTrack:
    if sound.duration < 3 / floor:  # shorter than Praat's analysis window
        return PitchTrack(np.zeros(0), np.zeros(0))
    pitch = sound.to_pitch_ac(
        time_step=TIME_STEP_S, pitch_floor=floor, pitch_ceiling=ceiling, silence_threshold=silence
    )
    f0 = np.nan_to_num(np.asarray(pitch.selected_array["frequency"], dtype=np.float64))
    return PitchTrack(np.asarray(pitch.xs(), dtype=np.float64), f0)


def semitones(f0_hz: Floats, reference_hz: float) -> Floats:
    result: Floats = 12.0 * np.log2(np.maximum(f0_hz, 1e-9) / reference_hz)
    return result


def follow_contour(
    clip: Audio,
    source: PitchTrack,
    *,
    offset_s: float,
    source_median_hz: float,
    target_median_hz: float,
) -> Audio:
    """clip (mono, a synthesized phrase already fitted to the source's timing, starting at
    offset_s in the source) with its F0 moved, wherever the source is voiced, as far from
    the target voice's median as the source is from its speaker's (times RANGE_FACTOR, in
    semitones). Between voiced stretches the pitch is interpolated. PSOLA keeps the clip's
    formants and timing; the clip comes back unchanged if Praat cannot analyse it."""
    duration_s = clip.frames / clip.sample_rate
    floor = max(40.0, 0.5 * target_median_hz)
    inside = (source.times_s >= offset_s) & (source.times_s <= offset_s + duration_s)
    points = inside & source.voiced
    if duration_s < 3 / floor or not points.any():
        return clip
    moves = semitones(source.f0_hz[points], source_median_hz)
    keep = np.abs(moves) <= MAX_EXCURSION_ST
    if not keep.any():
        return clip
    times = source.times_s[points][keep] - offset_s
    targets = target_median_hz * 2.0 ** (RANGE_FACTOR * moves[keep] / 12.0)
    sound = parselmouth.Sound(clip.samples[:, 0].astype(np.float64), clip.sample_rate)
    try:
        manipulation = call(
            sound, "To Manipulation", TIME_STEP_S, floor, min(1000.0, 2.5 * target_median_hz)
        )
        tier = call("Create PitchTier", "contour", 0.0, duration_s)
        for time, hz in zip(times, targets, strict=True):
            call(tier, "Add point", float(time), float(hz))
        call([manipulation, tier], "Replace pitch tier")
        result = call(manipulation, "Get resynthesis (overlap-add)")
    except parselmouth.PraatError:
        return clip
    samples = np.asarray(result.values[0], dtype=np.float32)[: clip.frames]
    samples = np.pad(samples, (0, clip.frames - samples.size))
    return Audio(samples.reshape(-1, 1), clip.sample_rate)
