"""The spec's credit-rate table, in one place, and the rounding rule for partial minutes.

Partial minutes are charged pro rata per started second: ceil(started_seconds * rate / 60).
"""

from __future__ import annotations

import math
from enum import StrEnum


class Operation(StrEnum):
    TTS = "tts"
    STT = "stt"
    ISOLATION = "isolation"
    VOICE_CHANGER = "voice_changer"
    DUBBING_STANDARD = "dubbing_standard"
    DUBBING_PREMIUM = "dubbing_premium"
    MUSIC = "music"
    DAW = "daw"
    SOUND = "sound"
    ALIGNMENT = "alignment"


CREDITS_PER_CHARACTER: dict[Operation, int] = {Operation.TTS: 1}

CREDITS_PER_MINUTE: dict[Operation, int] = {
    Operation.STT: 250,
    Operation.ISOLATION: 750,
    # Not in the spec: priced like text-to-speech of a minute of speech (about 1,000
    # characters), which it re-synthesizes after transcribing and isolating the input.
    Operation.VOICE_CHANGER: 1000,
    Operation.DUBBING_STANDARD: 1500,
    Operation.DUBBING_PREMIUM: 3000,
    Operation.MUSIC: 750,
    Operation.DAW: 750,
    # Not in the spec: priced like speech-to-text, which forced alignment runs over the whole
    # audio before placing the transcript's words on what it heard.
    Operation.ALIGNMENT: 250,
}

CREDITS_PER_GENERATION: dict[Operation, int] = {Operation.SOUND: 150}


def for_characters(operation: Operation, characters: int) -> int:
    return CREDITS_PER_CHARACTER[operation] * characters


def for_duration(operation: Operation, duration_ms: int) -> int:
    """Per started second: 61.2 s of speech-to-text is 62 s, ceil(62 * 250 / 60) = 259."""
    started_seconds = math.ceil(duration_ms / 1000)
    return math.ceil(started_seconds * CREDITS_PER_MINUTE[operation] / 60)


def for_generation(operation: Operation) -> int:
    return CREDITS_PER_GENERATION[operation]
