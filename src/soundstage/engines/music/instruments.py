"""General MIDI instruments by the names people use in prompts, and the part each can play."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Role = Literal["chords", "pad", "bass", "lead"]


@dataclass(frozen=True)
class Instrument:
    program: int  # General MIDI program, 0..127
    name: str
    # The parts it can play, best first: a named instrument takes the first one still free.
    roles: tuple[Role, ...]


_KEYS: Final = ("chords", "lead")
_SUSTAINED: Final = ("pad", "chords", "lead")
_MELODIC: Final = ("lead", "chords")
_BASS: Final = ("bass",)

# Prompt words (longest matched first) -> instrument. Names are General MIDI's.
INSTRUMENTS: Final[dict[str, Instrument]] = {
    "grand piano": Instrument(0, "Acoustic Grand Piano", _KEYS),
    "piano": Instrument(0, "Acoustic Grand Piano", _KEYS),
    "electric piano": Instrument(4, "Electric Piano 1", _KEYS),
    "rhodes": Instrument(4, "Electric Piano 1", _KEYS),
    "wurlitzer": Instrument(5, "Electric Piano 2", _KEYS),
    "harpsichord": Instrument(6, "Harpsichord", _KEYS),
    "clavinet": Instrument(7, "Clavinet", _KEYS),
    "celesta": Instrument(8, "Celesta", _MELODIC),
    "glockenspiel": Instrument(9, "Glockenspiel", _MELODIC),
    "music box": Instrument(10, "Music Box", _MELODIC),
    "vibraphone": Instrument(11, "Vibraphone", _MELODIC),
    "vibes": Instrument(11, "Vibraphone", _MELODIC),
    "marimba": Instrument(12, "Marimba", _MELODIC),
    "xylophone": Instrument(13, "Xylophone", _MELODIC),
    "bells": Instrument(14, "Tubular Bells", _MELODIC),
    "organ": Instrument(16, "Drawbar Organ", ("chords", "pad", "lead")),
    "hammond": Instrument(16, "Drawbar Organ", ("chords", "pad", "lead")),
    "rock organ": Instrument(18, "Rock Organ", ("chords", "pad", "lead")),
    "church organ": Instrument(19, "Church Organ", ("pad", "chords", "lead")),
    "accordion": Instrument(21, "Accordion", ("chords", "lead")),
    "harmonica": Instrument(22, "Harmonica", _MELODIC),
    "nylon guitar": Instrument(24, "Acoustic Guitar (nylon)", _KEYS),
    "classical guitar": Instrument(24, "Acoustic Guitar (nylon)", _KEYS),
    "acoustic guitar": Instrument(25, "Acoustic Guitar (steel)", _KEYS),
    "guitar": Instrument(25, "Acoustic Guitar (steel)", _KEYS),
    "jazz guitar": Instrument(26, "Electric Guitar (jazz)", _KEYS),
    "electric guitar": Instrument(27, "Electric Guitar (clean)", _KEYS),
    "overdriven guitar": Instrument(29, "Overdriven Guitar", _KEYS),
    "distorted guitar": Instrument(30, "Distortion Guitar", _KEYS),
    "distortion guitar": Instrument(30, "Distortion Guitar", _KEYS),
    "acoustic bass": Instrument(32, "Acoustic Bass", _BASS),
    "double bass": Instrument(32, "Acoustic Bass", _BASS),
    "upright bass": Instrument(32, "Acoustic Bass", _BASS),
    "bass guitar": Instrument(33, "Electric Bass (finger)", _BASS),
    "bass": Instrument(33, "Electric Bass (finger)", _BASS),
    "fretless bass": Instrument(35, "Fretless Bass", _BASS),
    "slap bass": Instrument(36, "Slap Bass 1", _BASS),
    "synth bass": Instrument(38, "Synth Bass 1", _BASS),
    "violin": Instrument(40, "Violin", _MELODIC),
    "viola": Instrument(41, "Viola", _MELODIC),
    "cello": Instrument(42, "Cello", ("lead", "bass", "pad")),
    "contrabass": Instrument(43, "Contrabass", _BASS),
    "pizzicato": Instrument(45, "Pizzicato Strings", _KEYS),
    "harp": Instrument(46, "Orchestral Harp", _KEYS),
    "timpani": Instrument(47, "Timpani", _BASS),
    "strings": Instrument(48, "String Ensemble 1", _SUSTAINED),
    "string section": Instrument(48, "String Ensemble 1", _SUSTAINED),
    "orchestra": Instrument(48, "String Ensemble 1", _SUSTAINED),
    "synth strings": Instrument(50, "Synth Strings 1", _SUSTAINED),
    "choir": Instrument(52, "Choir Aahs", _SUSTAINED),
    "trumpet": Instrument(56, "Trumpet", _MELODIC),
    "trombone": Instrument(57, "Trombone", ("lead", "bass", "chords")),
    "tuba": Instrument(58, "Tuba", _BASS),
    "french horn": Instrument(60, "French Horn", ("lead", "pad", "chords")),
    "horns": Instrument(60, "French Horn", ("lead", "pad", "chords")),
    "brass": Instrument(61, "Brass Section", ("chords", "lead", "pad")),
    "synth brass": Instrument(62, "Synth Brass 1", ("chords", "lead")),
    "soprano sax": Instrument(64, "Soprano Sax", _MELODIC),
    "alto sax": Instrument(65, "Alto Sax", _MELODIC),
    "saxophone": Instrument(65, "Alto Sax", _MELODIC),
    "sax": Instrument(65, "Alto Sax", _MELODIC),
    "tenor sax": Instrument(66, "Tenor Sax", _MELODIC),
    "oboe": Instrument(68, "Oboe", _MELODIC),
    "bassoon": Instrument(70, "Bassoon", ("lead", "bass")),
    "clarinet": Instrument(71, "Clarinet", _MELODIC),
    "piccolo": Instrument(72, "Piccolo", _MELODIC),
    "flute": Instrument(73, "Flute", _MELODIC),
    "pan flute": Instrument(75, "Pan Flute", _MELODIC),
    "ocarina": Instrument(79, "Ocarina", _MELODIC),
    "synth lead": Instrument(81, "Lead 2 (sawtooth)", ("lead", "chords")),
    "lead synth": Instrument(81, "Lead 2 (sawtooth)", ("lead", "chords")),
    "synth": Instrument(81, "Lead 2 (sawtooth)", ("lead", "chords")),
    "synthesizer": Instrument(81, "Lead 2 (sawtooth)", ("lead", "chords")),
    "square lead": Instrument(80, "Lead 1 (square)", ("lead", "chords")),
    "chiptune": Instrument(80, "Lead 1 (square)", ("lead", "chords")),
    "pad": Instrument(89, "Pad 2 (warm)", ("pad", "chords")),
    "synth pad": Instrument(89, "Pad 2 (warm)", ("pad", "chords")),
    "sitar": Instrument(104, "Sitar", _MELODIC),
    "banjo": Instrument(105, "Banjo", _KEYS),
    "kalimba": Instrument(108, "Kalimba", _MELODIC),
    "fiddle": Instrument(110, "Fiddle", _MELODIC),
    "bagpipe": Instrument(109, "Bagpipe", _MELODIC),
    "steel drums": Instrument(114, "Steel Drums", _MELODIC),
    "steel pan": Instrument(114, "Steel Drums", _MELODIC),
}

GM_NAMES: Final[dict[int, str]] = {inst.program: inst.name for inst in INSTRUMENTS.values()}
GM_NAMES.update(
    {
        1: "Bright Acoustic Piano",
        34: "Electric Bass (pick)",
        39: "Synth Bass 2",
        49: "String Ensemble 2",
        53: "Voice Oohs",
        81: "Lead 2 (sawtooth)",
        88: "Pad 1 (new age)",
        90: "Pad 3 (polysynth)",
        91: "Pad 4 (choir)",
        92: "Pad 5 (bowed)",
        94: "Pad 7 (halo)",
        95: "Pad 8 (sweep)",
    }
)


def program_name(program: int) -> str:
    return GM_NAMES.get(program, f"General MIDI program {program + 1}")
