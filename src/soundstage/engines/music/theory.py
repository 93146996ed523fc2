"""Music theory the composer needs: keys, scales, chords written as Roman numerals, voicings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

Mode = Literal["major", "minor"]

NOTE_NAMES: Final = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
_LETTERS: Final = {"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}
SCALES: Final[dict[Mode, tuple[int, ...]]] = {
    "major": (0, 2, 4, 5, 7, 9, 11),
    "minor": (0, 2, 3, 5, 7, 8, 10),
}
# Semitones above the root of each chord quality.
QUALITIES: Final[dict[str, tuple[int, ...]]] = {
    "": (0, 4, 7),
    "m": (0, 3, 7),
    "dim": (0, 3, 6),
    "7": (0, 4, 7, 10),
    "maj7": (0, 4, 7, 11),
    "m7": (0, 3, 7, 10),
    "m7b5": (0, 3, 6, 10),
    "sus4": (0, 5, 7),
    "sus2": (0, 2, 7),
    "add9": (0, 4, 7, 14),
    "m9": (0, 3, 7, 10, 14),
    "maj9": (0, 4, 7, 11, 14),
    "9": (0, 4, 7, 10, 14),
    "5": (0, 7),
}
_NUMERALS: Final = {"i": 0, "ii": 2, "iii": 4, "iv": 5, "v": 7, "vi": 9, "vii": 11}
_ROMAN: Final = re.compile(r"^(?P<acc>[b#]?)(?P<num>[iIvV]+)(?P<suffix>.*)$")


@dataclass(frozen=True)
class Key:
    tonic: int  # pitch class, C = 0
    mode: Mode

    @property
    def name(self) -> str:
        return f"{NOTE_NAMES[self.tonic]} {self.mode}"

    @property
    def scale(self) -> tuple[int, ...]:
        """The pitch classes of the scale, tonic first."""
        return tuple((self.tonic + step) % 12 for step in SCALES[self.mode])

    def degree_pitch(self, degree: int, *, octave_base: int = 60) -> int:
        """MIDI key of scale degree `degree` (0 = tonic; may be negative or above 6), counted
        from the tonic at or above `octave_base` - 12."""
        octave, step = divmod(degree, 7)
        root = octave_base + (self.tonic - octave_base) % 12
        return root + 12 * octave + SCALES[self.mode][step]

    def nearest_degree(self, pitch: int, *, octave_base: int = 60) -> int:
        """The scale degree (as counted by degree_pitch) whose pitch is closest to `pitch`."""
        best, best_distance = 0, 1000
        guess = round((pitch - octave_base) * 7 / 12)
        for degree in range(guess - 4, guess + 5):
            distance = abs(self.degree_pitch(degree, octave_base=octave_base) - pitch)
            if distance < best_distance:
                best, best_distance = degree, distance
        return best


@dataclass(frozen=True)
class Chord:
    root: int  # pitch class
    quality: str
    numeral: str

    @property
    def intervals(self) -> tuple[int, ...]:
        return QUALITIES[self.quality]

    @property
    def pitch_classes(self) -> tuple[int, ...]:
        return tuple((self.root + step) % 12 for step in self.intervals)

    @property
    def triad(self) -> tuple[int, ...]:
        """Root, third (or suspension) and fifth: the notes a melody may rest on."""
        return self.pitch_classes[:3]

    def bass_pitch(self, low: int = 36) -> int:
        """The root in the octave starting at `low`."""
        return low + (self.root - low) % 12


def parse_note_name(text: str) -> int | None:
    """'D', 'f#', 'Bb', 'E flat', 'C sharp' -> pitch class; None if not a note name."""
    cleaned = text.strip().lower().replace("\u266d", "b").replace("\u266f", "#")
    cleaned = re.sub(r"\s*-?\s*sharp$", "#", cleaned)
    cleaned = re.sub(r"\s*-?\s*flat$", "b", cleaned)
    if not cleaned or cleaned[0] not in _LETTERS:
        return None
    pitch = _LETTERS[cleaned[0]]
    for accidental in cleaned[1:]:
        if accidental == "#":
            pitch += 1
        elif accidental == "b":
            pitch -= 1
        else:
            return None
    return pitch % 12


def chord(key: Key, numeral: str) -> Chord:
    """A chord written as a Roman numeral relative to the key: upper case is major, lower case
    minor, optional accidental before ('bVII', '#iv') and quality after ('V7', 'ii7', 'vii dim'
    as 'viidim', 'I5' a power chord). A minor-case numeral with a 7 is a minor seventh."""
    match = _ROMAN.match(numeral)
    if match is None or match["num"].lower() not in _NUMERALS:
        raise ValueError(f"not a Roman numeral chord: {numeral!r}")
    degree = _NUMERALS[match["num"].lower()]
    offset = {"b": -1, "#": 1, "": 0}[match["acc"]]
    root = (key.tonic + degree + offset) % 12
    minor = match["num"].islower()
    suffix = match["suffix"]
    if suffix in ("dim", "m7b5", "sus4", "sus2", "5"):
        quality = suffix
    elif suffix in ("7", "9"):
        quality = f"m{suffix}" if minor else suffix
    elif suffix in ("maj7", "maj9", "add9"):
        quality = suffix
    elif suffix == "":
        quality = "m" if minor else ""
    else:
        raise ValueError(f"unknown chord quality in {numeral!r}")
    return Chord(root, quality, numeral)


def voicing(chord_: Chord, previous: list[int] | None, *, low: int, high: int) -> list[int]:
    """The chord's notes in [low, high], in the inversion closest to the previous voicing (smooth
    voice leading), each pitch class once; without a previous voicing, in close position from
    the middle of the range."""
    classes = chord_.pitch_classes
    centre = (low + high) // 2 if not previous else round(sum(previous) / len(previous))
    candidates: list[list[int]] = []
    for bottom in range(low, high - 6):
        if bottom % 12 not in classes:
            continue
        notes = [bottom]
        for pitch_class in classes:
            if pitch_class == bottom % 12:
                continue
            notes.append(bottom + (pitch_class - bottom) % 12)
        notes.sort()
        if notes[-1] <= high:
            candidates.append(notes)
    if not candidates:
        return sorted(low + (pc - low) % 12 for pc in classes)

    def cost(notes: list[int]) -> float:
        movement = abs(sum(notes) / len(notes) - centre)
        if previous:
            movement += sum(min(abs(n - p) for p in previous) for n in notes) / len(notes)
        return movement

    return min(candidates, key=cost)
