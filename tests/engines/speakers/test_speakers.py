"""Speaker analysis for real, on the pyannote sample (two speakers, reference RTTM): silero-vad
finds its speech, resemblyzer and the clustering tell its speakers apart on their own, turns
are labelled in order of first appearance, and words get the speaker whose turn covers them."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from soundstage.engines.speakers.base import NoSpeech, Region
from soundstage.engines.speakers.diarize import (
    MAX_SPEAKERS,
    Diarizer,
    SpeakerTurn,
    assign_speakers,
    diarize,
)
from soundstage.engines.speakers.embeddings import embed, embed_windows, similarity
from soundstage.engines.speakers.vad import speech_regions
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio, decode

pytestmark = pytest.mark.slow

PYANNOTE = Path(__file__).resolve().parents[2] / "fixtures" / "pyannote"
FRAME_MS = 10
# Lines of a conversation, spoken in turn by the voices of a test.
LINES = [
    "Did anyone remember to bring the map for the hike tomorrow morning?",
    "I printed two copies last night, and I also packed a compass.",
    "Good, because the trail markers near the river were washed away.",
    "We should leave early, before the heat of the afternoon arrives.",
    "Then let us meet at the station at half past six.",
    "Fine by me, I will bring sandwiches and plenty of water.",
]


@dataclass(frozen=True)
class Span:
    """A reference turn (RTTM) or utterance (STM)."""

    speaker: str
    start_ms: int
    end_ms: int


@pytest.fixture(scope="module")
def sample() -> Audio:
    return decode(PYANNOTE / "sample.flac")


@pytest.fixture(scope="module")
def reference() -> list[Span]:
    spans = []
    for line in (PYANNOTE / "sample.rttm").read_text().splitlines():
        fields = line.split()
        start, length = float(fields[3]), float(fields[4])
        spans.append(Span(fields[7], round(start * 1000), round((start + length) * 1000)))
    return spans


@pytest.fixture(scope="module")
def turns(sample: Audio) -> list[SpeakerTurn]:
    return diarize(sample)


def frames(spans: Sequence[Region | Span | SpeakerTurn], count: int) -> np.ndarray:
    covered = np.zeros(count, dtype=bool)
    for span in spans:
        covered[span.start_ms // FRAME_MS : span.end_ms // FRAME_MS] = True
    return covered


def frame_accuracy(reference: list[Span], turns: list[SpeakerTurn], duration_ms: int) -> float:
    """Share of the 10 ms frames where exactly one reference speaker talks that carry that
    speaker's label, under the best one-to-one mapping of labels to reference speakers."""
    count = duration_ms // FRAME_MS
    names = sorted({span.speaker for span in reference})
    talking = np.stack([frames([s for s in reference if s.speaker == n], count) for n in names])
    scored = talking.sum(axis=0) == 1
    truth = np.argmax(talking, axis=0)
    labels = sorted({turn.speaker for turn in turns})
    said = np.stack([frames([t for t in turns if t.speaker == label], count) for label in labels])
    best = 0
    for chosen in itertools.permutations(range(len(labels)), min(len(labels), len(names))):
        right = sum(
            int(np.sum(scored & (truth == name) & said[label])) for name, label in enumerate(chosen)
        )
        best = max(best, right)
    return best / int(np.sum(scored))


def conversation(cast: list[tuple[str, str]], lines: list[str]) -> Audio:
    """The lines spoken by the cast in turn, 0.25 s apart, as 16 kHz mono."""
    from scipy.signal import resample_poly

    parts = []
    for index, line in enumerate(lines):
        engine, voice = cast[index % len(cast)]
        speech = get_engine(engine).synthesize(line, voice)
        mono = resample_poly(speech.samples[:, 0], 16_000, speech.sample_rate)
        parts += [mono.astype(np.float32), np.zeros(4_000, dtype=np.float32)]
    return Audio(np.concatenate(parts).reshape(-1, 1), 16_000)


# Speech regions


def test_vad_finds_the_speech_of_the_sample(sample: Audio, reference: list[Span]) -> None:
    regions = speech_regions(sample)
    count = sample.duration_ms // FRAME_MS
    agreement = np.mean(frames(regions, count) == frames(reference, count))
    assert agreement >= 0.90, agreement
    assert all(0 <= r.start_ms < r.end_ms <= sample.duration_ms for r in regions)
    assert regions == sorted(regions, key=lambda r: r.start_ms)


def test_vad_finds_the_same_speech_at_any_rate_and_channel_count(sample: Audio) -> None:
    stereo = decode(PYANNOTE / "sample.flac", sample_rate=44_100, channels=2)
    count = sample.duration_ms // FRAME_MS
    agreement = np.mean(
        frames(speech_regions(stereo), count) == frames(speech_regions(sample), count)
    )
    assert agreement >= 0.98, agreement


def test_vad_finds_no_speech_in_silence_or_noise() -> None:
    rng = np.random.default_rng(7)
    seconds = np.arange(10 * 16_000) / 16_000
    silence = np.zeros(seconds.size)
    white = 0.1 * rng.standard_normal(seconds.size)
    hum = 0.3 * np.sin(2 * np.pi * 50 * seconds) + 0.01 * rng.standard_normal(seconds.size)
    for signal in (silence, white, hum):
        audio = Audio(signal.astype(np.float32).reshape(-1, 1), 16_000)
        assert speech_regions(audio) == []
        assert diarize(audio) == []


# Diarization


def test_diarization_finds_the_two_speakers_of_the_sample_by_itself(
    sample: Audio, reference: list[Span], turns: list[SpeakerTurn]
) -> None:
    assert {turn.speaker for turn in turns} == {"speaker_1", "speaker_2"}
    accuracy = frame_accuracy(reference, turns, sample.duration_ms)
    assert accuracy >= 0.85, accuracy


