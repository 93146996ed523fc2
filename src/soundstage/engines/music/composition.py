"""The plan of a piece: key, tempo, sections scaled to the duration, one chord a bar, and a final
cadence (dominant, then the tonic held to the end) that lands exactly at the requested length."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final

from soundstage.engines.music.genres import Genre
from soundstage.engines.music.prompt import MusicBrief
from soundstage.engines.music.theory import Chord, Key, Mode, chord, parse_note_name

BEATS_PER_BAR: Final = 4
STEPS_PER_BAR: Final = 16
# The final chord rings at least this long (it carries the fade-out).
MIN_FINAL_SECONDS: Final = 1.8
# Energy of each kind of section, 0..1, before the prompt's own energy shifts it.
SECTION_ENERGY: Final = {"intro": 0.35, "verse": 0.6, "chorus": 0.9, "bridge": 0.7, "outro": 0.5}


@dataclass(frozen=True)
class Section:
    name: str  # intro, verse, chorus, bridge or outro
    start_bar: int
    bars: int
    energy: float  # 0..1

    @property
    def end_bar(self) -> int:
        return self.start_bar + self.bars


@dataclass(frozen=True)
class Composition:
    genre: Genre
    key: Key
    bpm: int
    duration_s: float
    sections: tuple[Section, ...]
    chords: tuple[Chord, ...]  # one a bar; the last is the final tonic, held to the end

    @property
    def bar_s(self) -> float:
        return BEATS_PER_BAR * 60.0 / self.bpm

    @property
    def step_s(self) -> float:
        return self.bar_s / STEPS_PER_BAR

    @property
    def bars(self) -> int:
        return len(self.chords)

    @property
    def final_bar(self) -> int:
        return len(self.chords) - 1

    def bar_start(self, bar: int) -> float:
        return bar * self.bar_s

    def section_of(self, bar: int) -> Section:
        for section in self.sections:
            if section.start_bar <= bar < section.end_bar:
                return section
        return self.sections[-1]


def compose(brief: MusicBrief, duration_s: float, rng: random.Random) -> Composition:
    genre = brief.genre
    key = brief.key or _choose_key(brief, rng)
    bpm = brief.bpm or _choose_bpm(brief, rng)
    bar_s = BEATS_PER_BAR * 60.0 / bpm
    bars = max(2, math.floor((duration_s - MIN_FINAL_SECONDS) / bar_s) + 1)
    sections = plan_sections(bars, genre, brief.energy)
    chords = _harmonize(sections, genre, key, rng)
    return Composition(genre, key, bpm, duration_s, tuple(sections), tuple(chords))


def _choose_key(brief: MusicBrief, rng: random.Random) -> Key:
    mode: Mode = brief.mode or ("major" if rng.random() < brief.genre.major_weight else "minor")
    tonic = parse_note_name(rng.choice(brief.genre.keys))
    assert tonic is not None  # the genre table names real notes
    return Key(tonic, mode)


def _choose_bpm(brief: MusicBrief, rng: random.Random) -> int:
    low, high = brief.genre.bpm
    # Calm prompts sit low in the genre's range, intense ones high, with some chance.
    position = 0.5 + 0.35 * brief.energy + rng.uniform(-0.15, 0.15)
    return round(low + (high - low) * min(1.0, max(0.0, position)))


def plan_sections(bars: int, genre: Genre, energy: float) -> list[Section]:
    """Intro, verses and choruses (a bridge in longer pieces) and an outro ending on the final
    bar; lengths in whole phrases (4 bars, 8 in long pieces, 12 for a blues chorus)."""
    intro = 0 if bars < 5 else 1 if bars < 8 else 2 if bars < 16 else 4
    outro = 1 if bars < 8 else 2 if bars < 16 else 4
    middle = bars - intro - outro
    unit = 12 if genre.name == "blues" and middle >= 24 else 8 if middle >= 48 else 4
    names = ["verse", "chorus", "verse", "chorus", "bridge", "chorus"]
    parts: list[tuple[str, int]] = []
    remaining = middle
    while remaining >= unit:
        name = names[len(parts)] if len(parts) < len(names) else ("verse", "chorus")[len(parts) % 2]
        parts.append((name, unit))
        remaining -= unit
    if remaining > 0:
        if parts:
            name, length = parts[-1]
            parts[-1] = (name, length + remaining)
        else:
            parts.append(("chorus", remaining))
    # A piece should not end on a lone verse: make the last middle part a chorus.
    if parts and parts[-1][0] != "chorus":
        parts[-1] = ("chorus", parts[-1][1])
    layout = ([("intro", intro)] if intro else []) + parts + [("outro", outro)]
    sections: list[Section] = []
    start = 0
    for name, length in layout:
        level = min(1.0, max(0.1, SECTION_ENERGY[name] + 0.15 * energy))
        sections.append(Section(name, start, length, level))
        start += length
    return sections


def _harmonize(sections: list[Section], genre: Genre, key: Key, rng: random.Random) -> list[Chord]:
    """One progression per kind of section (repeats sound like repeats), cycled over its bars;
    the last two bars are the cadence: dominant, then the tonic."""
    harmony = genre.harmony
    mode = key.mode
    chosen = {
        "verse": rng.choice(harmony.verse[mode]),
        "chorus": rng.choice(harmony.chorus[mode]),
        "bridge": rng.choice(harmony.bridge[mode]),
    }
    # The intro states the key (on the tonic) and the outro closes it: I IV V I.
    tonic = harmony.tonic[mode]
    chosen["intro"] = (tonic,)
    chosen["outro"] = (tonic, "IV" if mode == "major" else "iv", harmony.dominant[mode], tonic)
    numerals: list[str] = []
    for section in sections:
        progression = chosen[section.name]
        numerals.extend(progression[i % len(progression)] for i in range(section.bars))
    numerals[-1] = harmony.tonic[mode]
    if len(numerals) >= 2:
        numerals[-2] = harmony.dominant[mode]
    return [chord(key, numeral) for numeral in numerals]
