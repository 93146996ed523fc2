"""The voice converter for real: human speech (the LibriVox clips, one after the other)
re-voiced by five voices of three engines, then transcribed, force-aligned, pitch-tracked and
embedded again to check that the words, their times, the intonation and the voice are what
they should be."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np
import pytest
import soxr

from soundstage.config import Settings
from soundstage.engines.conversion.base import Converted
from soundstage.engines.conversion.intonation import pitch_track, semitones
from soundstage.engines.conversion.phrases import PAUSE_MS, phrases
from soundstage.engines.conversion.registry import get_converter
from soundstage.engines.conversion.resynthesis import ResynthesisConverter
from soundstage.engines.conversion.timing import (
    MAX_LOCAL_RATIO,
    MIN_LOCAL_RATIO,
    KeyFrame,
    bounded_key_frames,
)
from soundstage.engines.errors import UnknownVoice
from soundstage.engines.speakers.audio16k import SAMPLE_RATE, mono_16k
from soundstage.engines.speakers.embeddings import Embedding, embed, similarity
from soundstage.engines.transcribers import sphinx
from soundstage.engines.transcribers.base import Transcriber, Word
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio
from tests.support.audio_fixtures import librivox_clips, word_error_rate

pytestmark = pytest.mark.slow

CLIPS = librivox_clips()
# Other text for each voice's reference embedding: Harvard sentences.
REFERENCE_TEXT = (
    "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. "
    "It is easy to tell the depth of a well. These days a chicken leg is a rare dish. "
    "Rice is often served in round bowls."
)


@dataclass(frozen=True)
class Target:
    engine: str
    voice: str
    # The input as the converter gets it: its rate and channels (the output keeps its rate).
    sample_rate: int
    channels: int
    # Whether the engine says a text the same way every time.
    deterministic: bool = True


# The bounds (WER <= 15%, words within 150 ms) hold for the four deterministic English
# voices: Festival slt-hts and kal, flite rms and awb. Piper samples noise in its decoder, so
# every run differs, and it misreads this 1811 text even without any conversion: reading the
# book text itself, whisper-base's WER on it was 9-23% (median 14%, 24 runs), converted 7-32%
# (median 16%, 40 runs); with its noise turned off (noise_scale and noise_w 0) still 15.9%
# ("Dash would then then" for "Dashwood had then", "an old disposed" for "an ill-disposed",
# "selfish to be" for "selfish is to be"). Next to a garbled word the recognizer and the
# aligners misplace words too, though 90% of words were always within 140 ms. So Piper's
# bounds are set for its tail, not the converter's.
MAX_WER = 0.15
MAX_WER_RANDOM_ENGINE = 0.40
MAX_WORD_OFFSET_MS = 150
# No word of a deterministic voice further off than this: the 90th percentile holds the issue's
# 150 ms, but one phrase's words may all be aligned late together by the aligner (170 ms for
# awb at one pace, 40 ms at the next: docs/calibration.md; 350 ms for kal on a slower CPU
# under a full test run's load); a converter that let the voice keep its own timing drifts
# by seconds over the 15 s.
MAX_ANY_WORD_OFFSET_MS = 500
# Whisper-base on the reader's 42 words: at most 4 misheard (measured: none); a converter that
# heard nothing, or another language, misses them all.
MAX_SOURCE_WER = 0.10
TARGETS = [
    Target("festival", "cmu_us_slt_arctic_hts", 16_000, 1),
    Target("festival", "kal_diphone", 22_050, 1),
    Target("flite", "rms", 44_100, 2),
    Target("flite", "awb", 48_000, 1),
    Target("piper", "en_US-joe-medium", 16_000, 1, deterministic=False),
]


@dataclass(frozen=True)
class Run:
    source: Audio
    converted: Converted
    # The output transcribed with words, force-aligned (16 kHz mono times).
    heard: list[Word]
    target_embedding: Embedding


@pytest.fixture(scope="module")
def transcriber(settings: Settings) -> Transcriber:
    return get_transcriber(settings=settings)


@pytest.fixture(scope="module")
def converter(transcriber: Transcriber) -> ResynthesisConverter:
    return ResynthesisConverter(transcriber)


@pytest.fixture(scope="module")
def speech() -> Audio:
    """The three clips one after the other: 15 s of one reader, 16 kHz mono."""
    return Audio(
        np.concatenate([clip.audio().samples for clip in CLIPS]), CLIPS[0].audio().sample_rate
    )


@pytest.fixture(scope="module")
def source_embedding(speech: Audio) -> Embedding:
    return embed(speech)


@pytest.fixture(scope="module")
def runs(
    converter: ResynthesisConverter, transcriber: Transcriber, speech: Audio
) -> dict[str, Run]:
    """Each target voice's conversion of the speech, once for the module."""
    done = {}
    for target in TARGETS:
        source = _as_input(speech, target.sample_rate, target.channels)
        fractions: list[float] = []
        converted = converter.convert(
            source,
            engine=target.engine,
            engine_voice=target.voice,
            language="en",
            progress=fractions.append,
        )
        assert fractions == sorted(fractions)
        assert fractions[-1] == 1.0
        output16 = Audio(mono_16k(converted.audio).reshape(-1, 1), SAMPLE_RATE)
        transcript = transcriber.transcribe(output16, language="en", word_timestamps=True)
        heard = sphinx.refine_segments(output16, transcript.segments, "en")
        reference = get_engine(target.engine).synthesize(REFERENCE_TEXT, target.voice)
        done[target.voice] = Run(
            source=source,
            converted=converted,
            heard=[word for segment in heard for word in segment.words],
            target_embedding=embed(reference),
        )
    return done


