"""Melodies developed from motifs: a one-bar idea (rhythm and contour) stated, varied, sequenced
and brought to a cadence in four-bar phrases, its pitches fitted to the chords (chord tones on
strong beats) inside the part's range."""

from __future__ import annotations

import random
from dataclasses import dataclass

from soundstage.engines.music.composition import STEPS_PER_BAR, Composition, Section
from soundstage.engines.music.theory import Chord, Key


@dataclass(frozen=True)
class Motif:
    rhythm: tuple[tuple[int, int], ...]  # (onset step, length in steps) within one bar
    contour: tuple[int, ...]  # scale steps from each note to the next


@dataclass(frozen=True)
class MelodyNote:
    start_step: int  # from the start of the piece, in sixteenth-note steps
    steps: int
    pitch: int
    accent: bool  # on a strong beat


def make_motif(rng: random.Random, density: float) -> Motif:
    """A one-bar motif with about `density` notes, onsets favouring strong beats."""
    count = max(1, min(8, round(density + rng.uniform(-1, 1))))
    weights = {
        step: (
            5.0
            if step % 8 == 0
            else 3.0
            if step % 4 == 0
            else 1.5
            if step % 2 == 0
            else 0.4
            if density >= 5
            else 0.0
        )
        for step in range(STEPS_PER_BAR - 2)
    }
    onsets = {0 if rng.random() < 0.7 else 2}
    while len(onsets) < count:
        choices = [s for s, w in weights.items() if w > 0 and s not in onsets]
        if not choices:
            break
        onsets.add(rng.choices(choices, [weights[s] for s in choices])[0])
    ordered = sorted(onsets)
    rhythm = []
    for index, onset in enumerate(ordered):
        end = ordered[index + 1] if index + 1 < len(ordered) else STEPS_PER_BAR
        rhythm.append((onset, end - onset))
    steps = [rng.choice((-2, -1, -1, 1, 1, 2, 0, 3, -3)) for _ in range(len(rhythm))]
    return Motif(tuple(rhythm), tuple(steps))


def varied(motif: Motif, rng: random.Random) -> Motif:
    """The same rhythm with the tail of the contour changed (a consequent to the antecedent)."""
    contour = list(motif.contour)
    for index in range(max(0, len(contour) - 2), len(contour)):
        contour[index] = rng.choice((-2, -1, 1, 2))
    return Motif(motif.rhythm, tuple(contour))


def inverted(motif: Motif) -> Motif:
    return Motif(motif.rhythm, tuple(-step for step in motif.contour))


def section_melody(
    composition: Composition,
    section: Section,
    motif: Motif,
    rng: random.Random,
    *,
    pitch_range: tuple[int, int],
    lift: int = 0,
) -> list[MelodyNote]:
    """The section's melody in four-bar phrases: motif, its variation, the motif a step higher
    (a sequence), then a cadence: the motif's opening and a long chord tone."""
    key = composition.key
    low, high = pitch_range
    centre = key.nearest_degree((low + high) // 2) + lift
    notes: list[MelodyNote] = []
    answer = varied(motif, rng)
    for bar in range(section.start_bar, section.end_bar):
        position = (bar - section.start_bar) % 4
        last_bar_of_section = bar == section.end_bar - 1
        chord_ = composition.chords[bar]
        if position == 3 or last_bar_of_section:
            bar_notes = _cadence_bar(motif, bar, centre, key, chord_, pitch_range)
        else:
            shape = (motif, answer, motif)[position]
            shift = (0, 0, rng.choice((1, 2, -1)))[position]
            bar_notes = realize(
                [(bar * STEPS_PER_BAR + onset, length) for onset, length in shape.rhythm],
                shape.contour,
                centre + shift,
                key,
                composition.chords,
                pitch_range,
            )
        notes.extend(bar_notes)
    return notes


def _cadence_bar(
    motif: Motif, bar: int, centre: int, key: Key, chord_: Chord, pitch_range: tuple[int, int]
) -> list[MelodyNote]:
    start = bar * STEPS_PER_BAR
    opening = [(onset, length) for onset, length in motif.rhythm if onset < 6][:2]
    rhythm = [(start + onset, length) for onset, length in opening]
    held_from = (opening[-1][0] + opening[-1][1]) if opening else 0
    held_from = min(max(held_from, 4), 8)
    rhythm = [
        (s, min(length, start + held_from - s)) for s, length in rhythm if s < start + held_from
    ]
    rhythm.append((start + held_from, STEPS_PER_BAR - held_from))
    contour = tuple(motif.contour[: len(rhythm)]) + (0,) * max(0, len(rhythm) - len(motif.contour))
    notes = realize(rhythm, contour, centre, key, None, pitch_range)
    last = notes[-1]
    landing = nearest_chord_tone(
        last.pitch, chord_.triad[:1] if chord_.root == key.tonic else chord_.triad, pitch_range
    )
    notes[-1] = MelodyNote(last.start_step, last.steps, landing, True)
    return notes


def realize(
    rhythm: list[tuple[int, int]],
    contour: tuple[int, ...],
    start_degree: int,
    key: Key,
    chords: tuple[Chord, ...] | None,
    pitch_range: tuple[int, int],
) -> list[MelodyNote]:
    """Pitches for a rhythm (absolute steps) following a contour of scale steps from a start
    degree; notes on strong beats or held long move to the nearest tone of their bar's chord;
    the line turns back when it would leave the range."""
    low, high = pitch_range
    degree = start_degree
    notes: list[MelodyNote] = []
    for index, (start, steps) in enumerate(rhythm):
        pitch = key.degree_pitch(degree)
        if pitch > high:
            degree -= 7 if key.degree_pitch(degree - 7) >= low else 2
        elif pitch < low:
            degree += 7 if key.degree_pitch(degree + 7) <= high else 2
        pitch = key.degree_pitch(degree)
        strong = start % 8 == 0 or steps >= 6
        if strong and chords is not None:
            bar_chord = chords[min(start // STEPS_PER_BAR, len(chords) - 1)]
            pitch = nearest_chord_tone(pitch, bar_chord.triad, pitch_range)
            degree = key.nearest_degree(pitch)
        notes.append(MelodyNote(start, steps, pitch, strong))
        step = contour[index % len(contour)] if contour else 0
        degree += step
    return notes


def nearest_chord_tone(pitch: int, classes: tuple[int, ...], pitch_range: tuple[int, int]) -> int:
    low, high = pitch_range
    candidates = [p for p in range(low, high + 1) if p % 12 in classes]
    if not candidates:
        return pitch
    return min(candidates, key=lambda p: (abs(p - pitch), p))
