"""The sung vocal line: lyric lines laid on the verses and choruses, one note a syllable, their
pitches developed from the section's motif; then sung by a catalog voice, word by word:
text-to-speech, then Praat's PSOLA (parselmouth) stretches each word to its notes and replaces
its intonation with the notes' pitches."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from soundstage.engines.music import lyrics
from soundstage.engines.music.composition import STEPS_PER_BAR, Composition, Section
from soundstage.engines.music.melody import Motif, realize
from soundstage.engines.music.score import Note, Track
from soundstage.engines.tts.base import SpeechSynthesizer
from soundstage.media.audio import Audio

VOCAL_PROGRAM: Final = 52  # Choir Aahs: what a MIDI player shows the sung line as
RANGES: Final = {"male": (48, 62), "female": (57, 72)}
# Words are stretched at most this much (PSOLA sounds robotic beyond) and compressed at most
# to this fraction; what is left of a note is silence.
_MAX_STRETCH: Final = 2.6
_MIN_STRETCH: Final = 0.6
_GAP_S: Final = 0.03  # breath between words
_EDGE_S: Final = 0.006
_PRAAT_SEED: Final = 1
_PRAAT_RANDOM = threading.Lock()  # the generator is Praat's one, shared by every thread


@dataclass(frozen=True)
class SungWord:
    word: str
    notes: tuple[Note, ...]  # one a syllable, in order


@dataclass(frozen=True)
class LyricLine:
    section: int  # index in the composition's sections
    text: str
    start_s: float


@dataclass(frozen=True)
class VocalPart:
    track: Track
    words: tuple[SungWord, ...]
    lines: tuple[LyricLine, ...]


@dataclass(frozen=True)
class _Phrasing:
    """How lyric lines sit on the bars at the piece's tempo."""

    line_bars: int  # bars a line takes: one, two or four at quicker tempos
    unit: int  # the shortest syllable, in steps
    window: int  # the steps a line's syllables spread over (the rest is breath)
    max_syllables: int

    @classmethod
    def at(cls, composition: Composition) -> _Phrasing:
        bar_s = composition.bar_s
        line_bars = 1 if bar_s >= 3.2 else 2 if bar_s >= 1.6 else 4
        unit = 2 if 2 * composition.step_s >= 0.22 else 4
        window = int(line_bars * STEPS_PER_BAR * 0.75)
        return cls(line_bars, unit, window, min(10, window // unit))


def write_vocal_part(
    composition: Composition,
    motifs: dict[str, Motif],
    themes: tuple[str, ...],
    valence: float,
    rng: random.Random,
    *,
    voice_range: tuple[int, int],
    channel: int,
) -> VocalPart:
    """Lines on every verse and chorus (a line per bar, two or four at quicker tempos); the
    chorus words are the same each time, each verse has its own. `channel` is the MIDI
    channel the arrangement kept for the sung line."""
    phrasing = _Phrasing.at(composition)
    words: list[SungWord] = []
    placed: list[LyricLine] = []
    for index, section, texts in _section_lyrics(composition, phrasing, themes, valence, rng):
        for number, text in enumerate(texts):
            line_words = _sung_line(
                composition,
                section,
                motifs[section.name],
                text,
                section.start_bar + number * phrasing.line_bars,
                phrasing,
                voice_range=voice_range,
            )
            words.extend(line_words)
            placed.append(LyricLine(index, text, line_words[0].notes[0].start))
    track = Track("Vocals (sung)", "vocals", VOCAL_PROGRAM, channel, rendered=False)
    track.notes = [note for word in words for note in word.notes]
    return VocalPart(track, tuple(words), tuple(placed))


def _section_lyrics(
    composition: Composition,
    phrasing: _Phrasing,
    themes: tuple[str, ...],
    valence: float,
    rng: random.Random,
) -> Iterator[tuple[int, Section, list[str]]]:
    """(index, section, its lines) of each verse and chorus in order: every chorus sings the
    first chorus's words (more are written when a longer chorus needs them), every verse
    its own."""
    chorus_lines: list[str] | None = None
    for index, section in enumerate(composition.sections):
        if section.name not in ("verse", "chorus"):
            continue
        count = section.bars // phrasing.line_bars
        if section.name == "verse":
            yield (
                index,
                section,
                lyrics.write_lines(themes, valence, count, phrasing.max_syllables, rng),
            )
            continue
        if chorus_lines is None or len(chorus_lines) < count:
            chorus_lines = lyrics.write_lines(themes, valence, count, phrasing.max_syllables, rng)
        yield index, section, chorus_lines[:count]


def _sung_line(
    composition: Composition,
    section: Section,
    motif: Motif,
    text: str,
    first_bar: int,
    phrasing: _Phrasing,
    *,
    voice_range: tuple[int, int],
) -> list[SungWord]:
    unit, window = phrasing.unit, phrasing.window
    counts = [lyrics.syllables(word) for word in text.split()]
    total = sum(counts)
    spacing = max(unit, (window // max(1, total)) // unit * unit)
    start = first_bar * STEPS_PER_BAR
    onsets = [start + i * spacing for i in range(total)]
    last_end = start + max(window + unit, (total - 1) * spacing + 2 * unit)
    last_end = min(last_end, start + phrasing.line_bars * STEPS_PER_BAR - 1)
    rhythm = [
        (onset, (onsets[i + 1] if i + 1 < total else last_end) - onset)
        for i, onset in enumerate(onsets)
    ]
    lift = 2 if section.name == "chorus" else 0
    centre = composition.key.nearest_degree(sum(voice_range) // 2) + lift
    melody = realize(
        rhythm, motif.contour, centre, composition.key, composition.chords, voice_range
    )
    step_s = composition.step_s
    notes = [
        Note(m.start_step * step_s, (m.start_step + m.steps) * step_s, m.pitch, 96) for m in melody
    ]
    sung: list[SungWord] = []
    position = 0
    for word, count in zip(text.split(), counts, strict=True):
        sung.append(SungWord(word, tuple(notes[position : position + count])))
        position += count
    return sung


def sing(
    part: VocalPart, engine: SpeechSynthesizer, voice: str, *, sample_rate: int, frames: int
) -> Audio:
    """The vocal stem: every word spoken by the voice, fitted to its notes, placed at its time."""
    import soxr

    spoken: dict[str, Audio] = {}
    native_rate: int | None = None
    buffer: npt.NDArray[np.float64] | None = None
    for word in part.words:
        if word.word not in spoken:
            # Deterministic: a seed gives the same song, sung line included.
            spoken[word.word] = _trimmed(engine.synthesize(word.word, voice, deterministic=True))
        clip = spoken[word.word]
        if buffer is None or native_rate is None:
            native_rate = clip.sample_rate
            buffer = np.zeros(round(frames * native_rate / sample_rate) + 1, dtype=np.float64)
        sung = _fit(clip, word.notes)
        begin = round(word.notes[0].start * native_rate)
        end = min(buffer.shape[0], begin + sung.shape[0])
        buffer[begin:end] += sung[: end - begin]
    if buffer is None or native_rate is None:
        return Audio(np.zeros((frames, 1), dtype=np.float32), sample_rate)
    resampled = soxr.resample(buffer.astype(np.float32), native_rate, sample_rate)
    out = np.zeros(frames, dtype=np.float32)
    length = min(frames, resampled.shape[0])
    out[:length] = resampled[:length]
    return Audio(out.reshape(-1, 1), sample_rate)


def _trimmed(audio: Audio) -> Audio:
    """The word without the engine's silence around it."""
    samples = audio.samples[:, 0]
    loud = np.flatnonzero(np.abs(samples) > 0.02 * float(np.max(np.abs(samples))))
    pad = round(0.01 * audio.sample_rate)
    start, end = max(0, int(loud[0]) - pad), min(samples.shape[0], int(loud[-1]) + pad)
    return Audio(np.ascontiguousarray(samples[start:end].reshape(-1, 1)), audio.sample_rate)


def _fit(clip: Audio, notes: tuple[Note, ...]) -> npt.NDArray[np.float64]:
    """The word stretched over its notes (less a breath) with each syllable's pitch held on
    its note: PSOLA with a constant duration ratio and a stepwise pitch tier."""
    import parselmouth
    from parselmouth.praat import call, run

    rate = clip.sample_rate
    source_s = clip.frames / rate
    target_s = max(0.08, notes[-1].end - notes[0].start - _GAP_S)
    ratio = min(_MAX_STRETCH, max(_MIN_STRETCH, target_s / source_s))
    sound = parselmouth.Sound(clip.samples[:, 0].astype(np.float64), sampling_frequency=rate)
    manipulation = call(sound, "To Manipulation", 0.01, 75, 600)
    duration = call("Create DurationTier", "duration", 0, source_s)
    call(duration, "Add point", 0, ratio)
    call([manipulation, duration], "Replace duration tier")
    pitch = call("Create PitchTier", "pitch", 0, source_s)
    origin = notes[0].start
    for note in notes:
        hertz = 440.0 * 2 ** ((note.pitch - 69) / 12)
        begin = min(source_s, (note.start - origin) / ratio)
        end = min(source_s, (note.end - origin) / ratio)
        call(pitch, "Add point", begin + _EDGE_S, hertz)
        call(pitch, "Add point", max(begin + _EDGE_S, end - _EDGE_S), hertz)
    call([manipulation, pitch], "Replace pitch tier")
    with _PRAAT_RANDOM:
        # Praat's overlap-add draws from its process-wide random generator: seeded for each
        # word, so that a seed gives the same song.
        run(f"random_initializeWithSeedUnsafelyButPredictably ({_PRAAT_SEED})")
        result = call(manipulation, "Get resynthesis (overlap-add)")
    samples = np.asarray(result.values[0], dtype=np.float64)
    fade = min(samples.shape[0] // 2, round(0.008 * rate))
    if fade:
        ramp = np.linspace(0, 1, fade)
        samples[:fade] *= ramp
        samples[-fade:] *= ramp[::-1]
    return samples
