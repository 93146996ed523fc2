"""The genres the composer knows: tempo, harmony, groove, instrumentation and mix of each.

Drum patterns are one bar on a 16-step grid per drum: `X` accent, `x` hit, `o` ghost note.
Progressions are one chord a bar, as Roman numerals (see theory.chord).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from soundstage.engines.music.theory import Mode

# General MIDI percussion keys (channel 10).
KICK, SIDE_STICK, SNARE, CLAP = 36, 37, 38, 39
CLOSED_HAT, PEDAL_HAT, OPEN_HAT = 42, 44, 46
LOW_TOM, MID_TOM, HIGH_TOM = 45, 47, 50
CRASH, RIDE, RIDE_BELL, TAMBOURINE, COWBELL, SHAKER = 49, 51, 53, 54, 56, 70
DRUM_NAMES: Final = {
    "kick": KICK,
    "stick": SIDE_STICK,
    "snare": SNARE,
    "clap": CLAP,
    "hat": CLOSED_HAT,
    "pedal": PEDAL_HAT,
    "open": OPEN_HAT,
    "ride": RIDE,
    "crash": CRASH,
    "bell": RIDE_BELL,
    "tamb": TAMBOURINE,
    "cowbell": COWBELL,
    "shaker": SHAKER,
    "ltom": LOW_TOM,
    "mtom": MID_TOM,
    "htom": HIGH_TOM,
}
# Soundfont drum kits (bank 128 presets of FluidR3_GM).
KIT_STANDARD, KIT_ROOM, KIT_POWER, KIT_ELECTRONIC, KIT_808, KIT_JAZZ, KIT_BRUSH = (
    0,
    8,
    16,
    24,
    25,
    32,
    40,
)
KIT_ORCHESTRA = 48

Pattern = dict[str, str]
Progressions = dict[Mode, tuple[tuple[str, ...], ...]]


@dataclass(frozen=True)
class Harmony:
    verse: Progressions
    chorus: Progressions
    bridge: Progressions
    # The chord before the final tonic (the cadence) and the final chord itself.
    dominant: dict[Mode, str] = field(default_factory=lambda: {"major": "V7", "minor": "V7"})
    tonic: dict[Mode, str] = field(default_factory=lambda: {"major": "I", "minor": "i"})


@dataclass(frozen=True)
class Genre:
    name: str
    aliases: tuple[str, ...]
    bpm: tuple[int, int]
    # Chance of a major key when neither the prompt nor its mood says.
    major_weight: float
    harmony: Harmony
    # Instruments (General MIDI programs) of each part; pad None: no pad.
    chords: int
    bass: int
    lead: int
    pad: int | None
    comp: str  # comping style, see arrangement
    bass_style: str
    kit: int | None  # None: no drums
    verse_drums: Pattern
    chorus_drums: Pattern
    # Swing: how late the off-beat of `swing_unit` notes (8 or 16) falls, 0.5 straight,
    # 0.67 a triplet feel.
    swing: float = 0.5
    swing_unit: int = 8
    # Lead melody register (MIDI keys) and notes per bar (roughly).
    lead_range: tuple[int, int] = (67, 86)
    density: float = 4.0
    # Timing spread of humanization in milliseconds (drums get half).
    looseness_ms: float = 10.0
    reverb: float = 0.25  # send level, 0..1
    room: float = 0.5  # reverb room size
    keys: tuple[str, ...] = ("C", "D", "E", "F", "G", "A", "Bb")


_POP = Harmony(
    verse={
        "major": (("I", "V", "vi", "IV"), ("I", "vi", "IV", "V"), ("vi", "IV", "I", "V")),
        "minor": (("i", "bVI", "bIII", "bVII"), ("i", "iv", "bVI", "V")),
    },
    chorus={
        "major": (("IV", "I", "V", "vi"), ("I", "V", "IV", "V"), ("vi", "IV", "I", "V")),
        "minor": (("bVI", "bVII", "i", "i"), ("bVI", "bIII", "bVII", "V")),
    },
    bridge={"major": (("ii", "IV", "vi", "V"),), "minor": (("iv", "bVI", "iv", "V"),)},
)
_JAZZ = Harmony(
    verse={
        "major": (("Imaj7", "vi7", "ii7", "V7"), ("iii7", "vi7", "ii7", "V7")),
        "minor": (("i7", "iv7", "iim7b5", "V7"), ("i7", "bVImaj7", "iim7b5", "V7")),
    },
    chorus={
        "major": (("ii7", "V7", "Imaj7", "IVmaj7"), ("IVmaj7", "iii7", "ii7", "V7")),
        "minor": (("iv7", "bVII7", "bIIImaj7", "bVImaj7"), ("i7", "iv7", "V7", "i7")),
    },
    bridge={"major": (("IVmaj7", "IVmaj7", "iii7", "VI7"),), "minor": (("bVImaj7", "V7"),)},
    tonic={"major": "Imaj7", "minor": "i7"},
)
_BLUES = Harmony(
    verse={
        "major": (("I7", "I7", "I7", "I7", "IV7", "IV7", "I7", "I7", "V7", "IV7", "I7", "V7"),),
        "minor": (("i7", "i7", "i7", "i7", "iv7", "iv7", "i7", "i7", "bVI7", "V7", "i7", "V7"),),
    },
    chorus={
        "major": (("I7", "IV7", "I7", "I7", "IV7", "IV7", "I7", "I7", "V7", "IV7", "I7", "V7"),),
        "minor": (("i7", "iv7", "i7", "i7", "iv7", "iv7", "i7", "i7", "bVI7", "V7", "i7", "V7"),),
    },
    bridge={"major": (("IV7", "IV7", "I7", "I7"),), "minor": (("iv7", "iv7", "i7", "i7"),)},
    tonic={"major": "I7", "minor": "i"},
)
_ROCK = Harmony(
    verse={
        "major": (("I", "bVII", "IV", "I"), ("I", "IV", "V", "IV"), ("I", "V", "vi", "IV")),
        "minor": (("i", "bVII", "bVI", "bVII"), ("i", "bIII", "bVII", "iv")),
    },
    chorus={
        "major": (("IV", "I", "V", "V"), ("I", "V", "IV", "IV")),
        "minor": (("bVI", "bVII", "i", "i"), ("bIII", "bVII", "iv", "V")),
    },
    bridge={"major": (("vi", "IV", "V", "V"),), "minor": (("iv", "bVI", "bVII", "V"),)},
    dominant={"major": "V", "minor": "V"},
)
_METAL = Harmony(
    verse={
        "major": (("I5", "bVII5", "bVI5", "bVII5"),),
        "minor": (("i5", "bVI5", "bVII5", "i5"), ("i5", "bII5", "i5", "bVII5")),
    },
    chorus={
        "major": (("I5", "IV5", "bVII5", "V5"),),
        "minor": (("i5", "bVI5", "bIII5", "bVII5"), ("bVI5", "bVII5", "i5", "i5")),
    },
    bridge={"major": (("IV5", "V5", "IV5", "V5"),), "minor": (("iv5", "bVI5", "iv5", "V5"),)},
    dominant={"major": "V5", "minor": "V5"},
    tonic={"major": "I5", "minor": "i"},
)
_CLASSICAL = Harmony(
    verse={
        "major": (("I", "IV", "V", "I"), ("I", "vi", "ii", "V"), ("I", "V", "vi", "iii")),
        "minor": (("i", "iv", "V", "i"), ("i", "bVI", "iv", "V"), ("i", "bIII", "iv", "V")),
    },
    chorus={
        "major": (("IV", "V", "iii", "vi"), ("ii", "V", "I", "vi")),
        "minor": (("bVI", "bIII", "iv", "V"), ("iv", "V", "i", "bVI")),
    },
    bridge={"major": (("vi", "iii", "IV", "V"),), "minor": (("bIII", "bVII", "bVI", "V"),)},
    dominant={"major": "V7", "minor": "V7"},
)
_AMBIENT = Harmony(
    verse={
        "major": (("Imaj7", "IVmaj7", "Imaj7", "IVmaj7"), ("Iadd9", "vi7", "IVmaj7", "Iadd9")),
        "minor": (("i9", "bVImaj7", "i9", "bVImaj7"), ("i9", "iv7", "bVImaj7", "i9")),
    },
    chorus={
        "major": (("IVmaj7", "vi7", "Imaj7", "Vsus4"),),
        "minor": (("bVImaj7", "bIIImaj7", "iv7", "i9"),),
    },
    bridge={"major": (("ii7", "IVmaj7", "ii7", "Vsus4"),), "minor": (("iv7", "bVImaj7"),)},
    dominant={"major": "Vsus4", "minor": "V"},
    tonic={"major": "Iadd9", "minor": "i"},
)
_DANCE = Harmony(
    verse={
        "major": (("vi", "IV", "I", "V"), ("I", "V", "vi", "IV")),
        "minor": (("i", "bVI", "bIII", "bVII"), ("i", "bVII", "bVI", "bVII")),
    },
    chorus={
        "major": (("IV", "V", "vi", "I"),),
        "minor": (("bVI", "bVII", "i", "i"), ("iv", "bVI", "bVII", "i")),
    },
    bridge={"major": (("ii", "IV", "V", "V"),), "minor": (("iv", "bVI", "bVII", "V"),)},
    dominant={"major": "V", "minor": "V"},
)
_SOUL = Harmony(  # lo-fi, hip-hop, R&B-flavoured sevenths
    verse={
        "major": (("ii7", "V7", "Imaj7", "vi7"), ("IVmaj7", "iii7", "vi7", "V7")),
        "minor": (("i7", "iv7", "bVImaj7", "V7"), ("i7", "bVII7", "bVImaj7", "V7")),
    },
    chorus={
        "major": (("IVmaj7", "V7", "iii7", "vi7"),),
        "minor": (("bVImaj7", "bVII7", "i7", "i7"),),
    },
    bridge={"major": (("ii7", "iii7", "IVmaj7", "V7"),), "minor": (("iv7", "V7"),)},
    tonic={"major": "Imaj7", "minor": "i7"},
)
_FUNK = Harmony(
    verse={
        "major": (("I7", "I7", "IV7", "I7"), ("I9", "IV9", "I9", "IV9")),
        "minor": (("i7", "IV7", "i7", "IV7"), ("i7", "i7", "iv7", "i7")),
    },
    chorus={
        "major": (("IV9", "IV9", "I9", "V9"),),
        "minor": (("iv7", "bVII7", "i7", "V7"),),
    },
    bridge={"major": (("ii7", "V7", "ii7", "V7"),), "minor": (("bVI7", "V7"),)},
    tonic={"major": "I9", "minor": "i7"},
)
_REGGAE = Harmony(
    verse={
        "major": (("I", "IV", "I", "V"), ("I", "V", "vi", "IV")),
        "minor": (("i", "iv", "i", "V"), ("i", "bVII", "i", "bVII")),
    },
    chorus={"major": (("IV", "V", "I", "vi"),), "minor": (("iv", "bVII", "i", "V"),)},
    bridge={"major": (("ii", "V", "ii", "V"),), "minor": (("bVI", "bVII", "bVI", "V"),)},
    dominant={"major": "V", "minor": "V"},
)
_COUNTRY = Harmony(
    verse={
        "major": (("I", "IV", "V", "I"), ("I", "I", "IV", "V"), ("I", "V", "vi", "IV")),
        "minor": (("i", "bVII", "bVI", "V"), ("i", "iv", "V", "i")),
    },
    chorus={
        "major": (("IV", "I", "V", "I"), ("IV", "V", "I", "vi")),
        "minor": (("bVI", "bVII", "i", "V"),),
    },
    bridge={"major": (("vi", "IV", "I", "V"),), "minor": (("iv", "i", "bVII", "V"),)},
    dominant={"major": "V7", "minor": "V"},
)

_FOUR_ON_FLOOR: Final[Pattern] = {
    "kick": "X...x...X...x...",
    "hat": "..x...x...x...x.",
    "clap": "....X.......X...",
}
_BACKBEAT: Final[Pattern] = {
    "kick": "X.....x.X.......",
    "snare": "....X.......X...",
    "hat": "x.x.x.x.x.x.x.x.",
}

GENRES: Final[tuple[Genre, ...]] = (
    Genre(
        "pop",
        ("pop", "ballad", "synthpop", "indie pop", "k-pop", "dance pop"),
        bpm=(92, 124),
        major_weight=0.75,
        harmony=_POP,
        chords=0,
        bass=33,
        lead=80,
        pad=89,
        comp="pulse",
        bass_style="pop",
        kit=KIT_STANDARD,
        verse_drums=_BACKBEAT,
        chorus_drums={**_BACKBEAT, "kick": "X.....x.X.x.....", "tamb": "....x.......x..."},
        lead_range=(67, 84),
        reverb=0.25,
    ),
    Genre(
        "rock",
        ("rock", "rock and roll", "indie rock", "punk", "grunge", "alternative"),
        bpm=(100, 150),
        major_weight=0.6,
        harmony=_ROCK,
        chords=29,
        bass=34,
        lead=30,
        pad=None,
        comp="power",
        bass_style="eighths",
        kit=KIT_ROOM,
        verse_drums=_BACKBEAT,
        chorus_drums={
            **_BACKBEAT,
            "kick": "X.x...x.X.x...x.",
            "hat": "",
            "ride": "x.x.x.x.x.x.x.x.",
        },
        lead_range=(64, 84),
        reverb=0.2,
        keys=("E", "A", "D", "G", "C"),
    ),
    Genre(
        "jazz",
        ("jazz", "swing", "bebop", "big band", "jazzy"),
        bpm=(100, 180),
        major_weight=0.65,
        harmony=_JAZZ,
        chords=0,
        bass=32,
        lead=66,
        pad=None,
        comp="jazz",
        bass_style="walking",
        kit=KIT_JAZZ,
        verse_drums={
            "ride": "x...x.x.x...x.x.",
            "pedal": "....x.......x...",
            "kick": "o.......o.......",
        },
        chorus_drums={
            "ride": "X...x.x.X...x.x.",
            "pedal": "....x.......x...",
            "snare": "......o.......o.",
        },
        swing=0.67,
        lead_range=(58, 80),
        density=5.0,
        looseness_ms=14.0,
        reverb=0.2,
        keys=("F", "Bb", "Eb", "C", "G"),
    ),
    Genre(
        "blues",
        ("blues", "bluesy", "delta blues", "shuffle"),
        bpm=(70, 120),
        major_weight=0.7,
        harmony=_BLUES,
        chords=27,
        bass=33,
        lead=22,
        pad=16,
        comp="shuffle",
        bass_style="boogie",
        kit=KIT_STANDARD,
        verse_drums={
            "kick": "x.......x.......",
            "snare": "....x.......x...",
            "hat": "x.x.x.x.x.x.x.x.",
        },
        chorus_drums={
            "kick": "x.....x.x.......",
            "snare": "....X.......X...",
            "ride": "x.x.x.x.x.x.x.x.",
        },
        swing=0.67,
        lead_range=(60, 81),
        density=4.0,
        looseness_ms=14.0,
        keys=("E", "A", "G", "C", "Bb"),
    ),
    Genre(
        "classical",
        ("classical", "baroque", "romantic", "piano sonata", "chamber", "waltz"),
        bpm=(66, 120),
        major_weight=0.55,
        harmony=_CLASSICAL,
        chords=0,
        bass=42,
        lead=40,
        pad=48,
        comp="arpeggio",
        bass_style="root",
        kit=None,
        verse_drums={},
        chorus_drums={},
        lead_range=(67, 91),
        density=5.0,
        looseness_ms=12.0,
        reverb=0.4,
        room=0.75,
    ),
    Genre(
        "cinematic",
        ("orchestral", "cinematic", "epic", "film score", "soundtrack", "trailer", "score"),
        bpm=(70, 110),
        major_weight=0.35,
        harmony=_CLASSICAL,
        chords=48,
        bass=43,
        lead=60,
        pad=52,
        comp="strings",
        bass_style="root",
        kit=KIT_ORCHESTRA,
        verse_drums={"ltom": "x.......x.......", "kick": "X..............."},
        chorus_drums={
            "ltom": "X..x..x.X..x..x.",
            "kick": "X.......X.......",
            "crash": "X...............",
        },
        lead_range=(60, 84),
        density=3.0,
        reverb=0.45,
        room=0.85,
    ),
    Genre(
        "ambient",
        ("ambient", "atmospheric", "drone", "meditation", "new age", "soundscape"),
        bpm=(60, 84),
        major_weight=0.6,
        harmony=_AMBIENT,
        chords=88,
        bass=89,
        lead=94,
        pad=92,
        comp="swell",
        bass_style="drone",
        kit=None,
        verse_drums={},
        chorus_drums={},
        lead_range=(64, 84),
        density=1.5,
        looseness_ms=20.0,
        reverb=0.6,
        room=0.95,
    ),
    Genre(
        "electronic",
        ("electronic", "house", "edm", "techno", "dance", "club", "trance", "disco"),
        bpm=(120, 128),
        major_weight=0.4,
        harmony=_DANCE,
        chords=90,
        bass=38,
        lead=81,
        pad=89,
        comp="stabs",
        bass_style="offbeat",
        kit=KIT_ELECTRONIC,
        verse_drums=_FOUR_ON_FLOOR,
        chorus_drums={**_FOUR_ON_FLOOR, "hat": "x.X.x.X.x.X.x.X.", "open": "..x...x...x...x."},
        lead_range=(67, 86),
        density=4.0,
        looseness_ms=3.0,
        reverb=0.3,
    ),
    Genre(
        "hip-hop",
        ("hip-hop", "hip hop", "rap", "boom bap", "trap", "hiphop"),
        bpm=(84, 98),
        major_weight=0.3,
        harmony=_SOUL,
        chords=4,
        bass=38,
        lead=0,
        pad=None,
        comp="sparse",
        bass_style="sub",
        kit=KIT_808,
        verse_drums={
            "kick": "X.....x...X.....",
            "snare": "....X.......X...",
            "hat": "x.x.x.x.x.x.x.x.",
        },
        chorus_drums={
            "kick": "X.....x...X..x..",
            "snare": "....X.......X...",
            "hat": "x.xxx.x.x.xxx.x.",
        },
        swing=0.58,
        swing_unit=16,
        lead_range=(67, 84),
        density=3.0,
        looseness_ms=8.0,
    ),
    Genre(
        "lo-fi",
        ("lo-fi", "lofi", "lo fi", "chillhop", "chill beats", "study beats", "chill"),
        bpm=(70, 90),
        major_weight=0.55,
        harmony=_SOUL,
        chords=4,
        bass=32,
        lead=11,
        pad=None,
        comp="sparse",
        bass_style="sub",
        kit=KIT_BRUSH,
        verse_drums={
            "kick": "X.......x.x.....",
            "snare": "....x.......x...",
            "hat": "x.x.x.x.x.x.x.x.",
        },
        chorus_drums={
            "kick": "X.....x.x.x.....",
            "snare": "....x.......x..o",
            "hat": "x.xox.x.x.xox.x.",
        },
        swing=0.6,
        swing_unit=16,
        lead_range=(67, 84),
        density=3.0,
        looseness_ms=16.0,
        reverb=0.3,
    ),
    Genre(
        "funk",
        ("funk", "funky", "groove", "r&b", "soul", "motown"),
        bpm=(96, 116),
        major_weight=0.6,
        harmony=_FUNK,
        chords=7,
        bass=36,
        lead=61,
        pad=None,
        comp="funk",
        bass_style="funk",
        kit=KIT_STANDARD,
        verse_drums={
            "kick": "X.....x...x..x..",
            "snare": "....X..o.o..X...",
            "hat": "xxxxxxxxxxxxxxxx",
        },
        chorus_drums={
            "kick": "X.x...x...x..x..",
            "snare": "....X..o.o..X..o",
            "hat": "xxxxxxxxxxxxxx.x",
            "open": "..............x.",
        },
        lead_range=(62, 82),
        density=5.0,
        looseness_ms=6.0,
        reverb=0.15,
    ),
    Genre(
        "reggae",
        ("reggae", "ska", "dub", "dancehall", "rocksteady"),
        bpm=(70, 90),
        major_weight=0.65,
        harmony=_REGGAE,
        chords=18,
        bass=33,
        lead=56,
        pad=None,
        comp="skank",
        bass_style="reggae",
        kit=KIT_STANDARD,
        verse_drums={
            "kick": "........X.......",
            "stick": "........x.......",
            "hat": "x.x.x.x.x.x.x.x.",
        },
        chorus_drums={
            "kick": "........X.......",
            "snare": "........X.......",
            "hat": "x.xxx.x.x.xxx.x.",
        },
        swing=0.56,
        swing_unit=16,
        lead_range=(62, 82),
        density=3.0,
    ),
    Genre(
        "country",
        ("country", "bluegrass", "americana", "western", "honky tonk"),
        bpm=(96, 132),
        major_weight=0.85,
        harmony=_COUNTRY,
        chords=25,
        bass=32,
        lead=110,
        pad=None,
        comp="strum",
        bass_style="root_fifth",
        kit=KIT_BRUSH,
        verse_drums={
            "kick": "x.......x.......",
            "snare": "....x.......x...",
            "hat": "x.x.x.x.x.x.x.x.",
        },
        chorus_drums={
            "kick": "x.......x.......",
            "snare": "....X.......X...",
            "ride": "x.x.x.x.x.x.x.x.",
        },
        lead_range=(64, 86),
        density=5.0,
        keys=("G", "D", "A", "C", "E"),
    ),
    Genre(
        "metal",
        ("metal", "heavy metal", "thrash", "hard rock", "metalcore", "doom"),
        bpm=(140, 180),
        major_weight=0.05,
        harmony=_METAL,
        chords=30,
        bass=34,
        lead=30,
        pad=None,
        comp="power",
        bass_style="chug",
        kit=KIT_POWER,
        verse_drums={
            "kick": "x.x.x.x.x.x.x.x.",
            "snare": "....X.......X...",
            "hat": "x.x.x.x.x.x.x.x.",
        },
        chorus_drums={
            "kick": "xxxxxxxxxxxxxxxx",
            "snare": "....X.......X...",
            "ride": "x.x.x.x.x.x.x.x.",
            "crash": "X...............",
        },
        lead_range=(62, 86),
        density=5.0,
        looseness_ms=4.0,
        reverb=0.15,
        keys=("E", "D", "C", "A"),
    ),
    Genre(
        "folk",
        ("folk", "acoustic", "singer-songwriter", "celtic", "indie folk"),
        bpm=(84, 120),
        major_weight=0.65,
        harmony=_COUNTRY,
        chords=24,
        bass=32,
        lead=73,
        pad=None,
        comp="fingerpick",
        bass_style="root_fifth",
        kit=KIT_BRUSH,
        verse_drums={"shaker": "x.x.x.x.x.x.x.x."},
        chorus_drums={
            "kick": "x.......x.......",
            "stick": "....x.......x...",
            "shaker": "x.x.x.x.x.x.x.x.",
        },
        lead_range=(67, 88),
        density=4.0,
        looseness_ms=14.0,
        reverb=0.3,
        keys=("G", "D", "A", "C", "E"),
    ),
    Genre(
        "latin",
        ("latin", "bossa nova", "bossa", "samba", "salsa", "tango"),
        bpm=(120, 140),
        major_weight=0.5,
        harmony=_JAZZ,
        chords=24,
        bass=32,
        lead=65,
        pad=None,
        comp="bossa",
        bass_style="root_fifth",
        kit=KIT_STANDARD,
        verse_drums={
            "stick": "x..x..x...x..x..",
            "kick": "x..xx..xx..xx..x",
            "shaker": "xxxxxxxxxxxxxxxx",
        },
        chorus_drums={
            "stick": "x..x..x...x..x..",
            "kick": "x..xx..xx..xx..x",
            "shaker": "xxxxxxxxxxxxxxxx",
            "cowbell": "x...x...x...x...",
        },
        lead_range=(65, 84),
        density=4.0,
    ),
)

DEFAULT_GENRE: Final = "pop"


def genre_named(name: str) -> Genre:
    for genre in GENRES:
        if genre.name == name:
            return genre
    raise KeyError(name)