def _as_input(speech: Audio, sample_rate: int, channels: int) -> Audio:
    mono = speech.samples[:, 0]
    if sample_rate != speech.sample_rate:
        mono = soxr.resample(mono, speech.sample_rate, sample_rate, "HQ").astype(np.float32)
    return Audio(np.ascontiguousarray(np.repeat(mono[:, None], channels, axis=1)), sample_rate)


def _reference_words() -> list[tuple[str, int]]:
    """The clips' forced alignment as (word, start_ms) in the joined speech."""
    words = []
    offset = 0
    for clip in CLIPS:
        words += [(word.word, offset + word.start_ms) for word in clip.words]
        offset += clip.audio().duration_ms
    return words


def _word_offsets(heard: Sequence[Word]) -> tuple[list[int], int]:
    """How far (ms) each reference word that was heard again starts from where the reader
    started it, and how many reference words there are. Only words heard between two words
    heard right count: next to a misheard word the match may be wrong (Whisper heard Piper's
    "had then" as "then then", and the first "then" is "had"). A hyphenated word's time is
    its first piece's."""
    reference = _reference_words()
    pieces: list[tuple[str, int | None]] = []
    for word in heard:
        parts = [_key(part) for part in re.split(r"[-\u2010-\u2015/]", word.word) if _key(part)]
        pieces += [
            (part, word.start_ms if index == 0 else None) for index, part in enumerate(parts)
        ]
    matcher = SequenceMatcher(
        None, [word for word, _ in reference], [key for key, _ in pieces], autojunk=False
    )
    offsets = []
    for block in matcher.get_matching_blocks():
        first = 0 if block.a == 0 else 1
        last = block.size if block.a + block.size == len(reference) else block.size - 1
        for index in range(first, last):
            start = pieces[block.b + index][1]
            if start is not None:
                offsets.append(abs(start - reference[block.a + index][1]))
    return offsets, len(reference)


def _key(word: str) -> str:
    return re.sub(r"[^a-z0-9']", "", word.lower())


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.voice)
def test_output_is_exactly_as_long_as_the_input(runs: dict[str, Run], target: Target) -> None:
    run = runs[target.voice]
    audio = run.converted.audio
    assert (audio.frames, audio.sample_rate, audio.channels) == (
        run.source.frames,
        target.sample_rate,
        1,
    )
    assert 0.05 < float(np.max(np.abs(audio.samples))) <= 1.0


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.voice)
def test_output_says_the_same_words(runs: dict[str, Run], target: Target) -> None:
    run = runs[target.voice]
    book = " ".join(clip.text for clip in CLIPS)
    # What the converter heard (and reports) is what the reader said...
    assert word_error_rate(book, run.converted.text) <= MAX_SOURCE_WER, run.converted.text
    # ... and what the new voice says.
    said = " ".join(word.word for word in run.heard)
    bound = MAX_WER if target.deterministic else MAX_WER_RANDOM_ENGINE
    assert word_error_rate(run.converted.text, said) <= bound, said


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.voice)
def test_words_keep_their_times(runs: dict[str, Run], target: Target) -> None:
    offsets, total = _word_offsets(runs[target.voice].heard)
    assert len(offsets) >= total // (2 if target.deterministic else 3)
    assert np.percentile(offsets, 90) <= MAX_WORD_OFFSET_MS, offsets
    if target.deterministic:
        assert max(offsets) <= MAX_ANY_WORD_OFFSET_MS, offsets


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.voice)
def test_output_sounds_like_the_target_voice(
    runs: dict[str, Run], source_embedding: Embedding, target: Target
) -> None:
    run = runs[target.voice]
    output = embed(run.converted.audio)
    assert similarity(output, run.target_embedding) > similarity(output, source_embedding)


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.voice)
def test_intonation_follows_the_source(runs: dict[str, Run], speech: Audio, target: Target) -> None:
    """The output's pitch moves with the reader's: semitones from each one's median, over the
    frames voiced in both. An engine's own intonation correlates about 0."""
    source = pitch_track(speech)
    output = pitch_track(runs[target.voice].converted.audio)
    frames = min(source.f0_hz.size, output.f0_hz.size)
    both = source.voiced[:frames] & output.voiced[:frames]
    assert both.sum() > 300
    source_st = semitones(source.f0_hz[:frames][both], source.median_hz() or 1.0)
    output_st = semitones(output.f0_hz[:frames][both], output.median_hz() or 1.0)
    assert float(np.corrcoef(source_st, output_st)[0, 1]) >= 0.8


