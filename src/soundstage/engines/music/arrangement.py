"""From a composition to a score: who plays what (the genre's band, or the instruments the
prompt names), each part bar by bar in its style, the lead melody developed from motifs, the
final cadence held by everyone, and humanized timing and velocity."""

from __future__ import annotations

import random
from dataclasses import dataclass

from soundstage.engines.music import parts
from soundstage.engines.music.composition import STEPS_PER_BAR, Composition
from soundstage.engines.music.genres import CRASH, KICK
from soundstage.engines.music.instruments import Instrument, Role, program_name
from soundstage.engines.music.melody import Motif, inverted, make_motif, section_melody
from soundstage.engines.music.prompt import MusicBrief
from soundstage.engines.music.score import DRUM_CHANNEL, Channels, Note, Score, Track
from soundstage.engines.music.theory import voicing

CHORD_RANGE = (52, 76)
PAD_RANGE = (48, 72)
BASS_LOW = 28  # E1: the bass plays roots from here up an octave
# Parts that hold the final chord, and how far before the end their notes stop.
_END_MARGIN_S = 0.02


@dataclass(frozen=True)
class Arrangement:
    score: Score
    motifs: dict[str, Motif]  # the motif of each kind of section, for the vocal line
    instruments: dict[str, Instrument | int]  # role -> what plays it
    vocal_channel: int | None  # the sung line's own channel (None when instrumental)


class Timing:
    """Steps to seconds, with the genre's swing and a humanizing spread."""

    def __init__(self, composition: Composition, rng: random.Random) -> None:
        self.composition = composition
        self.rng = rng
        genre = composition.genre
        self.swing = genre.swing
        self.unit_steps = 4 if genre.swing_unit == 8 else 2
        self.spread_s = genre.looseness_ms / 1000

    def at(self, step: float, *, tight: bool = False) -> float:
        within, offbeat = divmod(step, self.unit_steps)
        if self.swing != 0.5 and abs(offbeat - self.unit_steps / 2) < 1e-6:
            offbeat = self.swing * self.unit_steps
        seconds = (within * self.unit_steps + offbeat) * self.composition.step_s
        spread = self.spread_s / (2 if tight else 1)
        if step > 0:
            seconds += max(-2 * spread, min(2 * spread, self.rng.gauss(0, spread)))
        return max(0.0, seconds)

    def velocity(self, velocity: int) -> int:
        return max(1, min(127, velocity + round(self.rng.gauss(0, 5))))


def assign_instruments(brief: MusicBrief) -> tuple[dict[str, Instrument | int], list[Instrument]]:
    """Role -> instrument: named instruments first (each in its first free role, then any
    melodic role still free takes a named instrument that can play it), the genre's band for
    the rest. Also the named instruments left without a role (they double a part)."""
    genre = brief.genre
    chosen: dict[str, Instrument | int] = {}
    extras: list[Instrument] = []
    for instrument in brief.instruments:
        free = [r for r in instrument.roles if r not in chosen]
        if free:
            chosen[free[0]] = instrument
        else:
            extras.append(instrument)
    if brief.instruments:
        for role in ("lead", "chords"):
            if role not in chosen:
                player = next((i for i in brief.instruments if role in i.roles), None)
                if player is not None:
                    chosen[role] = player
    defaults: dict[str, int | None] = {
        "bass": genre.bass,
        "chords": genre.chords,
        "lead": genre.lead,
        "pad": genre.pad,
    }
    for role, program in defaults.items():
        if role not in chosen and program is not None:
            # A named pad-capable instrument replaces the genre's pad, not joins it.
            if role == "pad" and brief.instruments:
                continue
            chosen[role] = program
    return chosen, extras


def arrange(
    composition: Composition, brief: MusicBrief, rng: random.Random, *, vocals: bool
) -> Arrangement:
    genre = composition.genre
    timing = Timing(composition, rng)
    roles, extras = assign_instruments(brief)
    motifs = {"verse": make_motif(rng, genre.density), "chorus": make_motif(rng, genre.density)}
    motifs["bridge"] = inverted(motifs["verse"])
    motifs["intro"] = motifs["outro"] = motifs["chorus"]
    tracks: list[Track] = []
    channels = Channels()

    def track(role: str, player: Instrument | int) -> Track:
        program = player if isinstance(player, int) else player.program
        name = program_name(program)
        return Track(f"{role.title()} ({name})", role, program, channels.take())

    if "bass" in roles:
        tracks.append(_bass(track("bass", roles["bass"]), composition, timing))
    if "chords" in roles:
        tracks.append(_comp(track("chords", roles["chords"]), composition, timing, genre.comp))
    if "pad" in roles:
        tracks.append(_comp(track("pad", roles["pad"]), composition, timing, "swell"))
    if "lead" in roles:
        lead = track("lead", roles["lead"])
        tracks.append(_lead(lead, composition, timing, motifs, rng, vocals=vocals))
    for extra in extras:
        role: Role = extra.roles[0]
        source = next((t for t in tracks if t.role == role), None)
        doubled = Track(f"{role.title()} ({extra.name})", role, extra.program, channels.take())
        if source is not None:
            shift = -12 if role == "lead" else 0
            doubled.notes = [
                Note(n.start, n.end, n.pitch + shift, max(1, n.velocity - 12)) for n in source.notes
            ]
        tracks.append(doubled)
    if genre.kit is not None and brief.drums:
        tracks.append(_drums(Track("Drums", "drums", genre.kit, DRUM_CHANNEL), composition, timing))
    score = Score(composition.bpm, composition.key, composition.duration_s, tracks)
    return Arrangement(score, motifs, roles, channels.take() if vocals else None)


