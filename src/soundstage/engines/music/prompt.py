"""Reading a music prompt: genre, mood, explicit tempo and key, named instruments, theme words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from soundstage.core.errors import InvalidField
from soundstage.engines.music.genres import DEFAULT_GENRE, GENRES, Genre, genre_named
from soundstage.engines.music.instruments import INSTRUMENTS, Instrument
from soundstage.engines.music.theory import Key, Mode, parse_note_name

MIN_BPM: Final = 40
MAX_BPM: Final = 240
# Named instruments a piece can play. Every part has its own MIDI channel, 15 besides the
# drums': the four parts (bass, chords, pad, lead, each played by a named instrument or the
# genre's band), one more for each named instrument left to double a part (all but the first
# at most) and the sung line make at most 4 + (11 - 1) + 1.
MAX_INSTRUMENTS: Final = 11

_BPM = re.compile(r"\b(\d{2,3})\s*(?:-\s*)?(?:bpm|beats per minute|beats a minute)\b", re.I)
_TEMPO = re.compile(r"\btempo(?: of)?\s*(\d{2,3})\b", re.I)
_NOTE = r"([A-G](?:#|b|\u266f|\u266d|\s*-?\s*sharp|\s*-?\s*flat)?)"
_QUALITY = r"(?:\s*(major|minor|maj|min|m)\b)?"
# "in D minor", "in F#m", "in Bb": the letter must be a capital (so "in a minor mood" is not
# A minor); "key of e minor" / "e minor key" accept any case.
_KEY_IN = re.compile(r"\bin\s+" + _NOTE + _QUALITY + r"(?![\w#])")
_KEY_OF = re.compile(r"\bkey\s+of\s+" + _NOTE + _QUALITY, re.I)
_KEY_BEFORE = re.compile(r"\b" + _NOTE + r"\s*(major|minor)\s+key\b", re.I)
_WITHOUT_DRUMS = re.compile(r"\b(?:no|without|without any)\s+(?:drums|percussion|beat)\b", re.I)
_THEME_MOODS: Final = frozenset({"love", "summer", "party", "fun"})
_WORD = re.compile(r"[a-z][a-z']+")

# Mood words: valence (-1 sad .. 1 happy) and energy (-1 calm .. 1 intense).
_MOODS: Final[dict[str, tuple[float, float]]] = {
    "happy": (1, 0.3),
    "upbeat": (0.8, 0.6),
    "uplifting": (1, 0.4),
    "joyful": (1, 0.4),
    "cheerful": (1, 0.3),
    "bright": (0.7, 0.2),
    "sunny": (0.8, 0.2),
    "fun": (0.8, 0.4),
    "hopeful": (0.7, 0.1),
    "romantic": (0.4, -0.3),
    "love": (0.4, 0.0),
    "summer": (0.6, 0.3),
    "triumphant": (0.8, 0.7),
    "heroic": (0.6, 0.7),
    "playful": (0.8, 0.2),
    "sad": (-1, -0.4),
    "melancholic": (-1, -0.4),
    "melancholy": (-1, -0.4),
    "dark": (-0.9, 0.1),
    "moody": (-0.7, -0.1),
    "somber": (-1, -0.5),
    "sombre": (-1, -0.5),
    "gloomy": (-1, -0.4),
    "tense": (-0.7, 0.5),
    "ominous": (-0.9, 0.2),
    "mysterious": (-0.6, -0.2),
    "lonely": (-0.8, -0.5),
    "angry": (-0.8, 0.9),
    "aggressive": (-0.6, 1),
    "haunting": (-0.8, -0.2),
    "nostalgic": (-0.3, -0.3),
    "bittersweet": (-0.4, -0.2),
    "emotional": (-0.5, 0.0),
    "calm": (0.2, -0.9),
    "relaxing": (0.3, -0.9),
    "relaxed": (0.3, -0.8),
    "peaceful": (0.4, -0.9),
    "gentle": (0.3, -0.7),
    "soft": (0.1, -0.7),
    "dreamy": (0.2, -0.6),
    "mellow": (0.1, -0.6),
    "slow": (0.0, -0.8),
    "quiet": (0.0, -0.8),
    "sleepy": (0.1, -1.0),
    "chilled": (0.2, -0.6),
    "energetic": (0.5, 1),
    "fast": (0.2, 0.9),
    "intense": (-0.2, 1),
    "driving": (0.2, 0.8),
    "powerful": (0.1, 0.9),
    "epic": (0.0, 0.7),
    "party": (0.8, 0.8),
    "groovy": (0.6, 0.4),
}
_STOP_TEXT: Final = (
    "a an and the of in on at to for with without about from by into over under song track "
    "music piece tune beat beats bpm tempo key major minor some very really that this is are "
    "be it its like feel feeling feels style vibe vibes sound sounds sounding instrumental "
    "vocals vocal singing sung lyrics no any my your our their using featuring feat played "
    "playing background loop minute minutes seconds long short intro outro verse chorus "
    "bridge drums drum percussion"
)
_STOP_WORDS: Final = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class MusicBrief:
    """What the prompt asks for; None where it leaves the choice to the composer."""

    genre: Genre
    valence: float  # -1 sad .. 1 happy
    energy: float  # -1 calm .. 1 intense
    bpm: int | None
    key: Key | None
    mode: Mode | None  # from the mood when no key is named
    instruments: tuple[Instrument, ...]
    drums: bool
    themes: tuple[str, ...]  # content words, for lyrics


def read_prompt(prompt: str) -> MusicBrief:
    lowered = prompt.lower()
    genre = _genre(lowered)
    valence, energy = _mood(lowered)
    key = _key(prompt)
    mode: Mode | None = None
    if key is None and abs(valence) >= 0.3:
        mode = "major" if valence > 0 else "minor"
    instruments = _instruments(lowered)
    return MusicBrief(
        genre=genre,
        valence=valence,
        energy=energy,
        bpm=_bpm(prompt),
        key=key,
        mode=mode,
        instruments=instruments,
        drums=_WITHOUT_DRUMS.search(prompt) is None,
        themes=_themes(lowered, genre, instruments),
    )


def _genre(lowered: str) -> Genre:
    """The genre named first in the prompt (by any of its names); the default otherwise."""
    best: tuple[int, int, Genre] | None = None
    for genre in GENRES:
        for alias in genre.aliases:
            match = re.search(r"(?<![\w-])" + re.escape(alias) + r"(?![\w-])", lowered)
            if match is None:
                continue
            # Earliest first; at the same place the longest name ("hip hop" over "hip").
            rank = (match.start(), -len(alias), genre)
            if best is None or rank[:2] < best[:2]:
                best = rank
    return best[2] if best else genre_named(DEFAULT_GENRE)


def _mood(lowered: str) -> tuple[float, float]:
    found = [_MOODS[word] for word in _WORD.findall(lowered) if word in _MOODS]
    if not found:
        return 0.0, 0.0
    return (
        max(-1.0, min(1.0, sum(v for v, _ in found) / len(found))),
        max(-1.0, min(1.0, sum(e for _, e in found) / len(found))),
    )


def _bpm(prompt: str) -> int | None:
    match = _BPM.search(prompt) or _TEMPO.search(prompt)
    if match is None:
        return None
    bpm = int(match.group(1))
    if not MIN_BPM <= bpm <= MAX_BPM:
        raise InvalidField(
            f"prompt: a tempo of {bpm} bpm cannot be played; ask for {MIN_BPM} to {MAX_BPM} bpm.",
            param="prompt",
        )
    return bpm


def _key(prompt: str) -> Key | None:
    for pattern in (_KEY_OF, _KEY_BEFORE, _KEY_IN):
        match = pattern.search(prompt)
        if match is None:
            continue
        tonic = parse_note_name(match.group(1))
        if tonic is None:
            continue
        quality = (match.group(2) or "").lower()
        return Key(tonic, "minor" if quality in ("minor", "min", "m") else "major")
    return None


def _instruments(lowered: str) -> tuple[Instrument, ...]:
    """Named instruments in the order they are named, longest names first ("bass guitar" is
    not also a guitar), each program once."""
    taken = [False] * len(lowered)
    found: list[tuple[int, Instrument]] = []
    for name in sorted(INSTRUMENTS, key=len, reverse=True):
        pattern = re.compile(r"(?<![\w-])" + re.escape(name) + r"s?(?![\w-])")
        for match in pattern.finditer(lowered):
            if any(taken[match.start() : match.end()]):
                continue
            taken[match.start() : match.end()] = [True] * (match.end() - match.start())
            found.append((match.start(), INSTRUMENTS[name]))
    ordered: list[Instrument] = []
    for _, instrument in sorted(found, key=lambda item: item[0]):
        if instrument.program not in {i.program for i in ordered}:
            ordered.append(instrument)
    if len(ordered) > MAX_INSTRUMENTS:
        raise InvalidField(
            f"prompt: it names {len(ordered)} instruments "
            f"({', '.join(i.name for i in ordered)}); a piece plays at most "
            f"{MAX_INSTRUMENTS}, so name fewer.",
            param="prompt",
        )
    return tuple(ordered)


def _themes(lowered: str, genre: Genre, instruments: tuple[Instrument, ...]) -> tuple[str, ...]:
    # Mood adjectives steer the music, not the words ("upbeat" is no image to sing of).
    skip = set(_STOP_WORDS) | (set(_MOODS) - _THEME_MOODS)
    for alias in genre.aliases:
        skip.update(alias.split())
    for name in INSTRUMENTS:
        skip.update(name.split())
        skip.update(f"{word}s" for word in name.split())
    for other in GENRES:
        for alias in other.aliases:
            skip.update(alias.split())
    words: list[str] = []
    for word in _WORD.findall(lowered):
        if len(word) >= 3 and word not in skip and word not in words:
            words.append(word)
    return tuple(words)
