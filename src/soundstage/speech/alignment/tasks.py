"""The forced-alignment job: the recording transcribed with word times window by window (as
speech to text does: bounded memory for an hour, English words force-aligned by PocketSphinx),
then every word of the known text placed on the words heard that match it
(engines.transcribers.align.place_words), and the characters on their words."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from soundstage.credits.rates import Operation
from soundstage.engines.transcribers import sphinx
from soundstage.engines.transcribers.align import TimedWord, place_words
from soundstage.engines.transcribers.base import Word, bcp47_language, whisper_language
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


def align_transcript(ctx: JobContext[AlignmentJob]) -> JobOutcome[AlignmentResult]:
    request = ctx.request
    opened = ctx.open_audio_input(
        request.audio_url,
        InputRule(PARAM, MAX_DURATION_MS, OPERATION, Operation.ALIGNMENT),
        stage="transcribing",
        block_frames=None,
        kept_media_id=inputs.kept_media_id(ctx, 0),
    )
    transcriber = get_transcriber()
    language: str | None = None if request.language == "auto" else request.language
    heard: list[Word] = []
    total = max(opened.info.duration_ms, 1)
    blocks = within_duration(
        iter_decode(opened.path, sample_rate=SAMPLE_RATE, channels=1, block_frames=_BLOCK_FRAMES),
        MAX_DURATION_MS,
        param=PARAM,
        operation=OPERATION,
    )
    duration_ms = price = 0
    recognized_language: str | None = None
    for window in longform.windows(blocks, max_seconds=WINDOW_SECONDS):
        duration_ms = window.offset_ms + window.audio.duration_ms
        price = ctx.price_of_decoded(Operation.ALIGNMENT, duration_ms)
        if window.audio.frames == 0:
            continue
        share = window.audio.duration_ms / total

        def report(done: float, start: int = window.offset_ms, share: float = share) -> None:
            ctx.progress(0.02 + 0.9 * (start / total + done * share), "transcribing")

        part = transcriber.transcribe(
            window.audio, language=language, word_timestamps=True, progress=report
        )
        language = language or part.language
        recognized_language = recognized_language or part.language
        segments = sphinx.refine_segments(window.audio, part.segments, part.language)
        heard.extend(
            replace(
                word,
                start_ms=word.start_ms + window.offset_ms,
                end_ms=word.end_ms + window.offset_ms,
            )
            for segment in segments
            for word in segment.words
        )
        ctx.check_cancelled()
    ctx.progress(0.95, "aligning")
    placed = place_words(request.text, heard, duration_ms)
    if recognized_language is None:  # no audio at all
        asked = request.language
        recognized_language = "en" if asked == "auto" else whisper_language(asked)
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
        characters=_characters(request.text, placed, duration_ms),
        loss=round(sum(1 - word.confidence for word in placed) / max(len(placed), 1), 3),
        duration_ms=duration_ms,
        language=bcp47_language(recognized_language),
    )
    return JobOutcome(result, credits_used=price)


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
