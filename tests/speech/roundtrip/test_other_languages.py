"""The normalization round trip of the Spanish, French, German and Italian voices that pass
(support/listening.py; espeak-ng's are measured only): WER under 25%."""

from __future__ import annotations

import pytest

from tests.support.listening import (
    OTHER_MAX_WER,
    OTHER_VOICES,
    Listener,
    round_trip,
)

# Audio through the job system: not `services` (the backends are other tests' to cover).
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("worker")]


@pytest.mark.parametrize(("engine", "voice", "language"), OTHER_VOICES)
def test_other_language_voice_round_trips(
    listener: Listener, engine: str, voice: str, language: str
) -> None:
    wer = round_trip(listener, engine, voice, language, OTHER_MAX_WER)
    assert wer <= OTHER_MAX_WER, f"{engine}/{voice}: WER {wer:.1%}"
