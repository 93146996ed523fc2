"""Independent measurements of rendered music: tempo (librosa's onset-autocorrelation estimate,
the one its beat tracker reports), key (Krumhansl-Kessler profiles correlated with the chroma),
loudness (pyloudnorm), pitch (Praat)."""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from soundstage.media.audio import Audio

NOTE_NAMES: Final = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
# Krumhansl & Kessler (1982) probe-tone ratings, tonic first.
_MAJOR: Final = np.array([6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88])
_MINOR: Final = np.array([6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17])


def mono(audio: Audio) -> npt.NDArray[np.float32]:
    return np.ascontiguousarray(audio.samples.mean(axis=1), dtype=np.float32)


def tempo(audio: Audio) -> float:
    import librosa

    y = librosa.resample(mono(audio), orig_sr=audio.sample_rate, target_sr=22_050)
    # The tempo librosa's beat tracker reports (beat.beat_track estimates it so, then places
    # the beats), without placing the beats: their tracker is compiled by numba on its first
    # call in each process, 15 s or more in a fresh virtualenv's test process.
    envelope = librosa.onset.onset_strength(y=y, sr=22_050, aggregate=np.median)
    estimate = librosa.feature.tempo(onset_envelope=envelope, sr=22_050)
    return float(np.atleast_1d(estimate)[0])


def tempo_agrees(estimate: float, reported: float, tolerance: float = 0.05) -> bool:
    """Within tolerance of the reported tempo, or of its double or half."""
    return any(abs(estimate - reported * f) <= tolerance * reported * f for f in (0.5, 1, 2))


def key(audio: Audio) -> str:
    """'D minor': the major or minor key whose Krumhansl-Kessler profile correlates best with
    the piece's mean constant-Q chroma."""
    profile_of = chroma(audio)
    best, best_score = "", -2.0
    for tonic in range(12):
        for mode, profile in (("major", _MAJOR), ("minor", _MINOR)):
            score = float(np.corrcoef(np.roll(profile, tonic), profile_of)[0, 1])
            if score > best_score:
                best, best_score = f"{NOTE_NAMES[tonic]} {mode}", score
    return best


def chroma(audio: Audio) -> npt.NDArray[np.float32]:
    """The piece's mean constant-Q chroma: how much of each pitch class it plays."""
    import librosa

    y = librosa.resample(mono(audio), orig_sr=audio.sample_rate, target_sr=22_050)
    return np.asarray(librosa.feature.chroma_cqt(y=y, sr=22_050).mean(axis=1), dtype=np.float32)


def loudness(audio: Audio) -> float:
    import pyloudnorm

    return float(pyloudnorm.Meter(audio.sample_rate).integrated_loudness(audio.samples))
