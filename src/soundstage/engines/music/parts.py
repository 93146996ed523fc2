"""One bar of each accompaniment part, by style: bass lines, chord comping and drum grooves, as
(onset step, length in steps, pitches, velocity) on the bar's sixteen-step grid."""

from __future__ import annotations

import random
from typing import Final

from soundstage.engines.music.genres import CRASH, DRUM_NAMES, KICK, LOW_TOM, MID_TOM, SNARE, Genre
from soundstage.engines.music.theory import Chord

Hit = tuple[float, float, tuple[int, ...], int]  # onset step, length, pitches, velocity

_VELOCITY: Final = {"X": 112, "x": 92, "o": 52}
# Bass patterns: (onset, length, chord-relative choice) where the choice is "r" root, "5"
# fifth, "8" octave, "3" third, "7" seventh, "6" sixth, "a" approach to the next root.
_BASS_PATTERNS: Final[dict[str, tuple[tuple[int, int, str], ...]]] = {
    "root": ((0, 16, "r"),),
    "drone": ((0, 16, "r"),),
    "root_fifth": ((0, 6, "r"), (6, 2, "5"), (8, 6, "5"), (14, 2, "r")),
    "eighths": tuple((step, 2, "r") for step in range(0, 16, 2)),
    "chug": tuple((step, 1, "r") for step in range(0, 16, 2)),
    "pop": ((0, 3, "r"), (3, 3, "r"), (6, 2, "8"), (8, 4, "r"), (12, 2, "5"), (14, 2, "r")),
    "walking": ((0, 4, "r"), (4, 4, "3"), (8, 4, "5"), (12, 4, "a")),
    "boogie": tuple(
        (step * 2, 2, degree)
        for step, degree in enumerate(("r", "3", "5", "6", "7", "6", "5", "3"))
    ),
    "offbeat": ((2, 2, "r"), (6, 2, "8"), (10, 2, "r"), (14, 2, "8")),
    "sub": ((0, 6, "r"), (6, 4, "r"), (10, 6, "5")),
    "funk": (
        (0, 2, "r"),
        (3, 1, "8"),
        (6, 1, "r"),
        (7, 1, "7"),
        (10, 2, "r"),
        (13, 1, "8"),
        (14, 2, "5"),
    ),
    "reggae": ((0, 3, "r"), (4, 2, "5"), (6, 2, "r"), (10, 2, "3"), (12, 4, "r")),
}
# Comping rhythms: (onset, length); several per style, one chosen a bar.
_COMP_RHYTHMS: Final[dict[str, tuple[tuple[tuple[float, float], ...], ...]]] = {
    "pulse": (((0, 4), (4, 4), (8, 4), (12, 4)), ((0, 6), (6, 2), (8, 4), (12, 4))),
    "power": (tuple((s, 1.6) for s in range(0, 16, 2)),),
    "jazz": (((0, 3), (6, 4)), ((2, 2), (10, 4)), ((0, 6), (12, 2)), ((3, 3), (8, 4))),
    "shuffle": (tuple((s, 2) for s in range(0, 16, 2)),),
    "strings": (((0, 16),),),
    "swell": (((0, 16),),),
    "stabs": (((2, 1), (6, 1), (10, 1), (14, 1)), ((0, 1), (3, 1), (6, 1), (10, 2))),
    "sparse": (((0, 8), (10, 6)), ((0, 6), (7, 9))),
    "funk": (((0, 1), (3, 1), (6, 1), (8, 1), (10, 1), (13, 1), (14, 1)),),
    "skank": (((4, 2), (12, 2)),),
    "strum": (((0, 4), (4, 2), (6, 2), (10, 2), (12, 2), (14, 2)),),
    "bossa": (((0, 3), (3, 3), (8, 2), (10, 4)), ((0, 2), (3, 3), (6, 4), (12, 4))),
}
_ARPEGGIO_STYLES: Final = {
    "arpeggio": (0, 1, 2, 3, 2, 1, 0, 1),
    "fingerpick": (0, 2, 1, 2, 0, 2, 1, 2),
}


def bass_bar(style: str, chord_: Chord, next_chord: Chord, energy: float, low: int) -> list[Hit]:
    root = chord_.bass_pitch(low)
    intervals = {"r": 0, "5": 7, "8": 12, "3": chord_.intervals[1], "6": 9}
    intervals["7"] = chord_.intervals[3] if len(chord_.intervals) > 3 else 10
    pattern = _BASS_PATTERNS.get(style, _BASS_PATTERNS["root"])
    if style == "chug" and energy > 0.8:
        pattern = tuple((step, 1, "r") for step in range(16))
    if style == "root" and energy > 0.6:
        pattern = ((0, 8, "r"), (8, 8, "5"))
    velocity = round(80 + 30 * energy)
    hits: list[Hit] = []
    for onset, length, choice in pattern:
        if choice == "a":
            target = next_chord.bass_pitch(low)
            pitch = target - 1 if target - 1 != root else target + 1
        else:
            pitch = root + intervals[choice]
        accent = 10 if onset % 8 == 0 else 0
        hits.append((onset, length * 0.9, (pitch,), min(127, velocity + accent)))
    return hits


def comp_bar(style: str, voicing: list[int], energy: float, rng: random.Random) -> list[Hit]:
    velocity = round(60 + 35 * energy)
    if style in _ARPEGGIO_STYLES:
        order = _ARPEGGIO_STYLES[style]
        notes = [*sorted(voicing), sorted(voicing)[0] + 12]
        step = 1 if energy > 0.85 and style == "arpeggio" else 2
        hits: list[Hit] = []
        for index, onset in enumerate(range(0, 16, step)):
            pitch = notes[order[index % len(order)] % len(notes)]
            hits.append((onset, step * 1.8, (pitch,), velocity - (0 if onset % 4 == 0 else 12)))
        return hits
    rhythms = _COMP_RHYTHMS.get(style, _COMP_RHYTHMS["pulse"])
    rhythm = rng.choice(rhythms)
    if style == "pulse" and energy < 0.5:
        rhythm = ((0, 8), (8, 8))
    chord_notes = tuple(voicing)
    if style == "power":
        chord_notes = (voicing[0], voicing[0] + 7, voicing[0] + 12)
    return [
        (onset, length * 0.92, chord_notes, velocity - (0 if onset % 4 == 0 else 10))
        for onset, length in rhythm
    ]


def drum_bar(
    genre: Genre, energy: float, *, section: str, fill: bool, first_of_section: bool
) -> list[Hit]:
    pattern = genre.chorus_drums if energy >= 0.8 else genre.verse_drums
    if section == "intro":
        # Intros keep only the time (hats, ride, shaker): the groove enters with the verse.
        pattern = {
            name: steps for name, steps in pattern.items() if name in ("hat", "ride", "shaker")
        }
    scale = 0.7 + 0.3 * energy
    hits: list[Hit] = []
    for name, steps in pattern.items():
        for onset, mark in enumerate(steps):
            if mark in _VELOCITY and not (fill and onset >= 12):
                velocity = round(_VELOCITY[mark] * scale)
                hits.append((onset, 1, (DRUM_NAMES[name],), velocity))
    if fill and section != "intro":
        for onset, pitch in ((12, SNARE), (13, SNARE), (14, MID_TOM), (15, LOW_TOM)):
            hits.append((onset, 1, (pitch,), round(95 * scale)))
    if first_of_section and section in ("chorus", "bridge") and pattern:
        hits.append((0, 1, (CRASH,), round(105 * scale)))
        hits.append((0, 1, (KICK,), round(105 * scale)))
    return hits
