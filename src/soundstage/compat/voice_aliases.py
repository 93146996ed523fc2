"""The voices the vendors' clients ask for by their own names, mapped onto catalog voices (the
demo catalog's ids, soundstage.voices.demo): OpenAI's voice names and ElevenLabs' premade
voice ids. Each vendor voice is described here once (gender, the accent its English asks
for); the catalog voice that reads it is chosen by measured quality (voices/quality.json,
bench/voice_quality.py), so a better voice in the catalog moves the mapping with it. The
docs' OpenAI and ElevenLabs pages print the tables, and tests/compat/
test_voice_aliases.py round-trips every row through the API and whisper-base.

The rule, per table, in the table's order (each vendor voice takes the first free rendering):
1. the catalog's English voices of the vendor voice's gender (any, for a neutral one); of
   its accent only, when the catalog has that accent (a British voice asked for is heard
   before a better American one);
2. those rated at least FAIR_MOS first, best DistillMOS first, each as it is (pitch 0);
3. then pitches of those same voices (2 semitones up, then down; down first for a deep
   voice): a pitch of a good voice sounds better than a voice rated below FAIR_MOS;
4. then the voices below FAIR_MOS, best first, as they are and at their pitches;
5. when every rendering is taken (ElevenLabs names more voices than the catalog has
   renderings), the first of the list again: the vendor voice shares the best one.
Only renderings measured as intelligible as the voice itself are used (ENGLISH_VOICES;
docs/calibration.md, "Voice aliases")."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from soundstage.voices.quality import quality_of

Gender = Literal["female", "male"]

# A DistillMOS of 3 is "fair" on the absolute category rating scale: below it a listener
# hears a synthetic voice before hearing the words, and a better voice 2 semitones off
# (measured as intelligible, docs/calibration.md) is the better choice.
FAIR_MOS: Final = 3.0


@dataclass(frozen=True)
class VoiceAlias:
    """A vendor's voice as this service speaks it."""

    voice_id: str  # the catalog voice
    pitch: int  # semitones added to the request's pitch (0: the voice as it is)
    vendor_voice: str  # what the vendor calls it (its name, gender, accent)
    why: str  # the one-line reason for the choice


@dataclass(frozen=True)
class _English:
    """A catalog English voice as the rule sees it: its gender, its language tag (the accent)
    and the pitches it reads at without losing a word (docs/calibration.md)."""

    gender: Gender
    language: str
    pitches: tuple[int, ...]


ENGLISH_VOICES: Final[Mapping[str, _English]] = {
    "voice_joe": _English("male", "en-US", (0, 2, -2)),
    "voice_sally": _English("female", "en-US", (0, 2, -2)),
    "voice_sarah": _English("female", "en-US", (0, 2)),
    "voice_richard": _English("male", "en-US", (0, 2)),
    "voice_alan": _English("male", "en-GB", (0,)),
    "voice_kal": _English("male", "en-US", (0, -2)),
}


@dataclass(frozen=True)
class _Vendor:
    """A vendor's voice: its name as the vendor writes it, its gender (None: neutral), the
    catalog language tag its accent is (None: any English) and whether it is a deep one."""

    name: str
    gender: Gender | None
    language: str | None = None
    deep: bool = False


_ACCENTS: Final = {"en-US": "American", "en-GB": "British"}

# OpenAI's names (the `openai` SDK 3.54's speech and realtime voices): tts-1's six first.
_OPENAI: Final[Mapping[str, _Vendor]] = {
    "alloy": _Vendor("Alloy (neutral)", None),
    "echo": _Vendor("Echo (male)", "male"),
    "fable": _Vendor("Fable (male, British)", "male", "en-GB"),
    "onyx": _Vendor("Onyx (male, deep)", "male", deep=True),
    "nova": _Vendor("Nova (female)", "female"),
    "shimmer": _Vendor("Shimmer (female)", "female"),
    "ash": _Vendor("Ash (male)", "male"),
    "ballad": _Vendor("Ballad (male)", "male"),
    "coral": _Vendor("Coral (female)", "female"),
    "sage": _Vendor("Sage (female)", "female"),
    "verse": _Vendor("Verse (male)", "male"),
    "marin": _Vendor("Marin (female)", "female"),
    "cedar": _Vendor("Cedar (male)", "male"),
}