def _end_of(composition: Composition) -> float:
    return composition.duration_s - _END_MARGIN_S


def _bass(track: Track, composition: Composition, timing: Timing) -> Track:
    style = composition.genre.bass_style
    for bar in range(composition.final_bar):
        section = composition.section_of(bar)
        if section.name == "intro" and bar < section.start_bar + section.bars // 2:
            continue
        chord_, following = composition.chords[bar], composition.chords[bar + 1]
        for onset, length, pitches, velocity in parts.bass_bar(
            style, chord_, following, section.energy, BASS_LOW
        ):
            _add(track, composition, timing, bar, onset, length, pitches, velocity, tight=True)
    _final(track, composition, (composition.chords[-1].bass_pitch(BASS_LOW),), 96)
    return track


def _comp(track: Track, composition: Composition, timing: Timing, style: str) -> Track:
    low, high = PAD_RANGE if track.role == "pad" else CHORD_RANGE
    previous: list[int] | None = None
    for bar in range(composition.final_bar):
        section = composition.section_of(bar)
        notes = voicing(composition.chords[bar], previous, low=low, high=high)
        previous = notes
        energy = section.energy * (0.7 if track.role == "pad" else 1.0)
        for onset, length, pitches, velocity in parts.comp_bar(style, notes, energy, timing.rng):
            _add(track, composition, timing, bar, onset, length, pitches, velocity)
    final = voicing(composition.chords[-1], previous, low=low, high=high)
    _final(track, composition, tuple(final), 80)
    return track


def _lead(
    track: Track,
    composition: Composition,
    timing: Timing,
    motifs: dict[str, Motif],
    rng: random.Random,
    *,
    vocals: bool,
) -> Track:
    pitch_range = composition.genre.lead_range
    last_pitch = (pitch_range[0] + pitch_range[1]) // 2
    for section in composition.sections:
        # The intro belongs to the band; with vocals the singer has the verses and choruses.
        if section.name == "intro" or (vocals and section.name in ("verse", "chorus")):
            continue
        lift = 2 if section.name == "chorus" else 0
        melody = section_melody(
            composition, section, motifs[section.name], rng, pitch_range=pitch_range, lift=lift
        )
        velocity = round(78 + 30 * section.energy)
        for note in melody:
            if note.start_step >= composition.final_bar * STEPS_PER_BAR:
                continue
            bar, onset = divmod(note.start_step, STEPS_PER_BAR)
            accent = 8 if note.accent else 0
            _add(
                track,
                composition,
                timing,
                bar,
                onset,
                note.steps * 0.95,
                (note.pitch,),
                velocity + accent,
            )
            last_pitch = note.pitch
    tonic = composition.chords[-1].root
    landing = min(
        (p for p in range(pitch_range[0], pitch_range[1] + 1) if p % 12 == tonic),
        key=lambda p: abs(p - last_pitch),
    )
    _final(track, composition, (landing,), 90)
    return track


def _drums(track: Track, composition: Composition, timing: Timing) -> Track:
    genre = composition.genre
    for bar in range(composition.final_bar):
        section = composition.section_of(bar)
        fill = bar == section.end_bar - 1 and section.bars >= 4 and bar + 1 < composition.final_bar
        for onset, length, pitches, velocity in parts.drum_bar(
            genre,
            section.energy,
            section=section.name,
            fill=fill,
            first_of_section=bar == section.start_bar,
        ):
            _add(track, composition, timing, bar, onset, length, pitches, velocity, tight=True)
    start = composition.bar_start(composition.final_bar)
    for pitch in (KICK, CRASH):
        track.notes.append(Note(start, min(start + 0.5, _end_of(composition)), pitch, 110))
    return track


def _add(
    track: Track,
    composition: Composition,
    timing: Timing,
    bar: int,
    onset: float,
    length: float,
    pitches: tuple[int, ...],
    velocity: int,
    *,
    tight: bool = False,
) -> None:
    step = bar * STEPS_PER_BAR + onset
    start = timing.at(step, tight=tight)
    end = max(start + 0.03, composition.step_s * (step + length))
    # Nothing rings into the final chord: every part lands on it together.
    end = min(end, composition.bar_start(composition.final_bar))
    if start >= end:
        return
    # A strummed chord: each string a few milliseconds after the one below.
    strum = (
        0.012
        if composition.genre.comp in ("strum", "fingerpick") and track.role == "chords"
        else 0.0
    )
    for index, pitch in enumerate(sorted(pitches)):
        track.notes.append(Note(start + index * strum, end, pitch, timing.velocity(velocity)))


def _final(track: Track, composition: Composition, pitches: tuple[int, ...], velocity: int) -> None:
    start = composition.bar_start(composition.final_bar)
    for pitch in pitches:
        track.notes.append(Note(start, _end_of(composition), pitch, velocity))
