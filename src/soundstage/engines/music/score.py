"""The arranged piece as timed notes on tracks, and its Standard MIDI File."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import mido

from soundstage.core.errors import InvalidField
from soundstage.engines.music.theory import NOTE_NAMES, Key

DRUM_CHANNEL: Final = 9
# The channels of the pitched parts (and the sung line): General MIDI keeps 10 for drums.
MELODIC_CHANNELS: Final = tuple(channel for channel in range(16) if channel != DRUM_CHANNEL)
TICKS_PER_BEAT: Final = 480


@dataclass(frozen=True)
class Note:
    start: float  # seconds
    end: float
    pitch: int  # MIDI key
    velocity: int  # 1..127


@dataclass
class Track:
    name: str
    role: str  # drums, bass, chords, pad, lead, vocals
    program: int  # General MIDI program (drums: the kit's preset in bank 128)
    channel: int
    notes: list[Note] = field(default_factory=list)
    # False for the vocal line: it is sung, not played by the synthesizer.
    rendered: bool = True

    @property
    def is_drums(self) -> bool:
        return self.channel == DRUM_CHANNEL


class Channels:
    """Hands out the melodic MIDI channels, each once: every part of a piece (the sung line
    too) has its own channel, so its program change and notes never mix with another's."""

    def __init__(self) -> None:
        self._free = list(MELODIC_CHANNELS)

    def take(self) -> int:
        if not self._free:
            # prompt.MAX_INSTRUMENTS keeps every piece within the channels; this is the guard.
            raise InvalidField(
                f"prompt: the piece would need more than {len(MELODIC_CHANNELS)} melodic "
                "parts; name fewer instruments.",
                param="prompt",
            )
        return self._free.pop(0)


@dataclass
class Score:
    bpm: int
    key: Key
    duration_s: float
    tracks: list[Track]

    def track(self, role: str) -> Track | None:
        return next((t for t in self.tracks if t.role == role), None)

    def write_midi(self, path: Path) -> None:
        """A type-1 MIDI file: a conductor track (tempo, 4/4, key) and one track per part with
        its name and program change; the vocal line is a track of its own."""
        midi = mido.MidiFile(type=1, ticks_per_beat=TICKS_PER_BEAT)
        conductor = mido.MidiTrack()
        conductor.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(self.bpm), time=0))
        conductor.append(mido.MetaMessage("time_signature", numerator=4, denominator=4, time=0))
        key_text = NOTE_NAMES[self.key.tonic] + ("m" if self.key.mode == "minor" else "")
        conductor.append(mido.MetaMessage("key_signature", key=key_text, time=0))
        conductor.append(mido.MetaMessage("end_of_track", time=self._ticks(self.duration_s)))
        midi.tracks.append(conductor)
        for track in self.tracks:
            midi.tracks.append(self._midi_track(track))
        midi.save(str(path))

    def _ticks(self, seconds: float) -> int:
        return max(0, round(seconds * self.bpm / 60 * TICKS_PER_BEAT))

    def _midi_track(self, track: Track) -> mido.MidiTrack:
        out = mido.MidiTrack()
        out.append(mido.MetaMessage("track_name", name=track.name, time=0))
        out.append(
            mido.Message("program_change", channel=track.channel, program=track.program, time=0)
        )
        events: list[tuple[int, int, mido.Message]] = []
        for note in track.notes:
            on, off = self._ticks(note.start), self._ticks(note.end)
            events.append(
                (
                    on,
                    1,
                    mido.Message(
                        "note_on", channel=track.channel, note=note.pitch, velocity=note.velocity
                    ),
                )
            )
            events.append(
                (
                    max(off, on + 1),
                    0,
                    mido.Message("note_off", channel=track.channel, note=note.pitch, velocity=0),
                )
            )
        # Offs before ons at the same tick, so a repeated note is not cut by its own end.
        events.sort(key=lambda event: (event[0], event[1]))
        now = 0
        for tick, _, message in events:
            out.append(message.copy(time=tick - now))
            now = tick
        out.append(mido.MetaMessage("end_of_track", time=0))
        return out
