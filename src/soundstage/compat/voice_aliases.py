"""The voices the vendors' clients ask for by their own names, mapped onto catalog voices (the
demo catalog's ids, soundstage.voices.demo): OpenAI's voice names and ElevenLabs' premade
voice ids. The two tables are the one place these aliases are written; the README's OpenAI
and ElevenLabs sections print them, and tests/compat/test_voice_aliases.py round-trips every
row through the API and whisper-base.

Every alias reads English with an English voice: the catalog has six (three American men,
one Scottish man, two American women), fewer than OpenAI's thirteen names, so a name that
would otherwise share a voice gets that voice at its own pitch (`pitch`, semitones added to
the request's), which measured as intelligible as the voice itself (docs/calibration.md,
"Voice aliases"). Rows follow the vendor voice's gender, then its accent, where the
catalog allows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class VoiceAlias:
    """A vendor's voice as this service speaks it."""

    voice_id: str  # the catalog voice
    pitch: int  # semitones added to the request's pitch (0: the voice as it is)
    vendor_voice: str  # what the vendor calls it (its name, gender, accent)
    why: str  # the one-line reason for the choice


# OpenAI's names (the `openai` SDK 3.54's speech and realtime voices). tts-1's six get the six
# voices as they are; the later seven, which would share a voice, get a pitch of their own.
OPENAI_VOICES: Final[Mapping[str, VoiceAlias]] = {
    "alloy": VoiceAlias("voice_joe", 0, "Alloy (neutral)", "the default: the best voice"),
    "echo": VoiceAlias("voice_kal", 0, "Echo (male)", "a male voice of its own"),
    "fable": VoiceAlias("voice_alan", 0, "Fable (male, British)", "the one British voice"),
    "onyx": VoiceAlias("voice_richard", 0, "Onyx (male, deep)", "the low, steady male voice"),
    "nova": VoiceAlias("voice_sally", 0, "Nova (female)", "the clearer female voice"),
    "shimmer": VoiceAlias("voice_sarah", 0, "Shimmer (female)", "the other female voice"),
    "ash": VoiceAlias("voice_joe", 2, "Ash (male)", "LiveKit's default: Joe, a little higher"),
    "ballad": VoiceAlias("voice_kal", -2, "Ballad (male)", "Kal, a little lower"),
    "coral": VoiceAlias("voice_sally", 2, "Coral (female)", "OpenAI's example: Sally, higher"),
    "sage": VoiceAlias("voice_sarah", 2, "Sage (female)", "Sarah, a little higher"),
    "verse": VoiceAlias("voice_richard", 2, "Verse (male)", "Richard, a little higher"),
    "marin": VoiceAlias("voice_sally", -2, "Marin (female)", "Sally, a little lower"),
    "cedar": VoiceAlias("voice_joe", -2, "Cedar (male)", "Joe, a little lower"),
}

# ElevenLabs' premade voices that its docs and the integrations name by default: the voice of
# the catalog nearest in gender, then accent. The voice changer takes the voice (no pitch).
ELEVENLABS_VOICES: Final[Mapping[str, VoiceAlias]] = {
    "JBFqnCBsd6RMkjVDRZzb": VoiceAlias(
        "voice_alan", 0, "George (male, British)", "ElevenLabs' quickstart voice; British male"
    ),
    "21m00Tcm4TlvDq8ikWAM": VoiceAlias(
        "voice_sally", 0, "Rachel (female, American)", "the docs' long-time example; American woman"
    ),
    "EXAVITQu4vr4xnAvfGrL": VoiceAlias(
        "voice_sarah", 0, "Sarah (female, American)", "a common default; American woman"
    ),
    "hpp4J3VqNfWAUOO0d1Us": VoiceAlias(
        "voice_sally", 0, "Bella (female, American)", "LiveKit's ElevenLabs default; American woman"
    ),
    "bIHbv24MWmeRgasZH58o": VoiceAlias(
        "voice_joe",
        0,
        "Will (male, American)",
        "LiveKit's earlier ElevenLabs default; American man",
    ),
    "pNInz6obpgDQGcFmaJgB": VoiceAlias(
        "voice_richard", 0, "Adam (male, American, deep)", "a common example; the low voice"
    ),
    "nPczCjzI2devNBz1zQrb": VoiceAlias(
        "voice_richard", 0, "Brian (male, American, deep)", "deep American man"
    ),
    "CwhRBWXzGAHq8TQ4Fs17": VoiceAlias("voice_kal", 0, "Roger (male, American)", "American man"),
    "9BWtsMINqrJLrRacOk9x": VoiceAlias(
        "voice_sally", 0, "Aria (female, American)", "American woman"
    ),
    "FGY2WhTYpPnrIDTdsKH5": VoiceAlias(
        "voice_sarah", 0, "Laura (female, American)", "American woman"
    ),
    "onwK4e9ZLuTAKqWW03F9": VoiceAlias(
        "voice_alan", 0, "Daniel (male, British)", "the one British voice"
    ),
    "IKne3meq5aSn9XLyUdCD": VoiceAlias(
        "voice_joe", 0, "Charlie (male, Australian)", "no Australian voice: the best male one"
    ),
    "XB0fDUnXU5powFXDhCwa": VoiceAlias(
        "voice_sarah", 0, "Charlotte (female, Swedish-English)", "no such accent: a woman"
    ),
    "pFZP5JQG7iQjIQuC4Bku": VoiceAlias(
        "voice_sally", 0, "Lily (female, British)", "no British woman: the clearer woman"
    ),
}


def openai_voice(name: str) -> VoiceAlias | None:
    """The alias an OpenAI voice name is (any case), or None."""
    return OPENAI_VOICES.get(name.lower())


def elevenlabs_voice(voice_id: str) -> tuple[str, int]:
    """The catalog voice an ElevenLabs `voice_id` names (a premade voice's, or the id itself),
    and the pitch to speak it at."""
    alias = ELEVENLABS_VOICES.get(voice_id)
    return (voice_id, 0) if alias is None else (alias.voice_id, alias.pitch)
