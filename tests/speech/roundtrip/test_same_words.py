"""Every English voice reads "3:30 pm", "$250", "12th" and "40%" as the same words, and
<say-as interpret-as="characters"> as letters (listening.py)."""

from __future__ import annotations

import pytest

from tests.speech.roundtrip.listening import ENGLISH_VOICES, SAME_EVERYWHERE, Listener, comparable

# Audio through the job system: not `services` (the backends are other tests' to cover).
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("worker")]


def test_every_english_voice_reads_the_same_words(listener: Listener) -> None:
    readings: dict[str, dict[str, str]] = {}
    for written, sentence in SAME_EVERYWHERE.items():
        readings[written] = {
            f"{engine}/{voice}": comparable(
                listener.heard(engine, voice, sentence, language), language
            )
            for engine, voice, language in ENGLISH_VOICES
        }
        print(f"\n{written!r}: {readings[written]}")
    differing = {written: r for written, r in readings.items() if len(set(r.values())) > 1}
    assert not differing, differing
    # And they are the words normalization meant.
    for written, sentence in SAME_EVERYWHERE.items():
        assert set(readings[written].values()) == {comparable(sentence, "en-US")}
        assert comparable(written, "en-US") in comparable(sentence, "en-US")


def test_say_as_characters_is_heard_as_letters(listener: Listener) -> None:
    """<say-as interpret-as="characters"> gives the voice "H T T P": every English voice reads
    the letters by name. (Measured: "N A S A" is heard as letters from piper and flite slt;
    festival and the other flite voices garble a lone "A". "N. A. S. A." and "N, A, S, A" were
    heard worse.)"""
    ssml = '<speak>The code is <say-as interpret-as="characters">{}</say-as>.</speak>'
    for engine, voice, language in ENGLISH_VOICES:
        transcript = listener.heard(engine, voice, ssml.format("HTTP"), language)
        # Whisper writes the letters "H T T P", or "HTTP" / "http": a word no one says as one.
        heard_as = comparable(transcript, language)
        assert heard_as in {"the code is h t t p", "the code is http"}, (voice, transcript)
    # flite slt: deterministic (Piper's Joe varies from call to call and its "A" was once
    # heard "E"). "NASA" as a word stays "nasa" after normalization; letters come back one by
    # one.
    transcript = listener.heard("flite", "slt", ssml.format("NASA"), "en-US")
    assert comparable(transcript, "en-US") == "the code is n a s a", transcript