def test_phrases_are_placed_where_the_reader_spoke_them(runs: dict[str, Run]) -> None:
    converted = runs["cmu_us_slt_arctic_hts"].converted
    # The clips' own silences at their joints are pauses: at least one phrase per clip.
    assert len(converted.phrases) >= len(CLIPS)
    assert all(phrase.spoken for phrase in converted.phrases)
    words = converted.transcript.words
    assert [p.start_ms for p in converted.phrases] == [p.start_ms for p in phrases(words)]
    audio = converted.audio.samples[:, 0]
    rate = converted.audio.sample_rate
    before = audio[: converted.phrases[0].start_ms * rate // 1000]
    assert float(np.max(np.abs(before), initial=0.0)) == 0.0


def test_silence_in_silence_out(converter: ResynthesisConverter) -> None:
    silence = Audio(np.zeros((3 * 22_050, 2), dtype=np.float32), 22_050)
    converted = converter.convert(silence, engine="flite", engine_voice="rms", language="en")
    assert converted.audio.frames == silence.frames
    assert converted.audio.sample_rate == 22_050
    assert not np.any(converted.audio.samples)
    assert converted.text == ""
    assert converted.phrases == ()


def test_empty_input_gives_empty_output(converter: ResynthesisConverter) -> None:
    empty = Audio(np.zeros((0, 1), dtype=np.float32), 16_000)
    converted = converter.convert(empty, engine="flite", engine_voice="rms", language=None)
    assert converted.audio.frames == 0


def test_unknown_voice_is_refused_before_any_work(converter: ResynthesisConverter) -> None:
    with pytest.raises(UnknownVoice) as caught:
        converter.convert(CLIPS[1].audio(), engine="flite", engine_voice="nobody", language="en")
    assert (caught.value.status, caught.value.param) == (422, "voice_id")


def test_one_resynthesis_converter_per_process() -> None:
    assert get_converter() is get_converter()
    assert isinstance(get_converter(), ResynthesisConverter)


def _word(text: str, start_ms: int, end_ms: int) -> Word:
    return Word(text, start_ms, end_ms, 1.0)


def test_phrases_break_at_pauses_over_the_bound_and_at_sentence_ends() -> None:
    words = [
        _word("Mr.", 0, 300),  # an abbreviation, not a sentence end
        _word("Smith", 300, 600),
        _word("came", 600 + PAUSE_MS - 10, 1100),  # a pause inside the bound
        _word("home.", 1100, 1500),  # a sentence end
        _word("Then", 1500, 1700),
        _word("he", 1700 + PAUSE_MS + 10, 2200),  # a pause over the bound
        _word("slept", 2200, 2600),
    ]
    assert [phrase.text for phrase in phrases(words)] == [
        "Mr. Smith came home.",
        "Then",
        "he slept",
    ]


def test_key_frames_keep_every_stretch_within_the_bounds() -> None:
    # The second word is wanted 7x later than the engine said it: it lands as late as the
    # bound allows, and the words after it where they were wanted.
    keys = [KeyFrame(100, 100), KeyFrame(200, 800), KeyFrame(600, 1200)]
    kept = bounded_key_frames(keys, 1000, 1600)
    points = [(0.0, 0.0)] + [(k.source_ms, k.target_ms) for k in kept] + [(1000.0, 1600.0)]
    ratios = [(t2 - t1) / (s2 - s1) for (s1, t1), (s2, t2) in itertools.pairwise(points)]
    assert all(MIN_LOCAL_RATIO - 1e-9 <= ratio <= MAX_LOCAL_RATIO + 1e-9 for ratio in ratios)
    assert [k.target_ms for k in kept] == [100, 100 + 100 * MAX_LOCAL_RATIO, 1200]
    # Within the bounds, key frames stay where they are wanted.
    assert bounded_key_frames([KeyFrame(500, 700)], 1000, 1200) == [KeyFrame(500, 700)]
