"""The normalization round trip of every English voice (support/listening.py): WER under 10%."""

from __future__ import annotations

import pytest

from soundstage.engines.tts.registry import all_voices
from tests.support.listening import (
    ENGLISH_MAX_WER,
    MEASURED_ONLY,
    OTHER_VOICES,
    Listener,
    round_trip,
)
from tests.support.voices import ENGLISH_VOICES

# Audio through the job system: not `services` (the backends are other tests' to cover).
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("worker")]


def test_the_voice_list_is_the_catalog() -> None:
    voices = {
        (v.engine, v.voice, v.language)
        for v in all_voices()
        if v.language.startswith(("en", "es", "fr", "de", "it"))
    }
    assert voices == set(ENGLISH_VOICES) | set(OTHER_VOICES) | set(MEASURED_ONLY)


@pytest.mark.parametrize(("engine", "voice", "language"), ENGLISH_VOICES)
def test_english_voice_round_trips(
    listener: Listener, engine: str, voice: str, language: str
) -> None:
    wer = round_trip(listener, engine, voice, language, ENGLISH_MAX_WER)
    assert wer <= ENGLISH_MAX_WER, f"{engine}/{voice}: WER {wer:.1%}"
