"""The FluidSynth layer music and sound effects share, with the real synthesizer and soundfont:
notes sound where they are placed, a fresh synthesizer gives the same samples every time, and
a missing or broken soundfont is a typed 503 for both features."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from soundstage.engines import fluidsynth
from soundstage.engines.cache import MODELS
from soundstage.engines.fluidsynth import (
    SOUNDFONTS,
    Played,
    RendererUnavailable,
    SoundfontName,
    Synth,
    find_soundfont,
    loaded_font,
    soundfont_path,
)
from soundstage.engines.music.arrangement import arrange
from soundstage.engines.music.composition import compose
from soundstage.engines.music.prompt import read_prompt
from soundstage.engines.music.rendering import fluidsynth_renderer, get_renderer
from soundstage.engines.sound import gm

RATE = 44_100


def test_a_note_sounds_from_its_start_and_the_same_notes_give_the_same_samples() -> None:
    notes = [Played(0.5, 0.9, 60, 100), Played(0.7, 1.0, 67, 90)]
    renders = []
    for _ in range(2):
        with Synth(RATE, gain=0.4) as synth:
            renders.append(synth.play(0, 0, 0, notes, RATE * 3 // 2))
    first, second = renders
    assert first.shape == (RATE * 3 // 2, 2)
    assert first.dtype == np.float32
    assert first.tobytes() == second.tobytes()
    assert not first[: RATE // 2].any()
    assert float(np.max(np.abs(first[RATE // 2 : RATE // 2 + RATE // 10]))) > 0.01


@pytest.mark.parametrize("name", ["fluidr3_gm", "musescore_general"])
def test_each_soundfont_loads_once_per_process_and_renders_the_same_bytes(
    name: SoundfontName,
) -> None:
    path = soundfont_path(name)
    notes = [Played(0.1, 0.6, 60, 100), Played(0.3, 0.8, 64, 90)]
    renders = []
    for _ in range(3):
        with Synth(RATE, gain=0.4, soundfont=path) as synth:
            renders.append(synth.play(0, 0, 48, notes, RATE))
    assert renders[0].tobytes() == renders[1].tobytes() == renders[2].tobytes()
    assert float(np.max(np.abs(renders[0]))) > 0.01
    assert MODELS.loaded().count(("soundfont", str(path))) == 1
    assert loaded_font(path) is loaded_font(path)


def test_the_two_soundfonts_sound_different() -> None:
    notes = [Played(0.0, 0.5, 60, 100)]
    played = []
    for name in ("fluidr3_gm", "musescore_general"):
        with Synth(RATE, gain=0.4, soundfont=soundfont_path(name)) as synth:
            played.append(synth.play(0, 0, 0, notes, RATE // 2))
    assert played[0].tobytes() != played[1].tobytes()


def test_a_missing_musescore_general_is_503(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fluidsynth, "MUSESCORE_GENERAL", (tmp_path / "MuseScore_General.sf3",))
    with pytest.raises(RendererUnavailable, match="musescore-general-soundfont"):
        soundfont_path("musescore_general")


def test_the_soundfont_is_the_first_one_installed(tmp_path: Path) -> None:
    installed = next(path for path in SOUNDFONTS if path.is_file())
    assert find_soundfont((tmp_path / "missing.sf2", installed)) == installed
    with pytest.raises(RendererUnavailable) as missing:
        find_soundfont((tmp_path / "missing.sf2",))
    assert (missing.value.status, missing.value.code) == (503, "engine_unavailable")


def test_a_broken_soundfont_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    broken = tmp_path / "broken.sf2"
    broken.write_bytes(b"RIFF\x04\x00\x00\x00sfbk" + bytes(64))
    with pytest.raises(RendererUnavailable, match="could not load"):
        Synth(RATE, gain=0.4, soundfont=broken)


def test_without_a_soundfont_music_and_sound_effects_are_503(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine without fluid-soundfont-gm: both features raise the same typed error."""
    monkeypatch.setattr(fluidsynth, "SOUNDFONTS", (tmp_path / "FluidR3_GM.sf2",))
    with pytest.raises(RendererUnavailable):
        gm.play(124, [gm.Note(0.1, 60, 100, 0.5)], 1.0)
    # What get_renderer makes on first use (the process's renderer is kept once made).
    with pytest.raises(RendererUnavailable):
        fluidsynth_renderer()


def test_the_renderer_is_made_once_per_process() -> None:
    renderer = get_renderer()
    assert get_renderer() is renderer
    brief = read_prompt("a happy pop song")
    rng = random.Random(0)
    score = arrange(compose(brief, 10, rng), brief, rng, vocals=False).score
    stems = renderer.render(score)
    assert set(stems) == {track.name for track in score.tracks}
    assert {audio.frames for audio in stems.values()} == {10 * 44_100}