def test_turns_are_in_order_and_labelled_by_first_appearance(
    sample: Audio, turns: list[SpeakerTurn]
) -> None:
    assert all(0 <= t.start_ms < t.end_ms <= sample.duration_ms for t in turns)
    assert all(a.end_ms <= b.start_ms for a, b in itertools.pairwise(turns))
    first_appearances = list(dict.fromkeys(turn.speaker for turn in turns))
    assert first_appearances == [f"speaker_{n}" for n in range(1, len(first_appearances) + 1)]


def test_a_known_number_of_speakers_is_kept(sample: Audio, reference: list[Span]) -> None:
    fractions: list[float] = []
    two = diarize(sample, num_speakers=2, progress=fractions.append)
    assert {turn.speaker for turn in two} == {"speaker_1", "speaker_2"}
    assert frame_accuracy(reference, two, sample.duration_ms) >= 0.85
    assert fractions == sorted(fractions)
    assert fractions[-1] == 1.0

    diarizer = Diarizer()
    diarizer.add(sample)
    assert {turn.speaker for turn in diarizer.finish(num_speakers=1)} == {"speaker_1"}
    assert len({turn.speaker for turn in diarizer.finish(num_speakers=3)}) == 3
    for outside in (0, MAX_SPEAKERS + 1):
        with pytest.raises(ValueError, match="num_speakers"):
            diarizer.finish(num_speakers=outside)


def test_a_recording_handed_over_in_pieces_is_diarized_as_a_whole(
    sample: Audio, reference: list[Span]
) -> None:
    # Cut during the pause at 21.65 s, as a decoder's windows would be.
    cut = round(21.65 * sample.sample_rate)
    first = Audio(np.ascontiguousarray(sample.samples[:cut]), sample.sample_rate)
    second = Audio(np.ascontiguousarray(sample.samples[cut:]), sample.sample_rate)
    diarizer = Diarizer()
    diarizer.add(first, 0)
    diarizer.add(second, first.duration_ms)
    turns = diarizer.finish()
    assert {turn.speaker for turn in turns} == {"speaker_1", "speaker_2"}
    assert frame_accuracy(reference, turns, sample.duration_ms) >= 0.85
    with pytest.raises(ValueError, match="in order"):
        diarizer.add(second, 0)


def test_one_voice_is_one_speaker_and_three_voices_are_three() -> None:
    alone = conversation([("piper", "en_US-joe-medium")], LINES)
    assert {turn.speaker for turn in diarize(alone)} == {"speaker_1"}

    cast = [("piper", "en_US-joe-medium"), ("flite", "awb"), ("festival", "kal_diphone")]
    turns = diarize(conversation(cast, LINES))
    assert [turn.speaker for turn in turns] == [f"speaker_{n % 3 + 1}" for n in range(6)]


# Embeddings


def test_embeddings_are_unit_vectors_and_silence_has_no_voice(sample: Audio) -> None:
    voice = embed(sample)
    assert voice.shape == (256,)
    assert abs(float(np.linalg.norm(voice)) - 1.0) < 1e-5
    assert similarity(voice, voice) == pytest.approx(1.0)
    starts_ms, windows = embed_windows(sample, window_s=0.8, hop_s=0.5)
    assert starts_ms.tolist() == list(range(0, sample.duration_ms - 800 + 1, 500))
    assert np.allclose(np.linalg.norm(windows, axis=1), 1.0, atol=1e-5)
    with pytest.raises(NoSpeech):
        embed(Audio(np.zeros((16_000 * 3, 1), dtype=np.float32), 16_000))


# Speakers of words


def test_each_utterance_of_the_sample_gets_its_speaker(turns: list[SpeakerTurn]) -> None:
    utterances = []
    for line in (PYANNOTE / "sample.stm").read_text().splitlines():
        fields = line.split()
        start, end = float(fields[3]), float(fields[4])
        utterances.append(Span(fields[2], round(start * 1000), round(end * 1000)))
    speakers = assign_speakers(utterances, turns)
    names = sorted({u.speaker for u in utterances})
    right = max(
        sum(mapping[u.speaker] == s for u, s in zip(utterances, speakers, strict=True))
        for mapping in (
            dict(zip(names, labels, strict=True))
            for labels in itertools.permutations(["speaker_1", "speaker_2"])
        )
    )
    # All but the two opening "Hello?"s (under a second each).
    assert right >= len(utterances) - 2, right


def test_assign_speakers_takes_the_largest_overlap_or_else_the_nearest_turn() -> None:
    turns = [
        SpeakerTurn("speaker_2", 1_000, 3_000),
        SpeakerTurn("speaker_1", 0, 1_000),
        SpeakerTurn("speaker_1", 3_500, 5_000),
    ]
    words = [
        Span("", 100, 900),  # inside speaker_1's first turn
        Span("", 900, 1_300),  # more of it in speaker_2's turn
        Span("", 3_050, 3_300),  # in the pause, nearer speaker_2's end
        Span("", 3_250, 3_450),  # in the pause, nearer speaker_1's start
        Span("", 4_000, 4_000),  # no length, inside a turn
        Span("", 6_000, 6_200),  # after every turn
        Span("", -500, -100),  # before every turn
    ]
    assert assign_speakers(words, turns) == [
        "speaker_1",
        "speaker_2",
        "speaker_2",
        "speaker_1",
        "speaker_1",
        "speaker_1",
        "speaker_1",
    ]
    assert assign_speakers(words[:2], []) == [None, None]
    assert assign_speakers([], turns) == []
