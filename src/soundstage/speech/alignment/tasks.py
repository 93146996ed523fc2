"""The forced-alignment job, in bounded memory for an hour of audio (ten-minute windows, as
speech to text): pass 1 transcribes the recording with word times; every word of the known
text is placed on the words heard that match it (engines.transcribers.align.place_words);
for English, pass 2 decodes the recording again and force-aligns the text's own words with
PocketSphinx, phrase by phrase (where the recognizer joined or split words differently from
the text, "cold-hearted" for "cold hearted", each of the text's words gets its own times);
the characters are placed on their words."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from soundstage.credits.rates import Operation
from soundstage.engines.transcribers import sphinx
from soundstage.engines.transcribers.align import TimedWord, place_words
from soundstage.engines.transcribers.base import (
    Segment,
    Word,
    bcp47_language,
    whisper_language,
)
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.jobs import handlers, inputs
from soundstage.jobs.handlers import InputRule, JobContext, JobOutcome
from soundstage.media.audio import iter_decode
from soundstage.media.input_limits import within_duration
from soundstage.speech import longform
from soundstage.speech.alignment.schemas import (
    MAX_DURATION_MS,
    AlignedCharacter,
    AlignedWord,
    AlignmentResult,
)
from soundstage.speech.character_times import WordSpan, character_times

KIND: Final = "alignment"
PARAM: Final = "audio_url"
OPERATION: Final = "forced alignment"
SAMPLE_RATE: Final = 16_000
# As speech to text: windows of at most ten minutes (about 38 MB of 16 kHz float32).
WINDOW_SECONDS: Final = 600.0
_BLOCK_FRAMES: Final = 1 << 18


class AlignmentJob(inputs.KeptInputs):
    """The job's request: the endpoint's AlignmentRequest, its language settled (`auto` or
    a supported tag)."""

    audio_url: str
    text: str
    language: str


def _windows(ctx: JobContext[AlignmentJob], path: Path) -> Iterator[longform.Window]:
    blocks = within_duration(
        iter_decode(path, sample_rate=SAMPLE_RATE, channels=1, block_frames=_BLOCK_FRAMES),
        MAX_DURATION_MS,
        param=PARAM,
        operation=OPERATION,
    )
    return longform.windows(blocks, max_seconds=WINDOW_SECONDS)


@dataclass
class _Heard:
    """What the recognizer heard: its words and phrases (segments) on the recording's time
    line, the language, the duration decoded and its price."""

    words: list[Word] = field(default_factory=list)
    phrases: list[tuple[int, int]] = field(default_factory=list)
    language: str | None = None
    duration_ms: int = 0
    price: int = 0


def _hear(ctx: JobContext[AlignmentJob], path: Path, total_ms: int) -> _Heard:
    """Pass 1: the recording transcribed with word times, window by window, each window
    priced as decoded before it is worked on."""
    request = ctx.request
    transcriber = get_transcriber()
    language: str | None = None if request.language == "auto" else request.language
    heard = _Heard()
    total = max(total_ms, 1)
    for window in _windows(ctx, path):
        heard.duration_ms = window.offset_ms + window.audio.duration_ms
        heard.price = ctx.price_of_decoded(Operation.ALIGNMENT, heard.duration_ms)
        if window.audio.frames == 0:
            continue
        share = window.audio.duration_ms / total

        def report(done: float, start: int = window.offset_ms, share: float = share) -> None:
            ctx.progress(0.02 + 0.8 * (start / total + done * share), "transcribing")

        part = transcriber.transcribe(
            window.audio, language=language, word_timestamps=True, progress=report
        )
        language = language or part.language
        heard.language = heard.language or part.language
        offset = window.offset_ms
        for segment in part.segments:
            heard.phrases.append((segment.start_ms + offset, segment.end_ms + offset))
            heard.words.extend(
                replace(word, start_ms=word.start_ms + offset, end_ms=word.end_ms + offset)
                for word in segment.words
            )
        ctx.check_cancelled()
    return heard


def _phrase_of(phrases: list[tuple[int, int]], word: TimedWord) -> int:
    """The index of the phrase a placed word falls in (by its middle), or the nearest."""
    middle = (word.start_ms + word.end_ms) // 2
    index = bisect.bisect_right([start for start, _ in phrases], middle) - 1
    return max(index, 0)


def _sharpen(
    ctx: JobContext[AlignmentJob], path: Path, heard: _Heard, placed: list[TimedWord]
) -> list[TimedWord]:
    """Pass 2, English: the text's own words force-aligned by PocketSphinx, phrase by phrase
    (each the recognizer's phrase they fall in), a window at a time. A phrase the aligner
    cannot fit (the text and the audio disagree) keeps the times placed from what was heard."""
    groups: dict[int, list[int]] = {}
    for index, word in enumerate(placed):
        groups.setdefault(_phrase_of(heard.phrases, word), []).append(index)
    sharpened = list(placed)
    for window in _windows(ctx, path):
        offset, end = window.offset_ms, window.offset_ms + window.audio.duration_ms
        inside = [p for p in sorted(groups) if offset <= heard.phrases[p][0] < end]
        segments = [
            Segment(
                text="",
                start_ms=heard.phrases[p][0] - offset,
                end_ms=min(heard.phrases[p][1], end) - offset,
                words=tuple(
                    Word(
                        placed[i].word,
                        placed[i].start_ms - offset,
                        placed[i].end_ms - offset,
                        placed[i].confidence,
                    )
                    for i in groups[p]
                ),
            )
            for p in inside
        ]
        refined = sphinx.refine_segments(window.audio, segments, "en")
        for p, segment in zip(inside, refined, strict=True):
            for i, aligned in zip(groups[p], segment.words, strict=True):
                sharpened[i] = TimedWord(
                    placed[i].word,
                    aligned.start_ms + offset,
                    aligned.end_ms + offset,
                    placed[i].confidence,
                )
        ctx.check_cancelled()
    return sharpened


def align_transcript(ctx: JobContext[AlignmentJob]) -> JobOutcome[AlignmentResult]:
    request = ctx.request
    opened = ctx.open_audio_input(
        request.audio_url,
        InputRule(PARAM, MAX_DURATION_MS, OPERATION, Operation.ALIGNMENT),
        stage="transcribing",
        block_frames=None,
        kept_media_id=inputs.kept_media_id(ctx, 0),
    )
    heard = _hear(ctx, opened.path, opened.info.duration_ms)
    ctx.progress(0.85, "aligning")
    placed = place_words(request.text, heard.words, heard.duration_ms)
    if heard.language == "en" and heard.phrases:
        placed = _sharpen(ctx, opened.path, heard, placed)
    language = heard.language
    if language is None:  # no audio at all
        asked = request.language
        language = "en" if asked == "auto" else whisper_language(asked)
    result = AlignmentResult(
        words=[
            AlignedWord(
                word=word.word,
                start_ms=word.start_ms,
                end_ms=word.end_ms,
                confidence=word.confidence,
            )
            for word in placed
        ],
        characters=_characters(request.text, placed, heard.duration_ms),
        loss=round(sum(1 - word.confidence for word in placed) / max(len(placed), 1), 3),
        duration_ms=heard.duration_ms,
        language=bcp47_language(language),
    )
    return JobOutcome(result, credits_used=heard.price)


def _characters(text: str, placed: list[TimedWord], duration_ms: int) -> list[AlignedCharacter]:
    """Every character of the text on the times of its words (speech.character_times)."""
    spans = [WordSpan(word.start_ms, word.end_ms) for word in placed]
    times = character_times(text, spans, duration_ms)
    return [
        AlignedCharacter(
            character=character, start_ms=round(start * 1000), end_ms=round(end * 1000)
        )
        for character, start, end in zip(times.characters, times.starts, times.ends, strict=True)
    ]


def register() -> None:
    """Declare the alignment job kind (called by the composition root, soundstage.app_tasks)."""
    handlers.declare(KIND, align_transcript, request=AlignmentJob, result=AlignmentResult)