# ElevenLabs' premade voices that its docs and the integrations name by default, the most
# named first (George is the quickstart's, Rachel the docs' long-time example, Bella
# LiveKit's default). The voice changer takes the voice (no pitch).
_ELEVENLABS: Final[Mapping[str, _Vendor]] = {
    "JBFqnCBsd6RMkjVDRZzb": _Vendor("George (male, British)", "male", "en-GB"),
    "21m00Tcm4TlvDq8ikWAM": _Vendor("Rachel (female, American)", "female", "en-US"),
    "EXAVITQu4vr4xnAvfGrL": _Vendor("Sarah (female, American)", "female", "en-US"),
    "hpp4J3VqNfWAUOO0d1Us": _Vendor("Bella (female, American)", "female", "en-US"),
    "bIHbv24MWmeRgasZH58o": _Vendor("Will (male, American)", "male", "en-US"),
    "pNInz6obpgDQGcFmaJgB": _Vendor("Adam (male, American, deep)", "male", "en-US", deep=True),
    "nPczCjzI2devNBz1zQrb": _Vendor("Brian (male, American, deep)", "male", "en-US", deep=True),
    "CwhRBWXzGAHq8TQ4Fs17": _Vendor("Roger (male, American)", "male", "en-US"),
    "9BWtsMINqrJLrRacOk9x": _Vendor("Aria (female, American)", "female", "en-US"),
    "FGY2WhTYpPnrIDTdsKH5": _Vendor("Laura (female, American)", "female", "en-US"),
    "onwK4e9ZLuTAKqWW03F9": _Vendor("Daniel (male, British)", "male", "en-GB"),
    "IKne3meq5aSn9XLyUdCD": _Vendor("Charlie (male, Australian)", "male"),
    "XB0fDUnXU5powFXDhCwa": _Vendor("Charlotte (female, Swedish-English)", "female"),
    "pFZP5JQG7iQjIQuC4Bku": _Vendor("Lily (female, British)", "female", "en-GB"),
}


def mos(voice_id: str) -> float:
    """The voice's measured DistillMOS (0 for a voice not measured: it comes last)."""
    measured = quality_of(voice_id)
    return 0.0 if measured is None else measured.mos


def _pitched(voice_id: str, deep: bool) -> list[int]:
    """The voice's pitches other than its own, up first (down first for a deep voice)."""
    return sorted(
        (p for p in ENGLISH_VOICES[voice_id].pitches if p), key=lambda p: p if deep else -p
    )


def _candidates(want: _Vendor) -> Iterator[tuple[str, int, str]]:
    """Every rendering `want` may take, in the rule's order, each with its reason."""
    voices = [v for v, english in ENGLISH_VOICES.items() if want.gender in (None, english.gender)]
    accent = [v for v in voices if ENGLISH_VOICES[v].language == want.language]
    kind: str = want.gender or "English"
    if accent and want.language is not None:
        voices, kind = accent, f"{_ACCENTS[want.language]} {kind}"
    voices.sort(key=mos, reverse=True)
    fair = [v for v in voices if mos(v) >= FAIR_MOS]
    below = [v for v in voices if mos(v) < FAIR_MOS]
    for rank, voice_id in enumerate(fair):
        yield voice_id, 0, f"the {_ordinal(rank)} {kind} voice, MOS {mos(voice_id):.2f}"
    for rank, voice_id in enumerate(fair):
        for pitch in _pitched(voice_id, want.deep):
            yield voice_id, pitch, f"the {_ordinal(rank)} {kind} voice, {_shift(pitch)}"
    for voice_id in below:
        why = (
            f"the only {kind} voice, MOS {mos(voice_id):.2f}"
            if len(voices) == 1
            else f"MOS {mos(voice_id):.2f}: the better {kind} voices are taken"
        )
        for pitch in ENGLISH_VOICES[voice_id].pitches:
            yield voice_id, pitch, why if pitch == 0 else f"{why}; {_shift(pitch)}"


def _ordinal(rank: int) -> str:
    return ("best", "second-best", "third-best")[rank] if rank < 3 else f"number {rank + 1}"


def _shift(pitch: int) -> str:
    return f"{abs(pitch)} semitones {'up' if pitch > 0 else 'down'}"


def _assign(vendors: Mapping[str, _Vendor]) -> dict[str, VoiceAlias]:
    taken: set[tuple[str, int]] = set()
    table: dict[str, VoiceAlias] = {}
    for key, want in vendors.items():
        candidates = list(_candidates(want))
        free = [c for c in candidates if (c[0], c[1]) not in taken]
        voice_id, pitch, why = free[0] if free else candidates[0]
        if not free:
            why = f"{why}; shared, as every rendering is taken"
        taken.add((voice_id, pitch))
        table[key] = VoiceAlias(voice_id, pitch, want.name, why)
    return table


OPENAI_VOICES: Final[Mapping[str, VoiceAlias]] = _assign(_OPENAI)
ELEVENLABS_VOICES: Final[Mapping[str, VoiceAlias]] = _assign(_ELEVENLABS)


def openai_voice(name: str) -> VoiceAlias | None:
    """The alias an OpenAI voice name is (any case), or None."""
    return OPENAI_VOICES.get(name.lower())


def elevenlabs_voice(voice_id: str) -> tuple[str, int]:
    """The catalog voice an ElevenLabs `voice_id` names (a premade voice's, or the id itself),
    and the pitch to speak it at."""
    alias = ELEVENLABS_VOICES.get(voice_id)
    return (voice_id, 0) if alias is None else (alias.voice_id, alias.pitch)
