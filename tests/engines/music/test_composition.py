"""The composer without the API: reading prompts, planning sections, cadences, lyrics, and
every genre rendered through FluidSynth and mastered."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from soundstage.core.errors import InvalidField
from soundstage.engines.music import lyrics
from soundstage.engines.music.arrangement import arrange
from soundstage.engines.music.composition import MIN_FINAL_SECONDS, compose, plan_sections
from soundstage.engines.music.generator import generate, write_score
from soundstage.engines.music.genres import GENRES, genre_named
from soundstage.engines.music.prompt import MAX_INSTRUMENTS, read_prompt
from soundstage.engines.music.score import MELODIC_CHANNELS, Channels
from tests.support import music_analysis as analysis
from tests.support.music import ELEVEN_LOW, ELEVEN_MELODIC

# The fifteen genres (and latin), each named as a user might.
GENRE_PROMPTS = {
    "a catchy pop tune": "pop",
    "indie rock with loud guitars": "rock",
    "smooth jazz for a late night bar": "jazz",
    "a slow delta blues": "blues",
    "a baroque classical piece": "classical",
    "an epic orchestral trailer": "cinematic",
    "an ambient soundscape": "ambient",
    "deep house for the club": "electronic",
    "a boom bap hip hop beat": "hip-hop",
    "lofi chill beats to study to": "lo-fi",
    "a funky groove with slap bass": "funk",
    "roots reggae": "reggae",
    "a country song about trucks": "country",
    "thrash metal": "metal",
    "an acoustic folk song": "folk",
    "a bossa nova": "latin",
}


@pytest.mark.parametrize(("prompt", "genre"), GENRE_PROMPTS.items())
def test_the_genre_is_read_from_the_prompt(prompt: str, genre: str) -> None:
    assert read_prompt(prompt).genre.name == genre


def test_tempo_key_instruments_and_mood_are_read() -> None:
    brief = read_prompt("Sad piano and strings in F# minor at 72 bpm, no drums, about rain")
    assert (brief.bpm, brief.key and brief.key.name, brief.drums) == (72, "F# minor", False)
    assert [i.program for i in brief.instruments] == [0, 48]
    assert brief.valence < 0
    assert "rain" in brief.themes
    assert "piano" not in brief.themes
    assert read_prompt("tempo of 90, key of e minor").key == read_prompt("in E minor").key
    assert read_prompt("in Bb with a bass guitar").key.name == "Bb major"  # type: ignore[union-attr]
    assert [i.program for i in read_prompt("bass guitar").instruments] == [33]
    assert read_prompt("a song in a minor mood").key is None
    assert read_prompt("a C sharp minor key ballad").key.name == "C# minor"  # type: ignore[union-attr]
    assert read_prompt("happy upbeat dance").mode == "major"


@pytest.mark.parametrize("bpm", [40, 240])
def test_tempo_bounds_inside(bpm: int) -> None:
    assert read_prompt(f"pop at {bpm} bpm").bpm == bpm


@pytest.mark.parametrize("bpm", [39, 241])
def test_tempo_bounds_outside(bpm: int) -> None:
    with pytest.raises(InvalidField) as error:
        read_prompt(f"pop at {bpm} bpm")
    assert error.value.param == "prompt"


@pytest.mark.parametrize("bars", [2, 4, 7, 15, 40, 150])
def test_sections_cover_the_piece(bars: int) -> None:
    sections = plan_sections(bars, genre_named("pop"), 0.0)
    assert sum(section.bars for section in sections) == bars
    assert sections[-1].name == "outro"
    assert all(a.end_bar == b.start_bar for a, b in itertools.pairwise(sections))
    if bars >= 40:
        assert {"intro", "verse", "chorus", "bridge"} <= {s.name for s in sections}


@pytest.mark.parametrize("seconds", [10, 30, 300])
def test_the_piece_ends_on_a_cadence_at_the_duration(seconds: int) -> None:
    for genre in GENRES:
        brief = read_prompt(genre.aliases[0])
        composition = compose(brief, seconds, random.Random(seconds))
        tail = seconds - composition.bar_start(composition.final_bar)
        assert MIN_FINAL_SECONDS <= tail < MIN_FINAL_SECONDS + composition.bar_s
        last, before = composition.chords[-1], composition.chords[-2]
        assert last.root == composition.key.tonic
        assert (before.root - composition.key.tonic) % 12 == 7  # the dominant


def test_lyrics_fit_their_bars() -> None:
    assert [lyrics.syllables(w) for w in ("love", "summer", "beautiful", "home")] == [1, 2, 3, 1]
    lines = lyrics.write_lines(("ocean", "lights"), 0.5, 6, 8, random.Random(1))
    assert len(lines) == 6
    assert all(lyrics.line_syllables(line) <= 8 for line in lines)
    assert any("ocean" in line for line in lines)


def test_every_genre_renders_with_its_own_band() -> None:
    heard: dict[str, set[int]] = {}
    for genre in GENRES:
        piece = generate(genre.aliases[0], 10.0, 3, singer=None)
        audio = piece.mix
        assert audio.frames == 10 * 44_100
        assert abs(analysis.loudness(audio) + 14) <= 1
        assert float(np.max(np.abs(audio.samples))) < 0.999
        parts = {track.role for track in piece.score.tracks}
        assert {"bass", "chords", "lead"} <= parts
        assert ("drums" in parts) == (genre.kit is not None)
        heard[genre.name] = {t.program for t in piece.score.tracks if not t.is_drums}
    # No two genres share the same band.
    bands = [frozenset(programs) for programs in heard.values()]
    assert len(set(bands)) == len(bands)


def test_named_instruments_take_parts() -> None:
    brief = read_prompt("a waltz for harp, oboe and cello")
    arrangement = arrange(
        compose(brief, 20, random.Random(0)), brief, random.Random(0), vocals=False
    )
    by_role = {track.role: track.program for track in arrangement.score.tracks}
    assert by_role["chords"] == 46  # harp
    assert by_role["lead"] == 68  # oboe
    assert 42 in {track.program for track in arrangement.score.tracks}  # cello


@pytest.mark.parametrize("prompt", [ELEVEN_MELODIC, ELEVEN_LOW])
def test_every_part_and_the_sung_line_have_their_own_channel(prompt: str) -> None:
    brief = read_prompt(prompt)
    assert len(brief.instruments) == MAX_INSTRUMENTS
    rng = random.Random(0)
    score, part = write_score(compose(brief, 20, rng), brief, rng, "male")
    assert part is not None
    tracks = score.tracks
    assert tracks[-1] is part.track
    melodic = [track.channel for track in tracks if not track.is_drums]
    assert len(melodic) == len(set(melodic))
    assert set(melodic) <= set(MELODIC_CHANNELS)
    # Every named instrument plays.
    assert {i.program for i in brief.instruments} <= {t.program for t in tracks}


def test_a_prompt_naming_too_many_instruments_is_refused() -> None:
    with pytest.raises(InvalidField) as refused:
        read_prompt(ELEVEN_MELODIC + ", accordion, harmonica, violin and flute")
    assert refused.value.param == "prompt"
    assert "15 instruments" in refused.value.message
    # The same instrument named twice (or by two names) counts once.
    assert len(read_prompt(ELEVEN_MELODIC + ", grand piano and vibes").instruments) == 11


def test_channels_are_handed_out_once() -> None:
    channels = Channels()
    taken = [channels.take() for _ in MELODIC_CHANNELS]
    assert sorted(taken) == [c for c in range(16) if c != 9]
    with pytest.raises(InvalidField):
        channels.take()
