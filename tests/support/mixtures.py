"""Test material for voice isolation, made on the spot: real human speech, music rendered with
FluidSynth's General MIDI soundfont, seeded pink noise, their mixtures, and SI-SDR to score a
separated stem against the true source."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from soundstage.media.audio import Audio, decode

Signal = npt.NDArray[np.float32]

SPEECH_PATH: Final = Path(__file__).resolve().parents[1] / "fixtures" / "pyannote" / "sample.flac"
SOUNDFONT: Final = Path("/usr/share/sounds/sf2/FluidR3_GM.sf2")

# A I-vi-IV-V progression in C, one chord a bar: (bass root, chord tones), MIDI keys.
_PROGRESSION: Final = (
    (36, (60, 64, 67)),
    (45, (57, 60, 64)),
    (41, (57, 60, 65)),
    (43, (55, 59, 62)),
)
_MELODY_SCALE: Final = (72, 74, 76, 77, 79, 81, 83, 84)
# General MIDI programs: acoustic grand piano, fingered bass, flute; channel 9 is percussion.
_PIANO, _BASS, _FLUTE = 0, 33, 73
_CHORDS, _BASSLINE, _MELODY, _DRUMS = 0, 1, 2, 9
_KICK, _SNARE, _HIHAT = 36, 38, 42


@dataclass(frozen=True)
class Mixture:
    """A mono mixture and its two true sources at their mixed levels: mixture = speech + rest."""

    mixture: Audio
    speech: Signal
    background: Signal


def speech(seconds: float, sample_rate: int) -> Signal:
    """Real conversation (two speakers, the 30 s pyannote sample), repeated to `seconds`."""
    recording = decode(SPEECH_PATH, sample_rate=sample_rate, channels=1).samples[:, 0]
    return _looped(recording, round(seconds * sample_rate))


def pink_noise(frames: int, *, seed: int = 0) -> Signal:
    """Noise with a 1/f power spectrum (-3 dB an octave), unit RMS."""
    rng = np.random.default_rng(seed)
    spectrum = rng.standard_normal(frames // 2 + 1) + 1j * rng.standard_normal(frames // 2 + 1)
    bins = np.arange(frames // 2 + 1, dtype=np.float64)
    bins[0] = 1.0  # no DC: its weight is zeroed below
    spectrum /= np.sqrt(bins)
    spectrum[0] = 0.0
    noise = np.fft.irfft(spectrum, n=frames)
    return _unit_rms(noise)


def music(seconds: float, sample_rate: int, *, seed: int = 0) -> Audio:
    """Stereo band music rendered by FluidSynth (piano chords, bass, a flute melody and drums at
    110 bpm, an eighth note a step), the melody a seeded random walk on the C major scale."""
    import fluidsynth

    rng = np.random.default_rng(seed)
    synth = fluidsynth.Synth(samplerate=float(sample_rate), gain=0.5)
    try:
        font = synth.sfload(str(SOUNDFONT))
        for channel, program in ((_CHORDS, _PIANO), (_BASSLINE, _BASS), (_MELODY, _FLUTE)):
            synth.program_select(channel, font, 0, program)
        synth.program_select(_DRUMS, font, 128, 0)  # bank 128: the GM drum kit
        eighth = round(sample_rate * 60 / 110 / 2)
        total = round(seconds * sample_rate)
        blocks: list[npt.NDArray[np.int16]] = []
        sounding: list[tuple[int, int]] = []  # (channel, key); drums need no note-off
        melody = 3
        for step, start in enumerate(range(0, total, eighth)):
            melody = int(np.clip(melody + rng.integers(-2, 3), 0, len(_MELODY_SCALE) - 1))
            notes = _step_notes(step, _MELODY_SCALE[melody] if rng.random() < 0.8 else None)
            # The melody lasts a step; chord and bass last the bar.
            ending = [(c, k) for c, k in sounding if c == _MELODY or step % 8 == 0]
            for channel, key in ending:
                synth.noteoff(channel, key)
            sounding = [note for note in sounding if note not in ending]
            for channel, key, velocity in notes:
                synth.noteon(channel, key, velocity)
                if channel != _DRUMS:
                    sounding.append((channel, key))
            frames = min(eighth, total - start)
            blocks.append(np.asarray(synth.get_samples(frames), dtype=np.int16))
    finally:
        synth.delete()
    stereo = np.concatenate(blocks).reshape(-1, 2).astype(np.float32) / 32768.0
    return Audio(np.ascontiguousarray(stereo), sample_rate)


def _step_notes(step: int, melody_key: int | None) -> list[tuple[int, int, int]]:
    """(channel, key, velocity) of the notes starting at this eighth note: a new chord and bass
    note every bar, the melody note if any, hi-hat on every step, kick and snare on the beats."""
    notes: list[tuple[int, int, int]] = []
    if step % 8 == 0:
        bass, chord = _PROGRESSION[(step // 8) % len(_PROGRESSION)]
        notes += [(_CHORDS, key, 70) for key in chord] + [(_BASSLINE, bass, 90)]
    if melody_key is not None:
        notes.append((_MELODY, melody_key, 85))
    notes.append((_DRUMS, _HIHAT, 60))
    if step % 4 == 0:
        notes.append((_DRUMS, _KICK, 100))
    elif step % 4 == 2:
        notes.append((_DRUMS, _SNARE, 90))
    return notes


def mix(voice: Signal, rest: Signal, sample_rate: int, *, snr_db: float = 0.0) -> Mixture:
    """Mono mixture of voice and rest, rest scaled to be snr_db below the voice in RMS (0 dB:
    equal RMS), cut to the shorter of the two."""
    frames = min(voice.shape[0], rest.shape[0])
    voice, rest = voice[:frames], rest[:frames]
    gain = rms(voice) / rms(rest) * 10 ** (-snr_db / 20)
    scaled = (rest * gain).astype(np.float32)
    mixture = (voice + scaled).astype(np.float32)
    return Mixture(Audio(mixture.reshape(-1, 1), sample_rate), voice, scaled)


def si_sdr(estimate: npt.ArrayLike, reference: npt.ArrayLike) -> float:
    """Scale-invariant signal-to-distortion ratio in dB (Le Roux et al. 2019), means removed."""
    est = np.asarray(estimate, dtype=np.float64).ravel()
    ref = np.asarray(reference, dtype=np.float64).ravel()
    est, ref = est - est.mean(), ref - ref.mean()
    target = ref * (np.dot(est, ref) / np.dot(ref, ref))
    residue = est - target
    return float(10 * np.log10(np.dot(target, target) / np.dot(residue, residue)))


def rms(signal: npt.ArrayLike) -> float:
    return float(np.sqrt(np.mean(np.square(np.asarray(signal, dtype=np.float64)))))


def db(ratio: float) -> float:
    return float(20 * np.log10(ratio))


def _looped(signal: Signal, frames: int) -> Signal:
    repeats = -(-frames // signal.shape[0])
    return np.ascontiguousarray(np.tile(signal, repeats)[:frames], dtype=np.float32)


def _unit_rms(signal: npt.NDArray[np.float64]) -> Signal:
    unit: Signal = (signal / np.sqrt(np.mean(np.square(signal)))).astype(np.float32)
    return unit
