"""The realtime text-to-speech session as its slot process runs it, driven in this process
with the real Piper voice: text sent word by word comes out as audio sentence by sentence,
in the session's format, understood by a recognizer, its words placed where they are heard,
and every character spoken charged once."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable

import numpy as np
import pytest

from soundstage.config import Settings
from soundstage.engines.conversion.intonation import pitch_track
from soundstage.engines.transcribers.align import align_words
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media import encodings
from soundstage.media.audio import Audio
from soundstage.speech.tts.realtime import (
    ENCODINGS,
    AudioTail,
    Output,
    RealtimeSpeech,
    SessionParams,
    SessionTotals,
    SpokenChunk,
    TextBufferFull,
    TextInput,
    open_session,
)
from tests.support.audio import encoded_frames
from tests.support.audio_fixtures import word_error_rate
from tests.support.realtime import lone_share

TEXT = (
    "The weather was cold and clear when we left the house. We walked along the river to the "
    "old bridge, where a small boat was waiting to take us across the water to the village. "
    "Nobody spoke until we reached the other side."
)
JOE = {"engine": "piper", "engine_voice": "en_US-joe-medium", "language": "en-US"}
# A voice that reads a text the same every time (Piper's noise is unseeded).
FLITE = {"engine": "flite", "engine_voice": "slt"}


def session(**params: object) -> RealtimeSpeech:
    return open_session(Settings(), SessionParams.model_validate({**JOE, **params}), lone_share())


def word_by_word(speech: RealtimeSpeech, text: str) -> tuple[list[Output], list[int]]:
    """Every output, and after how many words each chunk came out."""
    outputs: list[Output] = []
    arrived_after: list[int] = []
    words = text.split(" ")
    for count, word in enumerate(words, start=1):
        piece = word if count == len(words) else word + " "
        for output in speech.handle(TextInput(piece)):
            outputs.append(output)
            arrived_after.append(count)
    outputs.extend(speech.close())
    return outputs, arrived_after


def chunks_of(outputs: Iterable[Output]) -> list[SpokenChunk]:
    return [output for output in outputs if isinstance(output, SpokenChunk)]


def totals_of(outputs: list[Output]) -> SessionTotals:
    assert isinstance(outputs[-1], SessionTotals)
    return outputs[-1]


def decoded(fmt: str, outputs: Iterable[Output]) -> Audio:
    data = b"".join(
        output.audio for output in outputs if isinstance(output, SpokenChunk | AudioTail)
    )
    frames = encoded_frames(encodings.encoding(ENCODINGS[fmt]), data)
    samples = np.concatenate([frame.to_ndarray().reshape(-1) for frame in frames])
    scale = 32768.0 if samples.dtype == np.int16 else 1.0
    mono = (samples.astype(np.float32) / scale).reshape(-1, 1)
    return Audio(np.ascontiguousarray(mono), frames[0].sample_rate)


@pytest.mark.slow
def test_text_sent_word_by_word_is_spoken_sentence_by_sentence_and_understood() -> None:
    outputs, arrived_after = word_by_word(session(format="pcm_16000"), TEXT)
    chunks = chunks_of(outputs)
    first_sentence_words = len(TEXT.split(". ")[0].split(" "))
    # The first sentence was spoken as soon as its last word came (with the space that
    # tells it ends there), before the rest of the text.
    assert arrived_after[0] == first_sentence_words
    assert len(chunks) >= 3
    # One after the other, without gap or overlap.
    for before, after in itertools.pairwise(chunks):
        assert after.start_ms == before.start_ms + before.duration_ms
    totals = totals_of(outputs)
    assert totals.characters == len(TEXT) == sum(chunk.characters for chunk in chunks)
    assert totals.chunks == len(chunks)
    audio = decoded("pcm_16000", outputs)
    assert audio.sample_rate == 16_000
    assert abs(audio.duration_ms - totals.duration_ms) <= 2
    transcript = get_transcriber().transcribe(audio, language="en", word_timestamps=False)
    assert word_error_rate(TEXT, transcript.text) <= 0.10, transcript.text


@pytest.mark.slow
def test_words_are_placed_where_a_recognizer_hears_them() -> None:
    # On flite, which reads the same every time: Piper draws each reading's timing afresh,
    # and its worst word lands 434 to 539 ms from the recognizer's from run to run.
    outputs, _ = word_by_word(session(format="pcm_24000", **FLITE), TEXT)
    ours = [word for chunk in chunks_of(outputs) for word in chunk.words]
    assert [word.word for word in ours] == TEXT.split()
    heard = align_words(decoded("pcm_24000", outputs), TEXT, language="en-US")
    pairs = zip(ours, heard, strict=True)
    offsets = [abs(mine.start_ms - theirs.start_ms) for mine, theirs in pairs]
    assert statistics.mean(offsets) <= 200, offsets
    assert max(offsets) <= 500, offsets


@pytest.mark.parametrize("fmt", ["mp3", "ulaw_8000", "pcm_22050"])
def test_each_format_is_a_stream_of_its_encoding(fmt: str) -> None:
    speech = session(format=fmt)
    outputs = [*speech.handle(TextInput("Hello there. How are you", flush=True))]
    outputs.extend(speech.close())
    audio = decoded(fmt, outputs)
    assert audio.sample_rate == encodings.encoding(ENCODINGS[fmt]).sample_rate
    # MP3 adds LAME's delay and padding (a frame or two) to the samples written.
    assert abs(audio.duration_ms - totals_of(outputs).duration_ms) <= (80 if fmt == "mp3" else 2)
    assert len(chunks_of(outputs)) == 2


def test_punctuation_alone_is_not_spoken_nor_charged() -> None:
    speech = session()
    assert list(speech.handle(TextInput(" ... -- ", flush=True))) == []
    assert list(speech.close()) == [SessionTotals(characters=0, duration_ms=0, chunks=0)]


def test_more_text_waiting_than_the_session_holds_is_refused() -> None:
    speech = session(max_buffered_characters=30)
    assert list(speech.handle(TextInput("twenty characters, a"))) == []
    with pytest.raises(TextBufferFull) as refused:
        list(speech.handle(TextInput(" few more words")))
    assert (refused.value.status, refused.value.param) == (422, "text")


def spoken_ms(**params: object) -> tuple[int, Audio]:
    speech = session(format="pcm_22050", **params)
    outputs = [*speech.handle(TextInput("The boat leaves the harbor at noon.", flush=True))]
    outputs.extend(speech.close())
    return totals_of(outputs).duration_ms, decoded("pcm_22050", outputs)


def test_speed_and_pitch_are_applied_to_each_piece() -> None:
    normal_ms, _ = spoken_ms()
    fast_ms, _ = spoken_ms(speed=2.0)
    # The engine's own rate (Piper's length scale is calibrated to the speed asked).
    assert 0.4 <= fast_ms / normal_ms <= 0.6
    # The pitch on a voice that reads the same every time (Piper draws each reading's
    # intonation afresh, so two readings' median pitches differ by themselves).
    steady_ms, normal = spoken_ms(**FLITE)
    shifted_ms, shifted = spoken_ms(**FLITE, pitch=5)
    # Rubber Band keeps the length and moves the voice up 5 semitones (x 1.33).
    assert abs(shifted_ms - steady_ms) <= steady_ms * 0.08
    shifted_hz, normal_hz = pitch_track(shifted).median_hz(), pitch_track(normal).median_hz()
    assert shifted_hz is not None
    assert normal_hz is not None
    # 5 semitones is 2 ** (5 / 12) = 1.335 (flite reads it 1.334).
    assert 1.30 <= shifted_hz / normal_hz <= 1.37, (shifted_hz, normal_hz)
